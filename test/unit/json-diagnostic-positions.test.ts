/**
 * lspDiagnostics (one sweep over the line breaks, or the lines the locator counted) gives the positions
 * TextDocument.positionAt gives, for ranges in any order, at line breaks, at both ends of the text and beyond
 * it (clamped), with a BOM; the locator's line hints and hintedPositions agree with LineIndex everywhere.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { lspDiagnostics } from '../../server/src/features/json/documents';
import { JsonLocator } from '../../server/src/core/json/locate';
import { hintedPositions, LineIndex } from '../../server/src/core/lineIndex';
import type { CoreDiagnostic, JsonPath, JsonTarget } from '../../server/src/core/types';

/** Every path of a value, the root included. */
function allPaths(v: unknown, at: JsonPath = []): JsonPath[] {
  const out: JsonPath[] = [at];
  if (Array.isArray(v)) v.forEach((x, i) => out.push(...allPaths(x, [...at, i])));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) out.push(...allPaths(x, [...at, k]));
  return out;
}

const jsonArb = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, fc.constantFrom(null, true, 0, -1.5e3), fc.string({ maxLength: 4 }), tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(fc.constantFrom('a', 'b', 'q"', 'é', ''), tie('value'), { maxKeys: 3 }),
})).value;

/** Indented JSON whose line breaks are "\n", "\r\n" or a lone "\r" (picked per break), maybe with a BOM. */
const jsonTextArb = fc
  .tuple(jsonArb, fc.constantFrom(0, 2, '\t'), fc.array(fc.constantFrom('\n', '\r\n', '\r'), { minLength: 1, maxLength: 8 }), fc.boolean())
  .map(([value, indent, breaks, bom]) => {
    let k = 0;
    const body = (JSON.stringify(value, null, indent) ?? 'null').replace(/\n/g, () => breaks[k++ % breaks.length]!);
    return { value, body, text: (bom ? '\uFEFF' : '') + body };
  });

describe('lspDiagnostics positions', () => {
  test('equal TextDocument.positionAt, with and without \\r', () => {
    const textArb = fc
      .tuple(fc.boolean(), fc.array(fc.constantFrom('a', 'bc', '\n', '\n\n', '{', ' ', 'é', '\r\n', '\r'), { maxLength: 40 }))
      .map(([bom, p]) => (bom ? '\uFEFF' : '') + p.join(''));
    fc.assert(
      fc.property(textArb, fc.array(fc.tuple(fc.integer({ min: -2, max: 60 }), fc.integer({ min: 0, max: 8 })), { maxLength: 12 }), (text, ranges) => {
        const doc = TextDocument.create('file:///x.json', 'json', 1, text);
        const diags: CoreDiagnostic[] = ranges.map(([s, len]) => ({ code: 'schema', severity: 'error', message: 'm', range: { start: s, end: s + len } }));
        const got = lspDiagnostics(doc, diags).map((d) => d.range);
        const clamp = (o: number) => Math.max(0, Math.min(o, text.length));
        const want = diags.map((d) => ({ start: doc.positionAt(clamp(d.range.start)), end: doc.positionAt(clamp(Math.max(d.range.start, d.range.end))) }));
        assert.deepEqual(got, want, JSON.stringify({ text, ranges }));
      }),
      { numRuns: 3000, seed: 1612 },
    );
  });

  test('with the locator\'s line hints: the same positions, for every part of every path, any line breaks and a BOM', () => {
    fc.assert(
      fc.property(jsonTextArb, fc.array(fc.nat(), { maxLength: 10 }), ({ value, body, text }, picks) => {
        const paths = allPaths(value);
        const targets: JsonTarget[] = picks.map((n, i) => {
          const path = paths[n % paths.length]!;
          return i % 4 === 1 ? { path, part: 'key' } : i % 4 === 2 ? { path, part: 'missing', property: 'x' } : i % 4 === 3 ? { path: [...path, 'absent'] } : { path };
        });
        const bom = text.length - body.length;
        const locator = new JsonLocator(body, bom, targets);
        const diags: CoreDiagnostic[] = targets.map((t) => ({ code: 'schema', severity: 'error', message: 'm', range: locator.rangeOf(t) }));
        const hints = locator.lineHints();
        const doc = TextDocument.create('file:///x.json', 'json', 1, text);
        const want = diags.map((d) => ({ start: doc.positionAt(d.range.start), end: doc.positionAt(d.range.end) }));
        assert.deepEqual(lspDiagnostics(doc, diags, hints).map((d) => d.range), want, JSON.stringify(text));
        // The CLI's positions (the BOM is no column there): hinted = LineIndex of the text without it.
        const lines = new LineIndex(body);
        const hinted = hintedPositions(body, hints);
        for (const d of diags) for (const o of [d.range.start - bom, d.range.end - bom]) assert.deepEqual(hinted(o), lines.positionAt(o), `${JSON.stringify(body)} @${o}`);
        // Every hint is exact, and offsets between and beyond them are swept right, in any order.
        hints.offsets.forEach((o, k) => assert.deepEqual({ line: hints.lines[k], character: o - hints.lineStarts[k]! }, lines.positionAt(o)));
        const any = hintedPositions(body, hints);
        for (const n of picks) {
          const o = (n % (body.length + 3)) - 1;
          assert.deepEqual(any(o), lines.positionAt(o), `${JSON.stringify(body)} @${o}`);
        }
      }),
      { numRuns: 2000, seed: 20261201 },
    );
  });
});
