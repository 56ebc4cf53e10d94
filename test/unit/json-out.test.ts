// writeJson (server/src/cli/jsonOut.ts): the CLI's JSON output written in pieces is byte for byte
// JSON.stringify(value, null, 2) + '\n', whatever the value — and no piece holds the whole text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { writeJson } from '../../server/src/cli/jsonOut';
import { planDocument } from '../../server/src/core/markdown/engine';
import { CORPUS_INPUTS } from '../paths';

function pieces(value: unknown, chunk?: number): string[] {
  const out: string[] = [];
  writeJson((t) => out.push(t), value, chunk);
  return out;
}

/** Values JSON.stringify treats specially, mixed into JSON: left out, null in arrays, toJSON, boxed, Dates, getters. */
const odd = fc.oneof(
  fc.constant(undefined),
  fc.constant(() => 1),
  fc.constant(Symbol('s')),
  fc.constant(new Date(0)),
  fc.constant(new Number(3)),
  fc.constant(new String('boxed\nline')),
  fc.constant({ toJSON: (k: string) => ({ key: k, nested: [1, { a: 'x\ny' }] }) }),
  fc.constant({ toJSON: () => undefined }),
  fc.constant([]),
  fc.constant({}),
  fc.constant(Object.defineProperty({}, 'g', { enumerable: true, get: () => ({ deep: [1, 2] }) })),
);
const { value: anyValue } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, fc.jsonValue({ maxDepth: 2 }), odd, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 5 }),
  object: fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('a: b', '"', '\n', '__proto__', '0', '10')), tie('value'), { maxKeys: 5 }),
}));

test('writeJson writes exactly JSON.stringify(value, null, 2) + newline, in pieces of the given size', () => {
  fc.assert(
    fc.property(anyValue, fc.constantFrom(1, 7, 64, 1 << 16), (value, chunk) => {
      const expected = JSON.stringify(value, null, 2);
      if (expected === undefined) {
        assert.throws(() => pieces(value, chunk), TypeError);
        return;
      }
      const out = pieces(value, chunk);
      assert.equal(out.join(''), expected + '\n');
      for (const p of out.slice(0, -1)) assert.ok(p.length >= chunk, 'only the last piece is short');
    }),
    { numRuns: 3000 },
  );
});

test("writeJson on real plans: the corpus's plan verdicts, and a large one written in pieces far smaller than it", () => {
  const files = readdirSync(CORPUS_INPUTS).filter((f) => f.endsWith('.md'));
  assert.ok(files.length >= 20);
  for (const f of files) {
    const v = planDocument(readFileSync(path.join(CORPUS_INPUTS, f), 'utf8')).verdict;
    assert.equal(pieces(v).join(''), JSON.stringify(v, null, 2) + '\n', f);
  }
  const big = files.map((f) => readFileSync(path.join(CORPUS_INPUTS, f), 'utf8')).join('\n');
  const v = planDocument(big).verdict;
  const expected = JSON.stringify(v, null, 2) + '\n';
  const out = pieces(v, 4096);
  assert.equal(out.join(''), expected);
  // Written as it goes: no piece is more than a chunk plus one section row.
  const longestRow = Math.max(...v.context_plan!.sections.map((s) => JSON.stringify(s, null, 2).length));
  assert.ok(out.length > 10, `${out.length} pieces`);
  for (const p of out) assert.ok(p.length <= 4096 + longestRow * 2, `a piece of ${p.length} characters`);
});
