/**
 * The checkDocument / checkBytes facade on bad input: never a crash, one clear diagnostic,
 * offsets relative to the text as given. Plus LineIndex, the offset ↔ position map the CLI uses.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { checkBytes, checkDocument, firstInvalidUtf8Byte, INTERNAL_CODE, TOO_LARGE_CODE } from '../../server/src/core/agentJson/check';
import { RULES } from '../../server/src/core/agentJson/rules/index';
import { LineIndex } from '../../server/src/core/lineIndex';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const verdictPath = join(repoRoot, 'examples', 'agent-json', 'settings-table.verdict.json');
const verdictText = readFileSync(verdictPath, 'utf8');
const enc = (s: string) => new TextEncoder().encode(s);

describe('checkDocument', () => {
  test('unrelated JSON gets no diagnostics and no kind', () => {
    for (const text of ['{"name":"x","version":"1.0.0"}', '[1,2,3]', '{"a":1,}', '', 'not json at all']) {
      const r = checkDocument(text, { fsPath: '/repo/package.json' });
      assert.equal(r.kind, undefined, text);
      assert.deepEqual(r.diagnostics, [], text);
    }
  });

  test('truncated JSON of a known kind: one json-syntax error at the end', () => {
    const text = verdictText.slice(0, 200);
    const r = checkDocument(text, { fsPath: '/x/a.verdict.json' });
    assert.equal(r.kind, 'verdict');
    assert.equal(r.diagnostics.length, 1);
    assert.equal(r.diagnostics[0]!.code, 'json-syntax');
    assert.equal(r.diagnostics[0]!.severity, 'error');
    assert.ok(r.diagnostics[0]!.range.start >= 190 && r.diagnostics[0]!.range.start <= 200, JSON.stringify(r.diagnostics[0]));
  });

  test('a trailing comma is located at the comma’s successor and named', () => {
    const text = '{\n  "schema_version": "1.0",\n}';
    const r = checkDocument(text, { kind: 'verdict' });
    assert.equal(r.diagnostics.length, 1);
    assert.equal(r.diagnostics[0]!.range.start, text.indexOf('}'));
    assert.match(r.diagnostics[0]!.message, /trailing commas/);
  });

  test('broken text still finds its kind by content ($schema or distinctive keys)', () => {
    const r = checkDocument('{"schema_version":"1.0","verdict":"convert","measured_chars":{},"flags":{}', {});
    assert.equal(r.kind, 'verdict');
    assert.equal(r.diagnostics[0]!.code, 'json-syntax');
  });

  test('100,000-deep nesting: no stack overflow, a clean result', () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const forced = checkDocument(deep, { kind: 'verdict' });
    assert.ok(forced.diagnostics.length >= 1);
    assert.ok(forced.diagnostics.every((d) => d.range.start >= 0 && d.range.end <= deep.length));
    const truncated = checkDocument('['.repeat(100_000), { kind: 'verdict' });
    assert.equal(truncated.diagnostics.length, 1);
    assert.equal(truncated.diagnostics[0]!.code, 'json-syntax');
    const inObject = `{"schema_version":"1.0","verdict":"convert","measured_chars":{},"flags":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const sniffed = checkDocument(inObject, {});
    assert.equal(sniffed.kind, 'verdict');
    assert.ok(sniffed.diagnostics.length > 0);
  });

  test('a BOM: parsed, and offsets count it (they refer to the text as given)', () => {
    const text = '\uFEFF' + verdictText.replace('"mode": "lossless"', '"mode": "careful"');
    const r = checkDocument(text, { fsPath: '/x/a.verdict.json' });
    const d = r.diagnostics.find((x) => x.code === 'schema');
    assert.ok(d);
    assert.equal(text.slice(d.range.start, d.range.end), '"careful"');
    assert.deepEqual(checkDocument('\uFEFF' + verdictText, { fsPath: '/x/a.verdict.json' }).diagnostics, []);
  });

  test('over the size limit: one info diagnostic, nothing parsed', () => {
    const r = checkDocument(verdictText, { fsPath: '/x/a.verdict.json', settings: { maxFileSizeMB: 0.0001 } });
    assert.equal(r.diagnostics.length, 1);
    assert.equal(r.diagnostics[0]!.code, TOO_LARGE_CODE);
    assert.equal(r.diagnostics[0]!.severity, 'info');
    assert.equal(r.value, undefined);
  });

  test('over the size limit, an unrelated document stays silent; a known one is recognized from its head', () => {
    const settings = { maxFileSizeMB: 0.0001 };
    assert.deepEqual(checkDocument('{"name": "' + 'x'.repeat(200) + '"}', { fsPath: '/x/data.json', settings }).diagnostics, []);
    const sniffed = checkDocument(verdictText, { fsPath: '/x/data.json', settings });
    assert.equal(sniffed.kind, 'verdict');
    assert.deepEqual(sniffed.diagnostics.map((d) => d.code), [TOO_LARGE_CODE]);
  });

  test('unknown major schema_version: one warning at the value, nothing else', () => {
    const text = verdictText.replace('"schema_version": "1.0"', '"schema_version": "2.0"').replace('"mode": "lossless"', '"mode": "whatever"');
    const r = checkDocument(text, { fsPath: '/x/a.verdict.json' });
    assert.equal(r.diagnostics.length, 1);
    assert.equal(r.diagnostics[0]!.code, 'unsupported-version');
    assert.equal(r.diagnostics[0]!.severity, 'warning');
    assert.equal(text.slice(r.diagnostics[0]!.range.start, r.diagnostics[0]!.range.end), '"2.0"');
  });

  test('a throwing rule set becomes one internal error, not a crash', () => {
    const original = RULES.verdict;
    RULES.verdict = () => {
      throw new Error('boom');
    };
    try {
      const r = checkDocument(verdictText, { fsPath: '/x/a.verdict.json' });
      assert.equal(r.diagnostics.length, 1);
      assert.equal(r.diagnostics[0]!.code, INTERNAL_CODE);
      assert.match(r.diagnostics[0]!.message, /boom/);
    } finally {
      RULES.verdict = original;
    }
  });

  test('diagnostics come sorted by offset', () => {
    const text = verdictText.replace('"mode": "lossless"', '"mode": "x"').replace('"schema_version": "1.0"', '"schema_version": "1"');
    const starts = checkDocument(text, { fsPath: '/x/a.verdict.json' }).diagnostics.map((d) => d.range.start);
    assert.ok(starts.length >= 2);
    assert.deepEqual(starts, [...starts].sort((a, b) => a - b));
  });
});

describe('checkDocument never throws', () => {
  const kinds = ['verdict', 'report', 'critique', 'recipe-input', 'recipe-output'] as const;
  const samples = [
    verdictText,
    readFileSync(join(repoRoot, 'examples', 'golden', 'valid-report.json'), 'utf8'),
    readFileSync(join(repoRoot, 'examples', 'agent-json', 'config-loader.critique.json'), 'utf8'),
    readFileSync(join(repoRoot, 'examples', 'agent-json', 'chunked-spec.recipe-input.json'), 'utf8'),
    readFileSync(join(repoRoot, 'examples', 'agent-json', 'queued.recipe-output.json'), 'utf8'),
  ];

  test('on random edits of real documents, and on random JSON values, ranges stay inside the text', async () => {
    const fc = (await import('fast-check')).default;
    const edited = fc.tuple(fc.integer({ min: 0, max: samples.length - 1 }), fc.nat(), fc.nat({ max: 40 }), fc.string({ maxLength: 12 }), fc.constantFrom(...kinds)).map(([s, at, del, ins, kind]) => {
      const base = samples[s]!;
      const i = at % (base.length + 1);
      return { text: base.slice(0, i) + ins + base.slice(i + del), kind };
    });
    const valueEdits = fc.tuple(fc.integer({ min: 0, max: samples.length - 1 }), fc.constantFrom(...kinds), fc.jsonValue({ maxDepth: 3 }), fc.nat()).map(([s, kind, replacement, pick]) => {
      const value = JSON.parse(samples[s]!) as Record<string, unknown>;
      const keys = Object.keys(value);
      value[keys[pick % keys.length]!] = replacement;
      return { text: JSON.stringify(value, null, 2), kind };
    });
    fc.assert(
      fc.property(fc.oneof(edited, valueEdits), ({ text, kind }) => {
        const r = checkDocument(text, { kind });
        for (const d of r.diagnostics) {
          assert.ok(d.range.start >= 0 && d.range.start <= d.range.end && d.range.end <= text.length, JSON.stringify(d));
          assert.notEqual(d.code, INTERNAL_CODE, d.message);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('checkBytes', () => {
  test('NUL bytes: one json-syntax error naming the byte, nothing else', () => {
    const bytes = enc(verdictText);
    bytes[10] = 0;
    const r = checkBytes(bytes, { fsPath: '/x/a.verdict.json' });
    assert.equal(r.diagnostics.length, 1);
    assert.equal(r.diagnostics[0]!.code, 'json-syntax');
    assert.match(r.diagnostics[0]!.message, /binary.*byte 10/);
  });

  test('invalid UTF-8: one json-syntax error naming the byte', () => {
    const good = enc('{"a": "é"}');
    const bad = new Uint8Array([...good.slice(0, 7), 0xc3, 0x28, ...good.slice(9)]);
    const r = checkBytes(bad, { kind: 'verdict' });
    assert.equal(r.diagnostics.length, 1);
    assert.match(r.diagnostics[0]!.message, /invalid UTF-8 at byte 7/);
    assert.equal(firstInvalidUtf8Byte(new Uint8Array([0x41, 0xed, 0xa0, 0x80])), 1, 'a UTF-8 encoded surrogate is invalid');
    assert.equal(firstInvalidUtf8Byte(new Uint8Array([0x41, 0xe2, 0x82])), 1, 'a truncated sequence is invalid');
    assert.equal(firstInvalidUtf8Byte(enc('ok € 𝄞')), enc('ok € 𝄞').length, 'valid text has no invalid byte');
  });

  test('a UTF-8 BOM is accepted; the decoded text keeps it', () => {
    const r = checkBytes(new Uint8Array([0xef, 0xbb, 0xbf, ...enc(verdictText)]), { fsPath: '/x/a.verdict.json' });
    assert.deepEqual(r.diagnostics, []);
    assert.equal(r.text?.charCodeAt(0), 0xfeff);
  });

  test('over the size limit: not decoded, one info diagnostic', () => {
    const r = checkBytes(enc(verdictText), { fsPath: '/x/a.verdict.json', settings: { maxFileSizeMB: 0.0001 } });
    assert.equal(r.kind, 'verdict');
    assert.deepEqual(r.diagnostics.map((d) => d.code), [TOO_LARGE_CODE]);
  });
});

describe('LineIndex', () => {
  test('LF, CRLF and lone CR each end a line; positions round-trip', () => {
    const text = 'a\nbc\r\ndef\rg';
    const idx = new LineIndex(text);
    assert.equal(idx.lineCount, 4);
    for (let o = 0; o <= text.length; o++) {
      const p = idx.positionAt(o);
      if (text[o - 1] === '\r' && text[o] === '\n') continue; // between CR and LF there is no position of its own
      assert.equal(idx.offsetAt(p), o, `offset ${o}`);
    }
    assert.deepEqual(idx.positionAt(text.indexOf('def')), { line: 2, character: 0 });
    assert.deepEqual(idx.positionAt(text.length), { line: 3, character: 1 });
    assert.deepEqual(idx.positionAt(999), { line: 3, character: 1 }, 'clamped');
    assert.equal(idx.offsetAt({ line: 1, character: 99 }), text.indexOf('\r\n'), 'clamped before the line break');
    assert.equal(idx.offsetAt({ line: 0, character: 99 }), 1);
  });
});
