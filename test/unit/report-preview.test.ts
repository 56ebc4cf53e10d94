// What a report edit will do, as the confirm dialog shows it: file, 1-based lines, a bounded preview.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { PREVIEW_MAX_LINES, displayPath, previewChanges } from '../../server/src/core/agentJson/report/preview';

const root = join('/', 'ws');
const file = join(root, 'docs', 'a.md');

test('a removed range: its lines (1-based, the removed terminator not counted) and "- " lines', () => {
  const text = 'one\r\ntwo\r\nthree\r\nfour\r\n';
  const start = text.indexOf('two');
  const end = text.indexOf('four');
  const [p] = previewChanges([{ type: 'edit', absPath: file, edits: [{ start, end, newText: '' }], baseSha256: 'x' }], root, () => text);
  assert.deepEqual(p, { file: 'docs/a.md', lines: 'lines 2–3', action: 'remove', preview: '- two\n- three', revealLine: 1 });
});

test('an insertion at the end is an append with "+ " lines; a replacement shows both sides', () => {
  const text = 'a\nb\n';
  const [append] = previewChanges([{ type: 'edit', absPath: file, edits: [{ start: text.length, end: text.length, newText: 'c\n' }], baseSha256: 'x' }], root, () => text);
  assert.equal(append!.action, 'append');
  assert.equal(append!.preview, '+ c');
  const [replace] = previewChanges([{ type: 'edit', absPath: file, edits: [{ start: 2, end: 3, newText: 'B' }], baseSha256: 'x' }], root, () => text);
  assert.deepEqual([replace!.lines, replace!.action, replace!.preview], ['line 2', 'replace', '- b\n+ B']);
});

test('long previews are cut to PREVIEW_MAX_LINES lines and say how many more', () => {
  const lines = Array.from({ length: PREVIEW_MAX_LINES + 5 }, (_, i) => `line ${i + 1}`);
  const [p] = previewChanges([{ type: 'create', absPath: join(root, 'docs', 'archive', 'a.md'), text: lines.join('\n') + '\n' }], root, () => undefined);
  const shown = p!.preview.split('\n');
  assert.equal(shown.length, PREVIEW_MAX_LINES + 1);
  assert.equal(shown.at(-1), '+ … (5 more lines)');
  assert.equal(p!.file, 'docs/archive/a.md');
  assert.equal(p!.lines, 'new file');
});

test('renames and deletes name the files; paths outside the root stay absolute', () => {
  const [r, d] = previewChanges(
    [
      { type: 'rename', from: file, to: join(root, 'docs', 'archive', 'a.md'), baseSha256: 'x' },
      { type: 'delete', absPath: file, baseSha256: 'x' },
    ],
    root,
    () => 'gone\n',
  );
  assert.equal(r!.action, 'move to docs/archive/a.md');
  assert.deepEqual([d!.action, d!.preview], ['delete', '- gone']);
  assert.equal(displayPath(join('/', 'elsewhere', 'x.md'), root), join('/', 'elsewhere', 'x.md'));
});
