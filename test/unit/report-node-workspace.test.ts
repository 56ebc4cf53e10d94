import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import { applyChangesNode, createNodeWorkspace } from '../../server/src/node/workspace';
import type { FileChange } from '../../server/src/core/agentJson/report/changes';
import { sha, tempWorkspace, type TempWorkspace } from '../fixtures/report/helpers';

const spaces: TempWorkspace[] = [];
after(() => spaces.forEach((s) => s.cleanup()));
const setup = (files: Record<string, string>, git = false) => {
  const ws = tempWorkspace(files, { git });
  spaces.push(ws);
  return ws;
};

describe('createNodeWorkspace', () => {
  test('gitState: tracked+clean, dirty, untracked, and unknown outside a repository', () => {
    const ws = setup({ 'a.md': 'a\n', 'b.md': 'b\n', 'dir with space/c.md': 'c\n' }, true);
    ws.write('b.md', 'changed\n');
    ws.write('new.md', 'n\n');
    const r = ws.reader();
    assert.deepEqual(r.gitState(ws.path('a.md')), { tracked: true, clean: true });
    assert.deepEqual(r.gitState(ws.path('dir with space/c.md')), { tracked: true, clean: true });
    assert.deepEqual(r.gitState(ws.path('b.md')), { tracked: true, clean: false });
    assert.deepEqual(r.gitState(ws.path('new.md')), { tracked: false, clean: false });
    const plain = setup({ 'a.md': 'a\n' });
    assert.equal(plain.reader().gitState(plain.path('a.md')), undefined);
  });

  test('a pathspec-looking file name is taken literally', () => {
    const ws = setup({ '*.md': 'star\n', 'a.md': 'a\n' }, true);
    ws.write('a.md', 'dirty\n');
    assert.deepEqual(ws.reader().gitState(ws.path('*.md')), { tracked: true, clean: true });
  });

  test('readFile reads regular files only; realpath follows symlinks; openText is passed through', () => {
    const ws = setup({ 'a.md': 'a\n' });
    execFileSync('mkfifo', [ws.path('pipe')]);
    symlinkSync(ws.path('a.md'), ws.path('link.md'));
    const r = createNodeWorkspace(ws.root, (p) => (p.endsWith('open.md') ? 'buffer' : undefined));
    assert.equal(r.readFile(ws.path('pipe')), undefined);
    assert.equal(r.readFile(ws.root), undefined);
    assert.equal(r.readFile(ws.path('missing.md')), undefined);
    assert.equal(Buffer.from(r.readFile(ws.path('a.md'))!).toString(), 'a\n');
    assert.equal(r.realpath(ws.path('link.md')), ws.path('a.md'));
    assert.equal(r.openText(ws.path('open.md')), 'buffer');
  });
});

describe('applyChangesNode', () => {
  test('refuses paths outside the root, inside .git, and through symlinks', () => {
    const outside = setup({ 'x.md': 'x\n' });
    const ws = setup({ 'a.md': 'a\n' }, true);
    symlinkSync(outside.root, ws.path('out'));
    const cases: FileChange[] = [
      { type: 'create', absPath: outside.path('new.md'), text: 'n' },
      { type: 'create', absPath: ws.path('out/new.md'), text: 'n' },
      { type: 'create', absPath: ws.path('.git/hooks/pre-commit'), text: 'n' },
      { type: 'edit', absPath: ws.path('out/x.md'), edits: [], baseSha256: sha('x\n') },
      { type: 'delete', absPath: outside.path('x.md'), baseSha256: sha('x\n') },
    ];
    const before = [ws.snapshot(), outside.snapshot()];
    for (const c of cases) assert.equal(applyChangesNode([c], ws.root).ok, false, JSON.stringify(c));
    assert.deepEqual([ws.snapshot(), outside.snapshot()], before);
  });

  test('never overwrites: create over an existing file or a dangling symlink, rename onto an existing file', () => {
    const outside = setup({});
    const ws = setup({ 'a.md': 'a\n', 'b.md': 'b\n' });
    symlinkSync(outside.path('planted.md'), ws.path('dangling.md'));
    assert.equal(applyChangesNode([{ type: 'create', absPath: ws.path('a.md'), text: 'x' }], ws.root).ok, false);
    assert.equal(applyChangesNode([{ type: 'create', absPath: ws.path('dangling.md'), text: 'x' }], ws.root).ok, false);
    assert.equal(applyChangesNode([{ type: 'rename', from: ws.path('a.md'), to: ws.path('b.md'), baseSha256: sha('a\n') }], ws.root).ok, false);
    assert.equal(outside.exists('planted.md'), false);
    assert.equal(ws.read('b.md'), 'b\n');
  });

  test('all or nothing: a failure midway undoes what was done', () => {
    const ws = setup({ 'b.md': 'b\n', 'c.md': 'c\n', 'file.md': 'f\n' });
    const before = ws.snapshot();
    const changes: FileChange[] = [
      { type: 'create', absPath: ws.path('new/dir/n.md'), text: 'n\n' },
      { type: 'edit', absPath: ws.path('b.md'), edits: [{ start: 0, end: 1, newText: 'B' }], baseSha256: sha('b\n') },
      { type: 'rename', from: ws.path('c.md'), to: ws.path('file.md/c.md'), baseSha256: sha('c\n') },
    ];
    const r = applyChangesNode(changes, ws.root);
    assert.equal(r.ok, false);
    assert.deepEqual(ws.snapshot(), before);
    assert.equal(ws.exists('new'), false);
  });

  test('applies edits, creates, renames and deletes; keeps a BOM and CRLF bytes outside the edit', () => {
    const ws = setup({ 'e.md': '\uFEFFone\r\ntwo\r\n', 'r.md': 'r\n', 'd.md': 'd\n' });
    const changes: FileChange[] = [
      { type: 'edit', absPath: ws.path('e.md'), edits: [{ start: 1, end: 4, newText: 'ONE' }], baseSha256: sha('\uFEFFone\r\ntwo\r\n') },
      { type: 'create', absPath: ws.path('n/new.md'), text: 'new\n' },
      { type: 'rename', from: ws.path('r.md'), to: ws.path('n/r.md'), baseSha256: sha('r\n') },
      { type: 'delete', absPath: ws.path('d.md'), baseSha256: sha('d\n') },
    ];
    assert.deepEqual(applyChangesNode(changes, ws.root), { ok: true });
    assert.equal(ws.read('e.md'), '\uFEFFONE\r\ntwo\r\n');
    assert.equal(ws.read('n/new.md'), 'new\n');
    assert.equal(ws.read('n/r.md'), 'r\n');
    assert.equal(ws.exists('r.md'), false);
    assert.equal(ws.exists('d.md'), false);
    assert.deepEqual([...ws.snapshot().keys()].filter((k) => k.includes('toonlens')), []);
  });
});
