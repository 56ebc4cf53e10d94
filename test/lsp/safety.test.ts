// Over real LSP (dist/server.js over stdio): the apply commands never send a WorkspaceEdit that
// writes into a .git or outside the workspace (symlinked folders, dangling symlinks), edits to an
// unopened file with a BOM are positioned as the editor sees the file, a FIFO target gets a diagnostic
// (not a hang), and a hostile glob in the settings does not hang the server.
import { after, describe, test } from 'node:test';
import { chmodSync, linkSync } from 'node:fs';
import assert from 'node:assert/strict';
import type { TextDocumentEdit } from 'vscode-languageserver-protocol';
import { LspHarness } from './harness';
import { deterministicEntry, makeReport, sha } from '../fixtures/report/helpers';
import { hostileRepo, mkfifo } from '../fixtures/safety/helpers';

const cleanups: (() => void)[] = [];
after(() => cleanups.forEach((c) => c()));

function repo() {
  const r = hostileRepo({ 'docs/bom.md': '\uFEFFline one\nline two\n' });
  cleanups.push(r.cleanup);
  return r;
}

type Outcome = { applied: boolean; message: string; skipped?: { entryIndex: number; reason: string }[] };

describe('report apply commands over LSP', () => {
  test('move-to-archive into .git through a symlinked folder, a nested repo, a dangling symlink: nothing sent', async () => {
    const { ws } = repo();
    const text = ws.read('docs/a.md');
    const move = (dest: string) => deterministicEntry('docs/a.md', { kind: 'move-to-archive', expected_sha256: sha(text), anchor: { start_line: 1, end_line: 2 }, dest_path: dest });
    const dests = ['docs/g/hooks/post-checkout', 'docs/nested/info/exclude-me', 'docs/dangling/x.md', 'docs/dangling-file.md', 'out/x.md'];
    ws.write('hygiene.report.json', JSON.stringify(makeReport(dests.map(move)), null, 2));
    const h = await LspHarness.start({ workspaceDir: ws.root });
    try {
      const reportFsPath = ws.path('hygiene.report.json');
      for (let i = 0; i < dests.length; i++) {
        const out = (await h.executeCommand('toonlens.applyEdit', [{ reportFsPath, entryIndex: i, tier: 'auto' }])) as Outcome;
        assert.equal(out.applied, false, `${dests[i]}: ${out.message}`);
        assert.match(out.message, /\.git|dangling|outside|symlink|exists/, dests[i]);
      }
      const all = (await h.executeCommand('toonlens.applyAllAuto', [{ reportFsPath }])) as Outcome;
      assert.equal(all.applied, false, all.message);
      assert.equal(h.appliedEdits.length, 0, 'no WorkspaceEdit was sent');
    } finally {
      await h.shutdown();
    }
  });

  test('a read-only target and a hard-linked one: no WorkspaceEdit is sent (what the CLI refuses, the editor is not asked to write)', async () => {
    const { ws } = repo();
    ws.write('docs/ro.md', 'line one\nline two\n');
    ws.write('docs/hl.md', 'line one\nline two\n');
    chmodSync(ws.path('docs/ro.md'), 0o444);
    linkSync(ws.path('docs/hl.md'), ws.path('docs/hl-twin.md'));
    const text = ws.read('docs/ro.md');
    const edit = (file: string) => deterministicEntry(file, { kind: 'replace-text', expected_sha256: sha(text), anchor: { start_line: 1, end_line: 1 }, match: 'one', replacement: 'ONE' });
    ws.write('hygiene.report.json', JSON.stringify(makeReport([edit('docs/ro.md'), edit('docs/hl.md')]), null, 2));
    const h = await LspHarness.start({ workspaceDir: ws.root });
    try {
      const reportFsPath = ws.path('hygiene.report.json');
      const ro = (await h.executeCommand('toonlens.applyEdit', [{ reportFsPath, entryIndex: 0, tier: 'auto' }])) as Outcome;
      assert.equal(ro.applied, false, ro.message);
      assert.match(ro.message, /ro\.md is read-only; not changed/);
      const hl = (await h.executeCommand('toonlens.applyEdit', [{ reportFsPath, entryIndex: 1, tier: 'auto' }])) as Outcome;
      assert.equal(hl.applied, false, hl.message);
      assert.match(hl.message, /hl\.md has 2 hard links; not changed/);
      assert.equal(h.appliedEdits.length, 0, 'no WorkspaceEdit was sent');
    } finally {
      chmodSync(ws.path('docs/ro.md'), 0o644);
      await h.shutdown();
    }
  });

  test('an edit to an unopened file that starts with a BOM: positions do not count the BOM', async () => {
    const { ws } = repo();
    const bom = ws.read('docs/bom.md');
    ws.write('hygiene.report.json', JSON.stringify(makeReport([deterministicEntry('docs/bom.md', { kind: 'replace-text', expected_sha256: sha(bom), anchor: { start_line: 1, end_line: 1 }, match: 'one', replacement: 'ONE' })])));
    const h = await LspHarness.start({ workspaceDir: ws.root });
    try {
      const out = (await h.executeCommand('toonlens.applyEdit', [{ reportFsPath: ws.path('hygiene.report.json'), entryIndex: 0, tier: 'auto' }])) as Outcome;
      assert.equal(out.applied, true, out.message);
      const tde = h.appliedEdits.at(-1)!.edit.documentChanges![0] as TextDocumentEdit;
      // VS Code and Neovim show "line one" without the BOM: "one" is characters 5–8 of line 0.
      assert.deepEqual((tde.edits[0] as { range: unknown }).range, { start: { line: 0, character: 5 }, end: { line: 0, character: 8 } });
    } finally {
      await h.shutdown();
    }
  });

  test('a FIFO target gets a diagnostic saying so, and the server stays responsive', async () => {
    const { ws } = repo();
    mkfifo(ws.path('docs/pipe.md'));
    const report = JSON.stringify(makeReport([deterministicEntry('docs/pipe.md', { kind: 'delete-range', expected_sha256: sha(''), anchor: { start_line: 1, end_line: 1 } })]), null, 2);
    ws.write('hygiene.report.json', report);
    const h = await LspHarness.start({ workspaceDir: ws.root });
    try {
      const uri = h.open('hygiene.report.json', report, 'json');
      const ds = await h.waitForDiagnostics(uri, (d) => d.some((x) => /FIFO/.test(String(x.message))), 15000);
      assert.ok(ds.some((d) => d.code === 'report/missing-target' && /is a FIFO \(named pipe\), not a regular file/.test(String(d.message))), JSON.stringify(ds));
      assert.notEqual(await h.codeLenses(uri), undefined);
    } finally {
      await h.shutdown();
    }
  });
});

describe('hostile glob in the settings', () => {
  test('documentKinds {"*a*a*a*a*a*a*a*b.json": "verdict"} and a file of 80 "a"s: the server answers', async () => {
    const h = await LspHarness.start({ settings: { documentKinds: { '*a*a*a*a*a*a*a*b.json': 'verdict' } } });
    try {
      const uri = h.open(`${'a'.repeat(80)}.json`, '{"x": 1}', 'json');
      const matching = h.open(`${'a'.repeat(80)}b.json`, '{"x": 1}', 'json');
      await h.hover(uri, { line: 0, character: 2 });
      const ds = await h.waitForDiagnostics(matching, (d) => d.length > 0, 15000);
      assert.ok(ds.some((d) => d.code === 'schema'), 'the matching file is checked as a verdict');
    } finally {
      await h.shutdown();
    }
  });
});
