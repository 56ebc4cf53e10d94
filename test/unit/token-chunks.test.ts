// core/tokens.ts: a text's real token count is the sum of the counts of its pieces cut at count boundaries (both
// encodings), so the chunked, memoized counter gives exactly the whole text's count, before and after edits and
// whatever its memo dropped.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { ChunkCounter, COUNT_CHUNK_CHARS, countChunkEnds, isCountBoundary, tokenizer, type Tokenizer } from '../../server/src/core/tokens';
import { FIXTURES, REPO_ROOT } from '../paths';
import { planDocument, planTextTokens } from '../../server/src/core/markdown/engine';

const ENCODINGS = ['o200k_base', 'cl100k_base'] as const;

function markdownFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) markdownFiles(p, out);
    else if (/\.(md|mdc|markdown)$/.test(name)) out.push(p);
  }
  return out;
}

/** The count of a text cut at every count boundary it has. */
function cutEverywhere(tok: Tokenizer, text: string): number {
  let n = 0;
  let start = 0;
  for (let p = 1; p < text.length; p++) {
    if (!isCountBoundary(text, p)) continue;
    n += tok.count(text.slice(start, p));
    start = p;
  }
  return n + tok.count(text.slice(start));
}

// Characters each pattern alternative treats apart: line breaks of both kinds, white space beside them, the
// slash o200k's punctuation pre-token takes after a break, headings, punctuation, letters of both cases,
// marks, digits, CJK, an emoji (a surrogate pair), contractions.
const PARTS = ['\n', '\r\n', '\n\n', ' ', '  ', '\t', '\u00a0', '\u3000', '/', '//', '#', '## ', '.', ':', '|', '-', '`', '"', "'s", "'", 'a', 'Word', 'WORD', 'word', 'é', '\u0301', '7', '123', '中文', '😀', '<|endoftext|>', '\\'];
const textArb = fc.array(fc.constantFrom(...PARTS), { maxLength: 120 }).map((xs) => xs.join(''));

describe('token counts by pieces', () => {
  for (const name of ENCODINGS) {
    const tok = tokenizer(name);
    test(`${name}: cut at every count boundary, generated text counts the same`, () => {
      fc.assert(fc.property(textArb, (text) => cutEverywhere(tok, text) === tok.count(text)), { numRuns: 3000 });
    });

    test(`${name}: cut at every count boundary, every markdown fixture counts the same`, () => {
      const files = [...markdownFiles(FIXTURES), ...markdownFiles(join(REPO_ROOT, 'examples'))];
      assert.ok(files.length > 50);
      for (const f of files) {
        const text = readFileSync(f, 'utf8');
        assert.equal(cutEverywhere(tok, text), tok.count(text), f);
      }
    });
  }

  test(`a plan's slice counts: where they stand for the whole text, they are its count (every fixture, both encodings)`, () => {
    const files = [...markdownFiles(FIXTURES), ...markdownFiles(join(REPO_ROOT, 'examples'))];
    let read = 0;
    for (const name of ENCODINGS) {
      const tok = tokenizer(name);
      for (const f of files) {
        const text = readFileSync(f, 'utf8');
        const n = planTextTokens(planDocument(text, { tokenizer: name }), text);
        if (n === undefined) continue;
        read++;
        assert.equal(n, tok.count(text), `${name} ${f}`);
      }
    }
    // Most documents cut at their headings only where counting is additive.
    assert.ok(read > files.length, `${read} of ${2 * files.length} plans read`);
    const indented = '# A\n\ntext\n\n   # B\n\nmore\n';
    assert.equal(planTextTokens(planDocument(indented), indented), undefined, 'an indented heading is no count boundary');
    const plain = '# A\n\ntext\n\n# B\n\nmore\n';
    assert.equal(planTextTokens(planDocument(plain), plain), tokenizer('o200k_base').count(plain));
    assert.equal(planTextTokens(planDocument(plain, { tokenizer: 'estimate' }), plain), undefined, 'an estimate is not additive');
    assert.equal(planTextTokens(planDocument(plain), plain + 'x'), undefined, 'another text');
  });

  test('pieces: cut by content (headings, after blank lines), long runs without one cut past the bound', () => {
    const para = 'word '.repeat(40) + '\n';
    const text = `# A\n${para}\n## B\n${para}${para}`;
    const ends = countChunkEnds(text);
    assert.deepEqual(ends.map((e) => text.slice(e, e + 4)), ['## B', '']);
    const flat = 'x\n'.repeat(COUNT_CHUNK_CHARS);
    const cuts = countChunkEnds(flat);
    assert.ok(cuts.length >= 2 && cuts.every((e, i) => i === cuts.length - 1 || (e - (cuts[i - 1] ?? 0) >= COUNT_CHUNK_CHARS && isCountBoundary(flat, e))));
    // An edit moves only the cuts next to it.
    const doc = Array.from({ length: 400 }, (_, i) => `## S${i}\n\n${para}`).join('\n');
    const before = countChunkEnds(doc);
    const at = doc.indexOf('## S200');
    const after = countChunkEnds(doc.slice(0, at) + 'x' + doc.slice(at));
    const moved = after.filter((e) => !before.includes(e) && !before.includes(e - 1));
    assert.ok(moved.length <= 1, `${moved.length} cuts moved`);
  });

  test('the memoized counter equals the whole count through edits and with its memo dropping', () => {
    const tok = tokenizer('o200k_base');
    const base = readFileSync(markdownFiles(join(FIXTURES, 'corpus', 'doc2toon-inputs')).sort()[0]!, 'utf8').repeat(30);
    assert.ok(base.length > 4 * COUNT_CHUNK_CHARS);
    for (const maxChars of [1000, 50_000, 8_000_000]) {
      const counter = new ChunkCounter(tok, maxChars);
      let text = base;
      fc.assert(
        fc.property(fc.nat({ max: base.length - 1 }), fc.constantFrom(...PARTS), (at, ins) => {
          text = text.slice(0, at) + ins + text.slice(at);
          return counter.count(text) === tok.count(text);
        }),
        { numRuns: 40 },
      );
    }
    const estimate = tokenizer('estimate');
    assert.equal(new ChunkCounter(estimate).count(base), estimate.count(base), 'an estimate is not cut');
  });
  test('warming in steps counts every piece once; the count after it only looks pieces up', () => {
    const tok = tokenizer('o200k_base');
    let calls = 0;
    const spy: Tokenizer = { name: tok.name, estimator: tok.estimator, real: tok.real, count: (t: string) => (calls++, tok.count(t)) };
    // Every piece distinct (a piece seen before is not counted again).
    const text = Array.from({ length: 3000 }, (_, i) => `## Part ${i}\n\nLine ${i} of the text, with a few more words.\n`).join('\n');
    const counter = new ChunkCounter(spy);
    let steps = 0;
    for (const _ of counter.warmSteps(text, 4 * COUNT_CHUNK_CHARS)) steps++;
    assert.ok(steps >= 2, `${steps} steps`);
    const warmed = calls;
    assert.equal(counter.count(text), tok.count(text));
    assert.equal(calls, warmed, 'no piece counted twice');
    assert.equal([...counter.warmSteps(text)].length, 0, 'a warmed text has nothing left to count');
  });
});
