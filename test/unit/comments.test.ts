// Comments in server/src and client/src state the constraint they protect, not a measurement or a tracker
// number: figures and history belong in commit bodies and the bench (a clone cannot resolve a tracker number, and a
// measured figure goes stale with the next change while its constraint does not).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO_ROOT, tsSources } from '../paths';


/** A number directly followed by a unit, or a tracker reference (a hash or the word issue before a number). */
const FIGURE = /\b\d+(?:[.,]\d+)? ?(?:ms|MB|GB|KB|MiB)\b/;
const TRACKER = /(?:^|[\s(,;])#\d{1,4}(?![\w-])|\bissue #?\d+/i;
/** The comment part of a line: a whole-line comment or block-comment line, or a trailing `//` comment. */
const COMMENT = /^\s*(?:\/\/|\/\*|\*)(.*)$|\s\/\/\s(.*)$/;

export function badComment(line: string): boolean {
  const m = COMMENT.exec(line);
  if (!m) return false;
  const text = m[1] ?? m[2] ?? '';
  return FIGURE.test(text) || TRACKER.test(text);
}

test('the comment check catches figures and tracker numbers, not code or anchors', () => {
  // The tracker examples are assembled so this file holds no tracker reference itself.
  const ref = (n: string) => `#${n}`;
  for (const bad of ['// a 1 MB plan 20 % slower', ' * ≈ 45 ms on start', `/** Token counter (${ref('13')}). */`, `  x(); // see issue ${'31'}`, ` * (issue ${ref('14.10')})`]) assert.ok(badComment(bad), bad);
  for (const ok of ['const limit = 64 * 1024; // the size limit', ' * docs/engine.md#4-candidate-and-measurement', "const re = /#+ ?/; // closing hashes", 'const ms = 5;']) assert.ok(!badComment(ok), ok);
});

test('production comments hold no measured figure and no tracker number', () => {
  const bad: string[] = [];
  for (const file of ['server/src', 'client/src'].flatMap((d) => tsSources(join(REPO_ROOT, d)))) {
    readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
      if (badComment(line)) bad.push(`${relative(REPO_ROOT, file).split('\\').join('/')}:${i + 1}: ${line.trim()}`);
    });
  }
  assert.deepEqual(bad, [], 'rewrite these comments to the constraint they protect');
});
