/**
 * A huge section is planned in several steps of the time-sliced plan, not one: its parse, its analysis, its token
 * count, each delimiter's encoding and the decode check are steps of their own (the server reads messages
 * between them), and the plan is the same as the uncached one, before and after an edit inside the section. The
 * decode check in steps answers what the one-call check answers, and so do the slice rules that walk every item
 * or cell in steps.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EngineCache, planDocument } from '../../server/src/core/markdown/engine';
import { LARGE_SLICE_CHARS } from '../../server/src/core/markdown/sectionMeasure';
import { STEP_LINES, parseSlice } from '../../server/src/core/markdown/blocks';
import { SLICE_RULES, sliceRuleWarnings } from '../../server/src/core/markdown/rules';
import { decodesTo, decodesToSteps } from '../../server/src/core/markdown/candidate';
import { encode } from '@toon-format/toon';

function observable(plan: ReturnType<typeof planDocument>) {
  return { ...plan, tokens: plan.tokens, sections: plan.sections.map((s) => ({ slice: s.slice, verdict: s.verdict, candidate: s.candidate, action: s.action, tokens: s.tokens })) };
}

/** Steps (yields) a fresh cache's plan of `text` takes. */
function stepsOf(text: string): number {
  const g = new EngineCache().planSteps(text);
  let n = 0;
  while (!g.next().done) n++;
  return n;
}

const items = (n: number, eol = '\n') => Array.from({ length: n }, (_, i) => `- item-${i}: the value of entry number ${i}${eol}`).join('');
const plain = (n: number) => Array.from({ length: n }, (_, i) => `- plain list item number ${i} with a few words\n`).join('');
const prose = (n: number) => Array.from({ length: n }, (_, i) => `Sentence ${i} of the prose goes on a while. Another follows ${i}.\n${i % 4 === 3 ? '\n' : ''}`).join('');
const table = (n: number) => '| key | value |\n| --- | --- |\n' + Array.from({ length: n }, (_, i) => `| k${i} | value number ${i} |\n`).join('');

const doc = (body: string, eol = '\n') => `# Intro${eol}${eol}Some text.${eol}${eol}## Big${eol}${eol}${body}${eol}## After${eol}${eol}more${eol}`;

const SHAPES: [string, (n: number) => string][] = [
  ['a list of key: value items', (n) => doc(items(n))],
  ['a list of plain items', (n) => doc(plain(n))],
  ['a table', (n) => doc(table(n))],
  ['a CRLF list of key: value items', (n) => doc(items(n, '\r\n'), '\r\n')],
  ['prose paragraphs', (n) => doc(prose(n))],
];

describe('a huge section is several plan steps', () => {
  for (const [name, make] of SHAPES) {
    test(`${name}: the large section takes at least six more steps than a small one; the plan is unchanged`, () => {
      const large = make(4000);
      const small = make(20);
      assert.ok(large.length > LARGE_SLICE_CHARS * 1.5, `the section is large (${large.length})`);
      // The small document's section takes its two steps (analysis, measurement); the large one adds its parse,
      // its token count, one encoding per delimiter (three) and the decode check.
      assert.ok(stepsOf(large) >= stepsOf(small) + 6, `${stepsOf(large)} steps against ${stepsOf(small)}`);
      const cache = new EngineCache();
      assert.deepEqual(observable(cache.plan(large)), observable(planDocument(large)));
      // An edit inside the section: it is parsed again (its own step), the others are carried.
      const at = large.indexOf('- ', large.length >> 1) + 2;
      const edited = large.slice(0, at) + 'x' + large.slice(at);
      assert.deepEqual(observable(cache.plan(edited)), observable(planDocument(edited)));
      // The section moved back to a text planned before: found by its text, planned without a parse step.
      assert.deepEqual(observable(cache.plan(large)), observable(planDocument(large)));
    });

    test(`${name}: the parse and the analysis of the section are steps of a bounded number of lines`, () => {
      // Four times the lines: the reading, tokenizing and extraction of the lines and the rules over them take
      // about four times the steps, so no one step grows with the section.
      const n = 4000;
      const grown = stepsOf(make(4 * n)) - stepsOf(make(n));
      const lines = (make(4 * n).match(/\n/g)?.length ?? 0) - (make(n).match(/\n/g)?.length ?? 0);
      assert.ok(grown >= (3 * lines) / STEP_LINES, `${grown} more steps for ${lines} more lines`);
    });
  }
});

describe('the decode check in steps', () => {
  const run = (text: string, json: string) => {
    const g = decodesToSteps(text, json);
    for (;;) {
      const r = g.next();
      if (r.done) return r.value;
    }
  };
  test('answers what decodesTo answers: valid, invalid, non-strict, unequal, __proto__, nested, primitives', () => {
    const models: unknown[] = [
      { a: 1, b: 'x' },
      { items: Array.from({ length: 5000 }, (_, i) => ({ id: i, name: `n${i}` })) },
      JSON.parse('{"__proto__": {"x": 1}, "y": [1, [2, 3], {"z": null}]}'),
      { list: ['a', 'b, c', ''], '2': true, b: -0 },
      [1, 2, 3],
      'plain',
      {},
    ];
    for (const m of models) {
      const json = JSON.stringify(m);
      for (const text of [encode(m), encode(m, { delimiter: '|' }), encode(m).replace('1', '2'), encode(m) + '\n  extra: 1', 'items[3]:\n  - a', 'a: "unterminated']) {
        assert.equal(run(text, json), decodesTo(text, json), JSON.stringify(text.slice(0, 80)));
      }
    }
    assert.equal(run(encode({ a: 1 }), JSON.stringify({ a: 1 })), true);
  });
});

describe('slice rules over a huge section', () => {
  test('the rules that walk every item or cell do it in steps, answering what their check answers', () => {
    const list = '## Rules\n\n' + Array.from({ length: 9000 }, (_, i) => `- Be careful with entry ${i} as appropriate`).join('\n') + '\n- see [the guide][g]\n';
    const cells = '## Table\n\n| a | b |\n| --- | --- |\n' + Array.from({ length: 6000 }, (_, i) => `| k${i} | v${i} |`).join('\n') + '\n| [x][y] | z |\n';
    for (const raw of [list, cells]) {
      const parsed = parseSlice(raw, true);
      const input = { parsed, raw, headingEnd: raw.indexOf('\n\n') + 2, section: 'S' };
      let stepped = 0;
      for (const rule of SLICE_RULES) {
        if (!rule.checkSteps) continue;
        const g = rule.checkSteps(input);
        let r = g.next();
        let yields = 0;
        for (; !r.done; r = g.next()) yields++;
        assert.deepEqual(r.value, rule.check(input), rule.warning);
        if (yields > 1) stepped++;
      }
      assert.ok(stepped >= 1, 'a rule walked the section in steps');
      assert.ok(sliceRuleWarnings(input).some((w) => w.code === 'markdown_only'), 'the reference-style link at the end is found');
    }
  });
});
