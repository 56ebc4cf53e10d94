// One defect, one diagnostic over real LSP (bundled server; run `npm run build` first): a docs-hygiene
// report whose subtype belongs to the other class, a replace-text without replacement, an extract without
// target_ref (and the other one-defect reports of test/fixtures/report/helpers.ts) each get exactly one
// diagnostic, with the rule's code — never a bare `schema` error as well — and the live checks on.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { LspHarness } from './harness';
import { ONE_DEFECT_FILES, oneDefectBase, oneDefectReports } from '../fixtures/report/helpers';

describe('report diagnostics: one defect, one error', () => {
  let lsp: LspHarness;
  before(async () => {
    lsp = await LspHarness.start();
    for (const [rel, text] of Object.entries(ONE_DEFECT_FILES)) lsp.writeFile(rel, text);
  });
  after(async () => {
    await lsp.shutdown();
  });

  test('the valid base report gets no diagnostic', async () => {
    const uri = lsp.openFile('base.report.json', JSON.stringify(oneDefectBase(), null, 2));
    assert.deepEqual(await lsp.waitForDiagnostics(uri), []);
  });

  for (const [i, d] of oneDefectReports().entries()) {
    test(`${d.name}: exactly one diagnostic, ${d.code}`, async () => {
      const uri = lsp.openFile(`defect-${i}.report.json`, JSON.stringify(d.report, null, 2));
      const ds = await lsp.waitForDiagnostics(uri, (x) => x.length > 0);
      await lsp.waitIdle(); // nothing else is still to be published for it
      const last = lsp.latestDiagnostics(uri)!;
      assert.deepEqual(last.map((x) => x.code), [d.code], JSON.stringify(last.map((x) => `${x.code}: ${x.message}`)));
      assert.deepEqual(ds, last);
      assert.equal(last[0]!.severity, 1, 'an error');
      if (d.code === 'report/category' && /under class/.test(d.name)) {
        const actions = (await lsp.codeActions(uri, last[0]!.range, { diagnostics: last })) ?? [];
        const titles = actions.map((a) => a.title);
        assert.ok(titles.some((t) => /^Set class to "(stale|bloat)" — /.test(t)), titles.join(' | '));
      }
    });
  }
});
