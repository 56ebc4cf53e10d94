// Block conversion (a section's tables and lists fenced in place, the prose kept byte for byte) and the
// inline-array cap (a long list is written one item a line, never one line of hundreds of values).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { decode } from '@toon-format/toon';
import { parseSlice } from '../../server/src/core/markdown/blocks';
import { bodyValue, renderBody, INLINE_ARRAY_MAX_CHARS, INLINE_ARRAY_MAX_VALUES } from '../../server/src/core/markdown/model';
import { planDocument, sectionConvertEdit, renderToonAsMarkdown } from '../../server/src/core/markdown/engine';

const list = (n: number, item = (i: number) => `step ${i} of the release`) => Array.from({ length: n }, (_, i) => `- ${item(i)}`).join('\n');
const body = (md: string) => bodyValue(parseSlice(`## H\n\n${md}\n`, true).blocks);

describe('the inline-array cap', () => {
  test('a list of up to 64 short items stays one inline array; past the cap, one item a line (tabular rows)', () => {
    const short = (i: number) => `s${i}`;
    assert.equal(typeof (body(list(INLINE_ARRAY_MAX_VALUES, short)) as unknown[])[0], 'string');
    const long = body(list(INLINE_ARRAY_MAX_VALUES + 1, short)) as { item: string }[];
    assert.equal(long.length, 65);
    assert.deepEqual(long[0], { item: 's0' });
    // Past the character cap with few items, too.
    const wide = body(list(5, (i) => `${'x'.repeat(INLINE_ARRAY_MAX_CHARS / 4)} ${i}`)) as unknown[];
    assert.equal(typeof wide[0], 'object');
  });

  test('what a plan writes for a 300-item list: no line holds more than one item; it decodes and reverts to the same list', () => {
    const text = `## Checklist\n\n${list(300)}\n`;
    const s = planDocument(text).sections[0]!;
    assert.ok(s.candidate);
    const lines = s.candidate.split('\n');
    assert.equal(lines[0], '[300]{item}:');
    assert.equal(lines.length, 301);
    assert.ok(lines.every((l) => l.length < 80), 'one short line per item');
    assert.deepEqual(decode(s.candidate), body(list(300)));
    const rendered = renderToonAsMarkdown(s.candidate);
    assert.equal(rendered, list(300) + '\n');
    assert.deepEqual(body(rendered), body(list(300)), 're-parsing the rendering gives the same model');
  });

  test('a one-column table headed "item" stays a table (block-keyed), never read back as a list', () => {
    const v = body('| item |\n|---|\n| a |\n| b |');
    assert.deepEqual(v, { t1: [{ item: 'a' }, { item: 'b' }] });
    assert.match(renderBody(v), /^\| item \|/);
  });
});

const PROSE = 'The service reads these settings at start-up; each one can be overridden by an environment variable of the same name in upper case.';
const TABLE = ['| Setting      | Default | Meaning                         |', '| ------------ | ------- | ------------------------------- |', ...Array.from({ length: 20 }, (_, i) => `| opt_${String(i).padEnd(8)} | ${String(i * 10).padEnd(7)} | ${`what option ${i} controls`.padEnd(31)} |`)].join('\n');
const MIXED = `# Service\n\n## Settings\n\n${PROSE}\n\n${TABLE}\n\nRestart after changing \`port\`; see [the guide][guide].\n\n[guide]: https://example.com/guide\n`;

describe('block conversion', () => {
  test('a section of prose, a table and a reference link: the table is fenced, every other byte stays', () => {
    const plan = planDocument(MIXED);
    const s = plan.sections.find((x) => x.slice.heading === 'Settings')!;
    assert.deepEqual(s.blockSummary, { tables: 1, lists: 0 });
    assert.equal(s.action, 'convert');
    assert.ok(!s.verdict!.warnings.some((w) => w.code === 'markdown_only'));
    const e = sectionConvertEdit(s);
    assert.equal(e.newText.length, s.verdict!.measured_chars.toon);
    const [b] = s.blocks!;
    assert.equal(MIXED.slice(s.slice.charStart, s.slice.charEnd).replace(TABLE, '```toon\n' + b!.toon + '\n```'), e.newText, 'only the table changed');
    assert.deepEqual(decode(b!.toon), body(TABLE));
    assert.equal(plan.hybrid, MIXED.slice(0, s.slice.charStart) + e.newText + MIXED.slice(s.slice.charEnd));
    assert.equal(plan.contextPlan.reassembly_verified, true);
  });

  test('with the estimate tokenizer there is no block conversion (the character policy decides byte for byte)', () => {
    const s = planDocument(MIXED, { tokenizer: 'estimate' }).sections.find((x) => x.slice.heading === 'Settings')!;
    assert.equal(s.blockSummary, null);
    assert.ok(s.verdict!.warnings.some((w) => w.code === 'markdown_only'));
  });

  test('a block that a fence would not keep readable stays markdown while another converts', () => {
    const bad = '| Command | Use |\n|---|---|\n| `grep ": gone\\]"` | find gone branches |\n| `git fetch` | update |';
    const text = `## Tools\n\n${PROSE}\n\n${bad}\n\n${TABLE}\n`;
    const s = planDocument(text).sections[0]!;
    assert.deepEqual(s.blockSummary, { tables: 1, lists: 0 });
    assert.ok(s.segment().includes(bad), 'the table with an escaped code span is kept as written');
  });

  test('CRLF: the fence lines are CRLF, and the claimed savings are the written change', () => {
    const crlf = MIXED.replace(/\n/g, '\r\n');
    const s = planDocument(crlf).sections.find((x) => x.slice.heading === 'Settings')!;
    assert.ok(s.blockSummary);
    const seg = s.segment();
    assert.ok(!/[^\r]\n/.test(seg), 'no bare LF');
    assert.equal(crlf.slice(s.slice.charStart, s.slice.charEnd).length - seg.length, s.verdict!.measured_chars.savings);
  });
});
