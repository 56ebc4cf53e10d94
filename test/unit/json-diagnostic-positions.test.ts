/**
 * lspDiagnostics (one sweep over the line breaks) gives the positions TextDocument.positionAt gives, for
 * ranges in any order, at line breaks, at both ends of the text and beyond it (clamped).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { lspDiagnostics } from '../../server/src/features/jsonDocuments';
import type { CoreDiagnostic } from '../../server/src/core/types';

describe('lspDiagnostics positions', () => {
  test('equal TextDocument.positionAt, with and without \\r', () => {
    const textArb = fc.array(fc.constantFrom('a', 'bc', '\n', '\n\n', '{', ' ', 'é', '\r\n', '\r'), { maxLength: 40 }).map((p) => p.join(''));
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
});
