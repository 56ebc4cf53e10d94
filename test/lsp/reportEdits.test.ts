// Docs-hygiene reports over real LSP: lenses per exact_edit, applying one (a WorkspaceEdit the client
// applies), the sha256 guard turning into report/stale-edit when the target changes, and restricted mode.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { CodeLens, TextDocumentEdit, WorkspaceEdit } from 'vscode-languageserver-protocol';
import { LspHarness, REPO_ROOT, applyTextEdits } from './harness';

function sampleWorkspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'toonlens-report-'));
  cpSync(join(REPO_ROOT, 'test', 'fixtures', 'report', 'sample'), dir, { recursive: true });
  return dir;
}

/** Applies a WorkspaceEdit's text edits and creates to the disk, as an editor would (enough for these edits). */
function applyToDisk(edit: WorkspaceEdit): void {
  for (const change of edit.documentChanges ?? []) {
    if ('kind' in change) {
      if (change.kind === 'create') {
        mkdirSync(dirname(fileURLToPath(change.uri)), { recursive: true }); // editors create the parent folders
        writeFileSync(fileURLToPath(change.uri), '');
      }
      if (change.kind === 'rename') {
        mkdirSync(dirname(fileURLToPath(change.newUri)), { recursive: true });
        renameSync(fileURLToPath(change.oldUri), fileURLToPath(change.newUri));
      }
      continue;
    }
    const tde = change as TextDocumentEdit;
    const path = fileURLToPath(tde.textDocument.uri);
    const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
    writeFileSync(path, applyTextEdits(text, tde.edits as never));
  }
}

const titles = (ls: CodeLens[] | null) => (ls ?? []).map((l) => l.command?.title ?? '');

describe('docs-hygiene report over LSP', () => {
  test('lenses per exact_edit; applying one changes the target; editing the target makes the edit stale', async () => {
    const dir = sampleWorkspace();
    const h = await LspHarness.start({ workspaceDir: dir });
    try {
      const reportText = readFileSync(join(dir, 'hygiene.report.json'), 'utf8');
      const uri = h.open('hygiene.report.json', reportText, 'json');
      const lenses = (await h.codeLenses(uri)) ?? [];
      const t = titles(lenses);
      assert.ok(t.includes('Apply move-to-archive (auto)'), t.join(' | '));
      assert.ok(t.includes('Apply delete-range (confirm)'), t.join(' | '));
      assert.ok(t.includes('Stale — re-run check'), t.join(' | '));

      const lens = lenses.find((l) => l.command?.title === 'Apply move-to-archive (auto)')!;
      const outcome = (await h.executeCommand(lens.command!.command, lens.command!.arguments)) as { applied: boolean; message: string };
      assert.equal(outcome.applied, true, outcome.message);
      const edit = h.appliedEdits.at(-1)!.edit;
      applyToDisk(edit);
      assert.ok(readFileSync(join(dir, 'docs', 'archive', 'plan.md'), 'utf8').includes('ship the parser'), 'the archive holds the moved lines');
      const source = join(dir, 'docs', 'plan.md');
      assert.ok(!existsSync(source) || !readFileSync(source, 'utf8').includes('ship the parser'), 'the lines left the source');

      // The dedupe entry targets docs/notes.md: open it in the editor and change it — its edit goes stale live.
      const notes = join(dir, 'docs', 'notes.md');
      const notesUri = h.open(pathToFileURL(notes).toString(), readFileSync(notes, 'utf8'), 'markdown');
      await h.sleep(300);
      h.change(notesUri, readFileSync(notes, 'utf8') + '\nan edit after the check\n');
      const ds = await h.waitForDiagnostics(uri, (d) => d.filter((x) => x.code === 'report/stale-edit').length >= 2, 8000);
      assert.ok(ds.filter((d) => d.code === 'report/stale-edit').length >= 2, 'the fixture stale entry and the edited target');
      const after = titles(await h.codeLenses(uri));
      assert.ok(after.filter((x) => x === 'Stale — re-run check').length >= 2, after.join(' | '));
    } finally {
      await h.shutdown();
    }
  });

  test('from the command palette, the entry under the cursor is applied', async () => {
    const dir = sampleWorkspace();
    const h = await LspHarness.start({ workspaceDir: dir });
    try {
      const text = readFileSync(join(dir, 'hygiene.report.json'), 'utf8');
      const uri = h.open('hygiene.report.json', text, 'json');
      const at = text.indexOf('"dest_path": "docs/archive/plan.md"');
      const line = text.slice(0, at).split('\n').length - 1;
      const outside = (await h.executeCommand('toonlens.applyEdit', [{ uri, position: { line: 0, character: 0 } }])) as { applied: boolean; message: string };
      assert.equal(outside.applied, false);
      assert.match(outside.message, /cursor inside a report entry/);
      const outcome = (await h.executeCommand('toonlens.applyEdit', [{ uri, position: { line, character: 8 } }])) as { applied: boolean; message: string };
      assert.equal(outcome.applied, true, outcome.message);
      assert.match(JSON.stringify(h.appliedEdits.at(-1)!.edit), /archive/);
    } finally {
      await h.shutdown();
    }
  });

  test('in restricted mode the lenses say why and nothing is applied', async () => {
    const dir = sampleWorkspace();
    const h = await LspHarness.start({ workspaceDir: dir, initializationOptions: { trusted: false } });
    try {
      const uri = h.open('hygiene.report.json', readFileSync(join(dir, 'hygiene.report.json'), 'utf8'), 'json');
      const lenses = (await h.codeLenses(uri)) ?? [];
      assert.ok(titles(lenses).some((x) => /restricted mode/.test(x)), titles(lenses).join(' | '));
      const before = h.appliedEdits.length;
      const outcome = (await h.executeCommand('toonlens.applyEdit', [{ reportFsPath: join(dir, 'hygiene.report.json'), entryIndex: 0, tier: 'auto' }])) as { applied: boolean };
      assert.equal(outcome.applied, false);
      assert.equal(h.appliedEdits.length, before);
    } finally {
      await h.shutdown();
    }
  });
});
