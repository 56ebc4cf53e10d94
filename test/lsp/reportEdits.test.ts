// Docs-hygiene reports over real LSP: lenses per exact_edit, applying one (a WorkspaceEdit the client
// applies), the sha256 guard turning into report/stale-edit when the target changes, and restricted mode.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
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

/** A server on a fresh copy of the sample workspace with its report open; shut down afterwards. */
async function withSampleReport(run: (h: LspHarness, dir: string, reportUri: string) => Promise<void>): Promise<void> {
  const dir = sampleWorkspace();
  const h = await LspHarness.start({ workspaceDir: dir });
  try {
    await run(h, dir, h.open('hygiene.report.json', readFileSync(join(dir, 'hygiene.report.json'), 'utf8'), 'json'));
  } finally {
    await h.shutdown();
  }
}

/** Runs the lens with this title and returns the command's outcome. */
async function runLens(h: LspHarness, reportUri: string, title: string): Promise<{ applied: boolean; message: string }> {
  const lens = ((await h.codeLenses(reportUri)) ?? []).find((l) => l.command?.title === title);
  assert.ok(lens, `a lens "${title}"`);
  return (await h.executeCommand(lens.command!.command, lens.command!.arguments)) as { applied: boolean; message: string };
}

describe('docs-hygiene report over LSP', () => {
  test('lenses per exact_edit; applying one changes the target; editing the target makes the edit stale', async () => {
    const dir = sampleWorkspace();
    const h = await LspHarness.start({ workspaceDir: dir });
    try {
      const reportText = readFileSync(join(dir, 'hygiene.report.json'), 'utf8');
      const uri = h.open('hygiene.report.json', reportText, 'json');
      const lenses = (await h.codeLenses(uri)) ?? [];
      const t = titles(lenses);
      assert.ok(t.includes('Apply move-to-archive to docs/plan.md (auto)'), t.join(' | '));
      assert.ok(t.includes('Apply delete-range to docs/old.md (confirm)'), t.join(' | '));
      assert.ok(t.includes('Stale — docs/old.md changed, re-run check'), t.join(' | '));

      const lens = lenses.find((l) => l.command?.title === 'Apply move-to-archive to docs/plan.md (auto)')!;
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
      await h.waitIdle(); // the open's checks and lens refresh are done: the change below is what makes the edit stale
      h.change(notesUri, readFileSync(notes, 'utf8') + '\nan edit after the check\n');
      const ds = await h.waitForDiagnostics(uri, (d) => d.filter((x) => x.code === 'report/stale-edit').length >= 2, 8000);
      assert.ok(ds.filter((d) => d.code === 'report/stale-edit').length >= 2, 'the fixture stale entry and the edited target');
      const after = titles(await h.codeLenses(uri));
      assert.ok(after.filter((x) => /^Stale — \S+ changed, re-run check$/.test(x)).length >= 2, after.join(' | '));
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

  test('a confirm-tier edit: the dialog names the file, the 1-based lines, a preview and the entry (from 1); the file is shown afterwards with how to undo', () =>
    withSampleReport(async (h, dir, uri) => {
      const outcome = await runLens(h, uri, 'Apply delete-range to docs/old.md (confirm)');
      assert.equal(outcome.applied, true, outcome.message);
      const asked = h.confirmRequests.at(-1) as { message: string; detail: string; entry: number; file: string; lines: string; preview: string };
      const old = readFileSync(join(dir, 'docs', 'old.md'), 'utf8').split(/\r?\n/);
      assert.equal(asked.entry, 3, 'entries[2] is entry 3');
      assert.match(asked.detail, /Entry 3 of the report/);
      assert.equal(asked.file, 'docs/old.md');
      assert.equal(asked.lines, 'line 3');
      assert.equal(asked.preview, `- ${old[2]}`, 'the removed line');
      assert.match(asked.message, /docs\/old\.md \(line 3\)/);
      assert.ok(asked.detail.includes(asked.preview), 'the preview is in the dialog text every client shows');
      assert.match(asked.detail, /Undo/);

      const shown = h.shownDocuments.at(-1);
      assert.ok(shown, 'the edited file is revealed');
      assert.equal(shown.uri, pathToFileURL(join(dir, 'docs', 'old.md')).toString());
      assert.equal(shown.selection?.start.line, 2, 'at the changed line');
      const said = h.messages.at(-1)!;
      assert.match(said.message, /Applied entry 3: .*\. Undo: Edit › Undo/);
    }));

  test('apply all auto says "Applied N" and counts skipped entries from 1', () =>
    withSampleReport(async (h, _dir, uri) => {
      const outcome = (await h.executeCommand('toonlens.applyAllAuto', [{ uri }])) as { applied: boolean; message: string; skipped: { entryIndex: number; entry: number }[] };
      assert.equal(outcome.applied, true, outcome.message);
      assert.match(outcome.message, /^Applied 2 auto-tier edits/);
      assert.ok(outcome.skipped.length > 0);
      for (const s of outcome.skipped) {
        assert.equal(s.entry, s.entryIndex + 1);
        assert.ok(outcome.message.includes(`#${s.entry}/#5 `), outcome.message);
      }
      assert.ok(!/#0\b/.test(outcome.message), outcome.message);
    }));

  test('undoing a move into a new folder leaves no empty folder behind', () =>
    withSampleReport(async (h, dir, uri) => {
      const source = join(dir, 'docs', 'plan.md');
      const original = readFileSync(source, 'utf8');
      const outcome = await runLens(h, uri, 'Apply move-to-archive to docs/plan.md (auto)');
      assert.equal(outcome.applied, true, outcome.message);
      applyToDisk(h.appliedEdits.at(-1)!.edit);
      const archived = join(dir, 'docs', 'archive', 'plan.md');
      assert.ok(existsSync(archived));

      // What the editor's Undo does: the created file goes, the source comes back; the watcher reports both.
      rmSync(archived);
      writeFileSync(source, original);
      await h.fileEvents([
        { uri: pathToFileURL(archived).toString(), type: 3 },
        { uri: pathToFileURL(source).toString(), type: 2 },
      ]);
      await h.waitForLog(/removed 1 empty folder/);
      assert.ok(!existsSync(join(dir, 'docs', 'archive')), 'docs/archive/ is gone');
      assert.ok(existsSync(join(dir, 'docs')), 'its parent stays');
    }));
});
