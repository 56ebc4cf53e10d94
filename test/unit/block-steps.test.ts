/**
 * markdown-it's block parse in steps (core/markdown/blockSteps.ts) makes the tokens markdown-it's own `parse` makes,
 * whatever the step size: on random documents of list items (bullets of each kind, ordered with other starts and
 * delimiters, nested, empty, tab-indented, loose and tight), tables (short rows, escaped pipes, aligned columns),
 * fences, quotes, HTML, rules, headings, lazy lines and blank lines, and on hand-picked edges (line endings, NUL,
 * deep nesting). The slice parse built on it (parseSliceSteps) is parseSlice's at every step size, and a huge list
 * or table is tokenized in many steps.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { blockTokenSteps } from '../../server/src/core/markdown/blockSteps';
import { blockParser } from '../../server/src/core/markdown/parser';
import { parseSlice, parseSliceSteps } from '../../server/src/core/markdown/blocks';

function run<T>(steps: Generator<void, T, void>): { value: T; yields: number } {
  let yields = 0;
  for (;;) {
    const r = steps.next();
    if (r.done) return { value: r.value, yields };
    yields++;
  }
}

const LINES = [
  '- a: b',
  '- **term**: text',
  '* star',
  '+ plus',
  '-',
  '- ',
  '1. one',
  '2) two',
  '7. seven',
  '0. zero',
  '1234567890. long',
  '  - nested',
  '   - three',
  '    - four',
  '      deep',
  '\t- tab',
  '-\tafter tab',
  '  continued',
  'lazy line',
  '',
  '',
  '| a | b |',
  '|---|:-:|',
  '| --- | --- |',
  'a | b',
  '| 1 | 2 | 3 |',
  '| x \\| y |',
  '|',
  '> quote',
  '> - in quote',
  '```',
  '~~~js',
  '    code',
  '# Heading',
  '## Sub',
  'Setext',
  '===',
  '---',
  '* * *',
  '<div>',
  '<!-- comment -->',
  '[ref]: /url "title"',
  'A sentence. Another one!',
];

const doc = fc
  .tuple(fc.array(fc.constantFrom(...LINES), { minLength: 0, maxLength: 40 }), fc.constantFrom('\n', '\r\n', '\r'), fc.boolean())
  .map(([lines, eol, last]) => lines.join(eol) + (last ? eol : ''));

describe('markdown-it block parse in steps', () => {
  test('the tokens of parse, at every step size, on random documents', () => {
    const md = blockParser();
    fc.assert(
      fc.property(doc, fc.integer({ min: 1, max: 4 }), (src, step) => {
        assert.deepEqual(run(blockTokenSteps(md, src, {}, step)).value, md.parse(src, {}));
        assert.deepEqual(run(blockTokenSteps(md, src)).value, md.parse(src, {}));
      }),
      { numRuns: 3000, seed: 33 },
    );
  });

  test('the tokens of parse on hand-picked edges', () => {
    const md = blockParser();
    const cases = [
      '',
      '\n\n\n',
      'a\0b\r\nc\rd',
      '3. start\n4. next\n\n   para\n5. last\n',
      '- a\n\n- b\n- c\n',
      '- a\n- b\n\n\n- c\n',
      '-\n\n- x\n',
      '- a\n* b\n+ c\n',
      '1. a\n1) b\n',
      '- a\n  > q\n  lazy\n- b\n',
      '> '.repeat(40) + 'deep',
      Array.from({ length: 40 }, (_, i) => ' '.repeat(2 * i) + '- level').join('\n'),
      '| a | b |\n|---|---|\n' + Array.from({ length: 50 }, (_, i) => `| ${i} |`).join('\n'),
      '| a |\n|---|\n| b |\n> quote ends it\n',
      '| a |\n|:--|\n| b |\n- list ends it\n',
      '- item\n```\nfence\n```\n',
      '  - two spaces\n - one\n- zero\n',
    ];
    for (const src of cases) {
      for (const step of [1, 2, 1024]) assert.deepEqual(run(blockTokenSteps(md, src, {}, step)).value, md.parse(src, {}), JSON.stringify(src));
    }
  });

  test('a huge list and a huge table are tokenized in many steps, to the same tokens', () => {
    const md = blockParser();
    const list = Array.from({ length: 5000 }, (_, i) => `- item ${i}: value ${i}`).join('\n');
    const table = '| k | v |\n| --- | --- |\n' + Array.from({ length: 5000 }, (_, i) => `| k${i} | v${i} |`).join('\n');
    for (const src of [list, table]) {
      const { value, yields } = run(blockTokenSteps(md, src, {}, 100));
      assert.ok(yields >= 5000 / 100, `${yields} steps`);
      assert.deepEqual(value, md.parse(src, {}));
    }
  });
});

describe('the slice parse in steps', () => {
  test('is parseSlice at every step size, on random documents', () => {
    fc.assert(
      fc.property(doc, fc.integer({ min: 1, max: 4 }), fc.boolean(), (src, step, isSection) => {
        const text = isSection ? '## Title\n\n' + src : src;
        assert.deepEqual(run(parseSliceSteps(text, isSection, step)).value, parseSlice(text, isSection));
      }),
      { numRuns: 1500, seed: 8 },
    );
  });

  test('a huge list of definitions is extracted in many steps to the same blocks', () => {
    const text = '## Defs\n\n' + Array.from({ length: 3000 }, (_, i) => `- **term${i}**: the text ${i}`).join('\n') + '\n';
    const { value, yields } = run(parseSliceSteps(text, true, 64));
    assert.ok(yields >= 3 * (3000 / 64), `${yields} steps`);
    assert.deepEqual(value, parseSlice(text, true));
    assert.equal(value.blocks.length, 1);
    assert.equal(value.blocks[0]!.kind, 'd');
    assert.equal(value.definitionLines, 3000);
  });
});
