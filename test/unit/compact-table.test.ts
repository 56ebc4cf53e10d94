/**
 * "Compact table": padding and delimiter rows shortened, the rendered HTML (markdown-it) identical, on the
 * repository's real markdown and on tricky cells (escaped pipes, code spans, alignment).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import MarkdownIt from 'markdown-it';
import { compactTables } from '../../server/src/core/markdown/compactTable';
import { tokenizer } from '../../server/src/core/tokens';
import { CORPUS_INPUTS, REPO_ROOT } from '../paths';

const md = MarkdownIt('commonmark').enable(['table', 'strikethrough']);

test('padding and delimiter rows shrink; alignment, escaped pipes and code spans survive', () => {
  const text = '# T\n\n| Name      | Value |  Note  |\n| :-------- | ----: | :----: |\n| `a \\| b`  |   1   | x \\| y |\n| **bold**  |  22   |        |\n\nafter\n';
  const r = compactTables(text);
  assert.equal(r.edits.length, 1);
  assert.equal(r.text, '# T\n\n|Name|Value|Note|\n|:-|-:|:-:|\n|`a \\| b`|1|x \\| y|\n|**bold**|22||\n\nafter\n');
  assert.equal(md.render(r.text), md.render(text));
});

test('a table already compact, or one in a list, is left alone', () => {
  assert.deepEqual(compactTables('|a|b|\n|-|-|\n|1|2|\n').edits, []);
  const inList = '- item\n\n  | a   | b   |\n  | --- | --- |\n  | 1   | 2   |\n';
  assert.equal(compactTables(inList).text, inList);
});

test('on every real markdown file of the repository the HTML is identical, and the saving is real tokens', () => {
  const files = [
    ...readdirSync(CORPUS_INPUTS).filter((f) => f.endsWith('.md')).map((f) => join(CORPUS_INPUTS, f)),
    ...readdirSync(join(REPO_ROOT, 'examples', 'markdown')).filter((f) => f.endsWith('.md')).map((f) => join(REPO_ROOT, 'examples', 'markdown', f)),
    ...readdirSync(join(REPO_ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join(REPO_ROOT, 'docs', f)),
    join(REPO_ROOT, 'README.md'),
  ];
  const tok = tokenizer('o200k_base');
  let compacted = 0;
  let saved = 0;
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    const r = compactTables(text);
    assert.equal(md.render(r.text), md.render(text), f);
    if (r.edits.length) {
      compacted++;
      saved += tok.count(text) - tok.count(r.text);
    }
  }
  assert.ok(compacted >= 3, `${compacted} files with tables compacted`);
  assert.ok(saved > 0, `${saved} o200k tokens saved`);
});

test('every one of 20,000 tables is compacted (one pass, no fallback)', () => {
  const table = '| key   | value |\n| ----- | ----- |\n| a     | 1     |\n\n';
  const small = compactTables(table.repeat(1000));
  const big = compactTables(table.repeat(20000));
  assert.equal(big.edits.length, 20 * small.edits.length);
});
