// An open report is re-checked when the files its exact_edits point at change: on disk (watched-file
// events) or in an open editor buffer (unsaved edits win over the disk).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Diagnostic } from 'vscode-languageserver-protocol/node';
import { LspHarness, REPO_ROOT } from './harness';

const SAMPLE = join(REPO_ROOT, 'test/fixtures/report/sample');
/** Stale-edit findings about entries[0] (docs/plan.md, whose expected_sha256 matches the sample). */
const planStale = (ds: Diagnostic[]) => ds.filter((d) => d.code === 'report/stale-edit' && JSON.stringify((d.data as { path?: unknown[] }).path ?? []).startsWith('["entries",0'));

describe('report refresh', () => {
  let dir: string;
  let lsp: LspHarness;
  let report: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'toonlens-report-'));
    cpSync(SAMPLE, dir, { recursive: true });
    lsp = await LspHarness.start({ workspaceDir: dir });
    report = lsp.open('hygiene.report.json', readFileSync(join(dir, 'hygiene.report.json'), 'utf8'));
  });
  after(async () => {
    await lsp.shutdown();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the sample report: the plan.md entry is fresh', async () => {
    const ds = await lsp.waitForDiagnostics(report);
    assert.deepEqual(planStale(ds), []);
    assert.ok(ds.some((d) => d.code === 'report/stale-edit'), 'the deliberately stale entry is reported');
  });

  test('a target changed on disk makes its edit stale after the watched-file event, and fresh again when restored', async () => {
    const plan = join(dir, 'docs/plan.md');
    const original = readFileSync(plan, 'utf8');
    writeFileSync(plan, original + '\nchanged on disk\n');
    await lsp.fileEvents([{ uri: pathToFileURL(plan).toString(), type: 2 }]);
    const ds = await lsp.waitForDiagnostics(report, (d) => planStale(d).length > 0);
    assert.equal(planStale(ds)[0]!.severity, 2);

    writeFileSync(plan, original);
    await lsp.fileEvents([{ uri: pathToFileURL(plan).toString(), type: 2 }]);
    await lsp.waitForDiagnostics(report, (d) => planStale(d).length === 0);
  });

  test('an unsaved edit to an open target counts', async () => {
    const plan = join(dir, 'docs/plan.md');
    const original = readFileSync(plan, 'utf8');
    const uri = lsp.open('docs/plan.md', original);
    lsp.change(uri, original + '\nunsaved edit\n');
    await lsp.waitForDiagnostics(report, (d) => planStale(d).length > 0);
    lsp.change(uri, original);
    await lsp.waitForDiagnostics(report, (d) => planStale(d).length === 0);

    // Closing a buffer with unsaved edits discards them: the disk counts again.
    lsp.change(uri, original + '\nunsaved edit\n');
    await lsp.waitForDiagnostics(report, (d) => planStale(d).length > 0);
    lsp.close(uri);
    await lsp.waitForDiagnostics(report, (d) => planStale(d).length === 0);
  });

  test('the report lenses are refreshed (workspace/codeLens/refresh) the moment a target changes, on disk or in a buffer', async () => {
    const planLens = async () => {
      const lenses = (await lsp.codeLenses(report)) ?? [];
      // The plan.md entry is entries[0]: its lens is the first one after the "Apply all" lens, if any.
      const own = lenses.filter((l) => !/^Apply all/.test(l.command?.title ?? ''));
      return own[0]?.command?.title ?? '';
    };
    assert.match(await planLens(), /^Apply /);
    const plan = join(dir, 'docs/plan.md');
    const original = readFileSync(plan, 'utf8');

    const before = lsp.codeLensRefreshes;
    writeFileSync(plan, original + '\nchanged on disk\n');
    await lsp.fileEvents([{ uri: pathToFileURL(plan).toString(), type: 2 }]);
    await lsp.waitFor(() => (lsp.codeLensRefreshes > before ? true : undefined), 10_000, () => 'a codeLens refresh after the disk change');
    assert.equal(await planLens(), 'Stale — docs/plan.md changed, re-run check');

    const mid = lsp.codeLensRefreshes;
    writeFileSync(plan, original);
    await lsp.fileEvents([{ uri: pathToFileURL(plan).toString(), type: 2 }]);
    await lsp.waitFor(() => (lsp.codeLensRefreshes > mid ? true : undefined), 10_000, () => 'a codeLens refresh after the restore');
    assert.match(await planLens(), /^Apply /);

    // An unsaved edit in an open buffer of the target counts the same way.
    const uri = lsp.open('docs/plan.md', original);
    const opened = lsp.codeLensRefreshes;
    lsp.change(uri, original + '\nunsaved\n');
    await lsp.waitFor(() => (lsp.codeLensRefreshes > opened ? true : undefined), 10_000, () => 'a codeLens refresh after the buffer edit');
    assert.equal(await planLens(), 'Stale — docs/plan.md changed, re-run check');
    lsp.close(uri);
    await lsp.waitForDiagnostics(report, (d) => planStale(d).length === 0);
  });
});
