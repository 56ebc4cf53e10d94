/**
 * The fast path of unsafePathReason (one precompiled "plainly safe" test) against the reference that runs
 * every check: the same answer, reason included, for every string (property tests; no timings here).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { unsafePathReason, unsafePathReasonSlow } from '../../server/src/core/agentJson/report/paths';

/** Pieces that exercise every check: separators, dot segments, .git in any case, drive letters, URLs, %XX, control characters. */
const PIECES = ['/', '//', '.', '..', './', '../', '.git', '.GIT', '.Git', 'git', 'a', 'Z', '0', '_', '-', ' ', '~', 'docs', 'x.md', 'C:', 'c:', ':', '://', 'http', 'file:', '%', '%2e', '%2E', '%zz', '%4', '\\', '\u0000', '\n', '\u001f', '\u007f', 'é', '😀', 'tmp/', '.hidden', 'a.b-c_d'];

const pathLike = fc.array(fc.constantFrom(...PIECES), { maxLength: 8 }).map((parts) => parts.join(''));
const anyString = fc.oneof(pathLike, fc.string({ maxLength: 12 }), fc.string({ unit: 'binary', maxLength: 12 }));

describe('unsafePathReason: fast path equals the reference', () => {
  test('path-like strings, with and without allowDotDot', () => {
    fc.assert(
      fc.property(anyString, fc.boolean(), (p, allowDotDot) => {
        assert.equal(unsafePathReason(p, { allowDotDot }), unsafePathReasonSlow(p, allowDotDot), JSON.stringify(p));
        if (!allowDotDot) assert.equal(unsafePathReason(p), unsafePathReasonSlow(p, false), JSON.stringify(p));
      }),
      { numRuns: 5000, seed: 20261130 },
    );
  });

  test('the documented corpus', () => {
    const corpus = ['docs/plan.md', 'tmp/', './a.md', 'a b/c.md', '~notes.md', 'x%zz.md', '', '/etc/passwd', '../x.md', 'a/../../x.md', 'a/../b.md', '..\\x.md', 'a\\b.md', 'C:/x.md', 'c:x.md', '%2e%2e/x.md', 'a%2Fb.md', 'a\u0000b.md', 'a\nb.md', 'file:///etc/passwd', '\\\\server\\share\\x', '.git/config', 'sub/.GIT/hooks/pre-commit', '..', 'a/..', 'a/./b', 'a//b', '_/x', 'a/b/', 'a/b//', 'git/x', 'x.git/y', 'a/.git'];
    for (const p of corpus) for (const allowDotDot of [false, true]) assert.equal(unsafePathReason(p, { allowDotDot }), unsafePathReasonSlow(p, allowDotDot), JSON.stringify(p));
  });

  test('non-strings are the schema\'s business', () => {
    for (const v of [undefined, null, 1, true, {}, []]) assert.equal(unsafePathReason(v), undefined);
  });
});
