// Report lenses as a VS Code user reads them: every lens has a tooltip, every title names its file one way
// (relative to the workspace folder, wherever the report sits), and the entry just applied says "Applied"
// while its files are as it left them (not "Stale"); after an undo it offers Apply again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { CodeLens, TextDocumentEdit, WorkspaceEdit } from 'vscode-languageserver-protocol';
import { LspHarness, REPO_ROOT, applyTextEdits } from './harness';

/** Applies a WorkspaceEdit's creates, renames and text edits to the disk, as an editor would; returns the paths it touched. */
function applyToDisk(edit: WorkspaceEdit): string[] {
  const touched: string[] = [];
  for (const change of edit.documentChanges ?? []) {
    if ('kind' in change) {
      if (change.kind === 'create') {
        mkdirSync(dirname(fileURLToPath(change.uri)), { recursive: true });
        writeFileSync(fileURLToPath(change.uri), '');
        touched.push(fileURLToPath(change.uri));
      }
      if (change.kind === 'rename') {
        mkdirSync(dirname(fileURLToPath(change.newUri)), { recursive: true });
        renameSync(fileURLToPath(change.oldUri), fileURLToPath(change.newUri));
        touched.push(fileURLToPath(change.oldUri), fileURLToPath(change.newUri));
      }
      continue;
    }
    const tde = change as TextDocumentEdit;
    const path = fileURLToPath(tde.textDocument.uri);
    writeFileSync(path, applyTextEdits(existsSync(path) ? readFileSync(path, 'utf8') : '', tde.edits as never));
    touched.push(path);
  }
  return [...new Set(touched)];
}

const shown = (ls: CodeLens[] | null) => (ls ?? []).map((l) => `${l.command?.title ?? ''} [${l.command?.tooltip ?? 'NO TOOLTIP'}]`).join('\n');

test('report lenses: tooltips, workspace-relative paths, and "Applied" for the entry just applied', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'toonlens-report-lenses-'));
  // The report and its project in a subfolder: entry paths are relative to the project, titles to the workspace.
  cpSync(join(REPO_ROOT, 'test', 'fixtures', 'report', 'sample'), join(dir, 'site'), { recursive: true });
  const h = await LspHarness.start({ workspaceDir: dir });
  try {
    const uri = h.open('site/hygiene.report.json', readFileSync(join(dir, 'site', 'hygiene.report.json'), 'utf8'), 'json');
    const lenses = (await h.codeLenses(uri)) ?? [];
    assert.ok(lenses.length >= 3, shown(lenses));
    for (const l of lenses) {
      assert.ok(l.command?.tooltip && l.command.tooltip.length > 20, `a tooltip on "${l.command?.title}"`);
      assert.ok(!/ docs\//.test(l.command.title), `"${l.command.title}" names its file from the workspace folder`);
    }
    const apply = lenses.find((l) => l.command?.title === 'Apply move-to-archive to site/docs/plan.md (auto)');
    assert.ok(apply, shown(lenses));
    assert.match(apply.command!.tooltip!, /Entry \d+: move-to-archive on site\/docs\/plan\.md\. Auto tier/);
    assert.ok(lenses.some((l) => l.command?.title === 'Stale — site/docs/old.md changed, re-run check' && /expected_sha256/.test(l.command.tooltip ?? '')), shown(lenses));
    const line = apply.range.start.line;

    const source = join(dir, 'site', 'docs', 'plan.md');
    const original = readFileSync(source, 'utf8');
    const outcome = (await h.executeCommand(apply.command!.command, apply.command!.arguments)) as { applied: boolean; message: string };
    assert.equal(outcome.applied, true, outcome.message);
    const touched = applyToDisk(h.appliedEdits.at(-1)!.edit);
    await h.fileEvents(touched.map((p) => ({ uri: pathToFileURL(p).toString(), type: existsSync(p) ? 2 : 3 })));
    await h.waitIdle();
    let now = (await h.codeLenses(uri)) ?? [];
    const at = now.find((l) => l.range.start.line === line);
    assert.equal(at?.command?.title, 'Applied — site/docs/plan.md', shown(now));
    assert.match(at!.command!.tooltip!, /applied in this session.*Edit › Undo/);

    // The editor's Undo: the source is back, the archive gone; the lens offers Apply again.
    writeFileSync(source, original);
    rmSync(join(dir, 'site', 'docs', 'archive'), { recursive: true, force: true });
    await h.fileEvents([{ uri: pathToFileURL(source).toString(), type: 2 }, { uri: pathToFileURL(join(dir, 'site', 'docs', 'archive', 'plan.md')).toString(), type: 3 }]);
    await h.waitIdle();
    now = (await h.codeLenses(uri)) ?? [];
    assert.equal(now.find((l) => l.range.start.line === line)?.command?.title, 'Apply move-to-archive to site/docs/plan.md (auto)', shown(now));
  } finally {
    await h.shutdown();
    rmSync(dir, { recursive: true, force: true });
  }
});
