// The fast hover path is the old one, answer for answer: `tokenAt` (one scan up to the cursor) against
// jsonc-parser's getLocation (which hoverAt used before) at every offset, and hoverAt with a known kind
// and value against hoverAt parsing by itself. Equivalence only; timings are bench figures (bench/json.bench.ts).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import fc from 'fast-check';
import { getLocation } from 'jsonc-parser';
import { hoverAt } from '../../server/src/core/agentJson/hover';
import { TokenIndex, tokenAt } from '../../server/src/core/json/locate';
import { checkDocument } from '../../server/src/core/agentJson/check';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** What hoverAt derived from getLocation before: the token touching the offset, and its path. */
function reference(text: string, offset: number): { path: (string | number)[]; start: number; end: number } | undefined {
  const loc = getLocation(text, offset);
  const t = loc.previousNode;
  if (!t || offset < t.offset || offset > t.offset + t.length) return undefined;
  return { path: loc.path, start: t.offset, end: t.offset + t.length };
}

function assertSameAtEveryOffset(text: string, what: string): void {
  // With checkpoints every few characters, visited backwards, forwards and shuffled: resuming from any of
  // them gives the scan from the start's answer.
  const every = 1 + (text.length % 7);
  const indexes = [new TokenIndex(every), new TokenIndex(every), new TokenIndex(every)];
  const offsets = Array.from({ length: text.length + 3 }, (_, k) => k - 1);
  const shuffled = offsets.map((_, k) => offsets[(k * 7919) % offsets.length]!);
  const orders = [offsets, [...offsets].reverse(), shuffled];
  for (const off of offsets) {
    const where = `${what}: offset ${off} of ${JSON.stringify(text.length < 200 ? text : text.slice(Math.max(0, off - 40), off + 40))}`;
    assert.deepEqual(tokenAt(text, off), reference(text, off), where);
  }
  orders.forEach((order, k) => {
    for (const off of order) assert.deepEqual(tokenAt(text, off, indexes[k]), tokenAt(text, off), `${what}: offset ${off} with checkpoints (order ${k})`);
    const cps = indexes[k]!.checkpoints.map((c) => c.i);
    assert.deepEqual(cps, [...cps].sort((a, b) => a - b), 'checkpoints stay sorted');
  });
}

const examples = [
  ...readdirSync(join(repoRoot, 'examples', 'agent-json')).map((f) => join('examples', 'agent-json', f)),
  join('examples', 'golden', 'valid-report.json'),
  join('examples', 'golden', 'invalid-report.json'),
].filter((f) => f.endsWith('.json'));

describe('tokenAt equals getLocation on JSON.parse-able text', () => {
  test('hand-picked edges: escapes in keys and strings, empty containers, scalars at the root, numbers', () => {
    const cases = [
      '{}', '[]', '"a"', '12', '-0.5e+3', 'true', 'null', ' [ 1 , 2 ,3] ',
      '{"a":1,"b":[true,false,null],"c":{"d":"e"}}',
      '{"k\\"ey":"v\\\\","x\\\\":["\\\\\\"",{"":""}],"\\u00e9\\n":-1.25E-2}',
      '{\n  "a": {},\n  "b": [],\n  "c": [{}, [], [[]], {"d": [0, {"e": "f"}]}]\n}',
      '[{"a":[1,{"b":[2,3]}]},"x",{"c":{"d":{"e":null}}}]',
      '\t{\r\n"a"\t:\r\n"b"\n}\n',
    ];
    for (const text of cases) assertSameAtEveryOffset(text, 'case');
  });

  test('every example document, at every offset', () => {
    for (const f of examples) {
      const text = readFileSync(join(repoRoot, f), 'utf8');
      try {
        JSON.parse(text);
      } catch {
        continue; // not JSON: hoverAt keeps getLocation for those
      }
      assertSameAtEveryOffset(text, f);
    }
  });

  test('property: arbitrary JSON values, compact or indented, at every offset', () => {
    const key = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('a"b', 'back\\slash', '\\"', 'é', '\u2028', '\ud83d\ude00', ''));
    const value = fc.letrec((tie) => ({
      v: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.oneof(fc.string({ maxLength: 8 }), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.boolean(), fc.constant(null), key),
        fc.array(tie('v'), { maxLength: 4 }),
        fc.dictionary(key, tie('v'), { maxKeys: 4 }),
      ),
    })).v;
    fc.assert(
      fc.property(value, fc.constantFrom(undefined, 0, 1, 2, '\t'), (v, indent) => {
        const text = JSON.stringify(v, null, indent);
        assertSameAtEveryOffset(text, 'generated');
      }),
      { numRuns: 300, seed: 20261130 },
    );
  });
});

describe('hoverAt with the memoized kind and value equals hoverAt parsing by itself', () => {
  const kinds: Record<string, string | undefined> = {};
  test('every example document (BOM and no BOM), at every offset', () => {
    for (const f of examples) {
      const raw = readFileSync(join(repoRoot, f), 'utf8');
      for (const text of [raw, '\ufeff' + raw]) {
        const opts = { fsPath: join('/x', f.split('/').pop()!) };
        const check = checkDocument(text, opts);
        kinds[f] = check.kind;
        if (check.value === undefined) continue; // the feature layer passes nothing known for non-JSON text
        const known = { kind: check.kind, value: () => check.value, checkpoints: new TokenIndex(64) };
        let hovers = 0;
        for (let off = 0; off <= text.length; off++) {
          const fresh = hoverAt(text, off, opts);
          assert.deepEqual(hoverAt(text, off, opts, known), fresh, `${f}${text === raw ? '' : ' (BOM)'} at ${off}`);
          if (fresh) hovers++;
        }
        if (check.kind) assert.ok(hovers > 0, `${f}: some hovers`);
      }
    }
    assert.ok(Object.values(kinds).filter(Boolean).length >= 5, 'the examples cover several kinds');
  });

  test('the known value is read only when there is a token to explain', () => {
    const text = readFileSync(join(repoRoot, 'examples', 'agent-json', 'settings-table.verdict.json'), 'utf8');
    let reads = 0;
    const value = JSON.parse(text);
    const known = { kind: 'verdict' as const, value: () => (reads++, value) };
    assert.equal(hoverAt(text, 0, {}, known), undefined); // on the opening brace
    assert.equal(reads, 0);
    assert.ok(hoverAt(text, text.indexOf('"verdict"') + 2, {}, known));
    assert.equal(reads, 1);
    assert.equal(hoverAt(text, 3, {}, { kind: undefined, value: () => (reads++, value) }), undefined);
    assert.equal(reads, 1);
  });
});
