/**
 * inputs that made the engine's regular expressions backtrack quadratically. Each shape is
 * run at 10 KB and at 80 KB; linear work grows about 8×, the old patterns grew about 64×, and the
 * test fails above 20× (a complexity ratio measured in one run, never a wall time). The linear
 * helpers that replaced the patterns are also checked against the patterns on random short inputs.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { encode } from '@toon-format/toon';
import { analyzeSlice, derivedModel } from '../../server/src/core/markdown/analysis';
import { planDocument } from '../../server/src/core/markdown/engine';
import { atxHeadingText } from '../../server/src/core/markdown/slices';
import { normalizeRule } from '../../server/src/core/markdown/warnings';
import { sentences, trimEndWhile, trimTrailingLineBreaks, isSpaceCode } from '../../server/src/core/markdown/text';
import { findToonFences } from '../../server/src/core/toon/fences';
import { revertEdit } from '../../server/src/core/markdown/revert';

/** Milliseconds per run of `fn`, repeated until 25 ms have passed. */
function windowMs(fn: () => unknown): number {
  let runs = 0;
  const t0 = performance.now();
  let t: number;
  do {
    fn();
    runs++;
    t = performance.now();
  } while (t - t0 < 25);
  return (t - t0) / runs;
}

const LIMIT = 20;

/**
 * time(80 KB) / time(10 KB) for one shape: the two sizes are measured in alternating 25 ms windows
 * (after a warm-up of both, so neither pays for the JIT), and each keeps its least time per run over
 * seven windows: the machine's noise only ever adds time.
 */
function assertLinear(name: string, make: (bytes: number) => string, run: (input: string) => unknown): void {
  const small = make(10_000);
  const large = make(80_000);
  windowMs(() => run(small));
  windowMs(() => run(large));
  let s = Infinity;
  let l = Infinity;
  for (let k = 0; k < 7; k++) {
    s = Math.min(s, windowMs(() => run(small)));
    l = Math.min(l, windowMs(() => run(large)));
  }
  const ratio = l / s;
  assert.ok(ratio <= LIMIT, `${name}: time(80 KB) / time(10 KB) = ${ratio.toFixed(1)}× (linear ≈ 8×, limit ${LIMIT}×)`);
}

describe('no super-linear pattern on ordinary-looking markdown', () => {
  test('an 80 KB one-word paragraph ending in ".b" (blocks.ts sentences, analysis.ts record mode)', () => {
    const make = (n: number) => '# H\n\n' + 'a'.repeat(n) + '.b\n';
    assertLinear('paragraph', make, (s) => analyzeSlice(s, 'section', 4));
    assertLinear('record mode', make, (s) => derivedModel(analyzeSlice(s, 'section', 4), 'record'));
  });

  test('"# a" + spaces + "b" (slices.ts ATX closing sequence)', () => {
    const make = (n: number) => '# a' + ' '.repeat(n) + 'b\n';
    assertLinear('atx heading', make, (s) => planDocument(s));
  });

  test('list items full of ". . ." (warnings.ts rule normalization)', () => {
    const make = (n: number) => '# H\n\n' + ['must', 'never', 'always'].map((w) => `- ${w} ` + '. '.repeat(Math.floor(n / 6)) + 'x').join('\n') + '\n';
    assertLinear('dotted items', make, (s) => planDocument(s));
  });

  test('Revert of a fence whose rendering holds a long run of line breaks (revert.ts)', () => {
    const make = (n: number) => '# H\n\n```toon\n' + encode({ H: 'a' + '\n'.repeat(n) + 'b' }) + '\n```\n';
    assertLinear('revert', make, (text) => {
      const fence = findToonFences(text)[0]!;
      return revertEdit(text, { fence, start: 0, end: text.length });
    });
  });
});

describe('the linear helpers equal the patterns they replace', () => {
  const pieces = fc.constantFrom('a', 'b', ' ', '\t', '\n', '\r', '.', '!', '?', ';', ':', ',', '#', '\u00a0', 'é', 'e.g.', '...');
  const text = fc.array(pieces, { maxLength: 24 }).map((p) => p.join(''));

  test('sentences = /[^.!?]+(?:[.!?]+(?=\\s|$)|$)/g', () => {
    fc.assert(
      fc.property(text, (s) => assert.deepEqual(sentences(s), s.match(/[^.!?]+(?:[.!?]+(?=\s|$)|$)/g) ?? [], JSON.stringify(s))),
      { numRuns: 3000, seed: 1614 },
    );
  });

  test('trimEndWhile / trimTrailingLineBreaks = the trailing-run replaces', () => {
    fc.assert(
      fc.property(text, (s) => {
        assert.equal(trimTrailingLineBreaks(s), s.replace(/[\r\n]+$/, ''));
        assert.equal(trimEndWhile(s, isSpaceCode), s.replace(/\s+$/, ''));
        const old = s.toLowerCase().replace(/^\s*(?:[-+*]|\d{1,9}[.)])\s+/, '').replace(/\s+/g, ' ').trim().replace(/[\s.;:,!?]+$/, '');
        assert.equal(normalizeRule(s), old, JSON.stringify(s));
      }),
      { numRuns: 3000, seed: 1615 },
    );
  });

  test('ATX heading text = the closing-sequence pattern', () => {
    fc.assert(
      fc.property(text, (s) => {
        const got = atxHeadingText('# ' + s);
        let want = ('# ' + s).slice(1).trim();
        const closing = /(^|[ \t]+)#+[ \t]*$/.exec(want);
        if (closing) want = want.slice(0, closing.index).trim();
        assert.equal(got?.text, want, JSON.stringify(s));
      }),
      { numRuns: 3000, seed: 1616 },
    );
  });
});
