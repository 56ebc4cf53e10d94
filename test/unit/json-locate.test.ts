/**
 * locatePaths (one trie-guided scan) against jsonc-parser's parse tree as the reference: the same value
 * range and property-key range for every path of random JSON printed compact and indented, and for paths
 * that do not exist (absent). No timings here (bench/ measures the scan).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { findNodeAtLocation, parseTree, type Node } from 'jsonc-parser';
import { JsonLocator, locatePaths } from '../../server/src/core/json/locate';
import type { JsonPath } from '../../server/src/core/types';

/** Every path of a value, the root included. */
function allPaths(v: unknown, at: JsonPath = []): JsonPath[] {
  const out: JsonPath[] = [at];
  if (Array.isArray(v)) v.forEach((x, i) => out.push(...allPaths(x, [...at, i])));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) out.push(...allPaths(x, [...at, k]));
  return out;
}

function reference(root: Node, path: JsonPath) {
  const node = findNodeAtLocation(root, path as (string | number)[]);
  if (!node) return undefined;
  const r: { start: number; end: number; keyStart?: number; keyEnd?: number } = { start: node.offset, end: node.offset + node.length };
  const key = node.parent?.type === 'property' ? node.parent.children![0]! : undefined;
  if (key) Object.assign(r, { keyStart: key.offset, keyEnd: key.offset + key.length });
  return r;
}

const keyArb = fc.oneof(fc.constantFrom('a', 'b', 'range', 'x y', 'é', 'q"uote', 'back\\slash', '0', ''), fc.string({ maxLength: 4 }));
const jsonArb = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, fc.constantFrom(null, true, false, 0, -1.5e3, 12), fc.string({ maxLength: 6 }), tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(keyArb, tie('value'), { maxKeys: 4 }),
})).value;

describe('locatePaths equals the jsonc-parser tree', () => {
  test('every path of random JSON, compact and indented, with and without a requested sibling', () => {
    fc.assert(
      fc.property(jsonArb, fc.constantFrom(0, 2, '\t'), fc.nat(), (value, indent, pick) => {
        const text = JSON.stringify(value, null, indent) ?? 'null';
        const tree = parseTree(text)!;
        const paths = allPaths(value);
        // All at once, and one alone (the scan then skips everything else).
        const all = locatePaths(text, paths);
        const one = paths[pick % paths.length]!;
        const alone = locatePaths(text, [one]);
        for (const p of paths) assert.deepEqual(all.get(JSON.stringify(p)), reference(tree, p), `${text} at ${JSON.stringify(p)}`);
        assert.deepEqual(alone.get(JSON.stringify(one)), reference(tree, one));
        assert.equal(alone.size, 1);
        // Paths that do not exist are absent.
        const missing = locatePaths(text, [[...one, 'nope'], [...one, 99]]);
        assert.equal(missing.size, 0);
      }),
      { numRuns: 1500, seed: 20261201 },
    );
  });

  test('a duplicated key: the last occurrence wins, as in JSON.parse', () => {
    const text = '{"a": 1, "b": {"c": [1, 2]}, "a": [true, {"d": null}]}';
    const got = locatePaths(text, [['a'], ['a', 1, 'd'], ['b', 'c', 1]]);
    assert.deepEqual(got.get('["a"]'), { start: text.lastIndexOf('['), end: text.length - 1, keyStart: text.lastIndexOf('"a"'), keyEnd: text.lastIndexOf('"a"') + 3 });
    assert.equal(text.slice(got.get('["a",1,"d"]')!.start, got.get('["a",1,"d"]')!.end), 'null');
    assert.equal(text.slice(got.get('["b","c",1]')!.start, got.get('["b","c",1]')!.end), '2');
  });

  test('100,000 levels of nesting: no recursion, the deep path is found', () => {
    const depth = 100_000;
    const text = '['.repeat(depth) + '7' + ']'.repeat(depth);
    const path = Array.from({ length: depth }, () => 0);
    const got = locatePaths(text, [path]);
    assert.deepEqual(got.get(JSON.stringify(path)), { start: depth, end: depth + 1 });
    // The locator asks for every ancestor too (quadratic in depth): a shallower document for it.
    const d = 1000;
    const deep = '['.repeat(d) + '7' + ']'.repeat(d);
    const deepPath = Array.from({ length: d }, () => 0);
    assert.deepEqual(new JsonLocator(deep, 1, [{ path: deepPath }]).rangeOf({ path: deepPath }), { start: d + 1, end: d + 2 });
  });
});
