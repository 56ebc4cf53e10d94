import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { reportLenses, planApplyAllAuto } from '../../server/src/core/agentJson/report/lenses';
import { applyChangesNode } from '../../server/src/node/workspace';
import { deterministicEntry, generativeEntry, makeReport, sha, tempWorkspace, type TempWorkspace } from '../fixtures/report/helpers';

const spaces: TempWorkspace[] = [];
after(() => spaces.forEach((s) => s.cleanup()));

const A = 'a1\na2\n';
const B = 'b1\nb2\n';
function fixture() {
  const ws = tempWorkspace({ 'a.md': A, 'b.md': B, 'c.md': 'c\n' }, { git: true });
  spaces.push(ws);
  const report = makeReport([
    deterministicEntry('a.md', { kind: 'move-to-archive', expected_sha256: sha(A), anchor: { start_line: 2, end_line: 2 }, dest_path: 'archive/a.md' }),
    deterministicEntry('b.md', { kind: 'delete-range', expected_sha256: sha(B), anchor: { start_line: 1, end_line: 1 } }),
    deterministicEntry('c.md', { kind: 'insert-frontmatter', expected_sha256: sha('changed'), key: 'hygiene', value: 'frozen' }),
    generativeEntry('c.md'),
    deterministicEntry('a.md', { kind: 'replace-text', expected_sha256: sha(A), anchor: { start_line: 1, end_line: 1 }, match: 'a1', replacement: 'A1' }),
  ]);
  return { ws, report, reportFsPath: ws.path('hygiene.report.json') };
}

describe('reportLenses', () => {
  test('one lens per exact_edit: auto, confirm, stale; generative entries get none', () => {
    const { ws, report, reportFsPath } = fixture();
    const lenses = reportLenses(report, ws.reader(), true, reportFsPath);
    assert.deepEqual(
      lenses.map((l) => [l.entryIndex, l.title]),
      [
        [0, 'Apply move-to-archive to a.md (auto)'],
        [1, 'Apply delete-range to b.md (confirm)'],
        [2, 'Stale — c.md changed, re-run check'],
        [4, 'Apply replace-text to a.md (auto)'],
      ],
    );
    assert.deepEqual(lenses[0]!.path, ['entries', 0, 'exact_edit']);
    assert.deepEqual(lenses[0]!.command, { id: 'toonlens.applyEdit', args: [{ reportFsPath, entryIndex: 0, tier: 'auto' }] });
    assert.equal(lenses[2]!.command, undefined);
  });

  test('restricted mode: every lens says why nothing is applied, and reads nothing', () => {
    const { ws, report, reportFsPath } = fixture();
    const reader = ws.reader();
    const lenses = reportLenses(report, { ...reader, readFile: () => assert.fail('read in restricted mode') }, false, reportFsPath);
    assert.equal(lenses.length, 4);
    for (const l of lenses) {
      assert.match(l.title, /^Not applied in restricted mode: [abc]\.md$/, 'says why and names the target file');
      assert.equal(l.command, undefined);
    }
  });
});

describe('planApplyAllAuto', () => {
  test('applies auto entries, skips the rest with reasons, one change per file', () => {
    const { ws, report, reportFsPath } = fixture();
    const batch = planApplyAllAuto(report, ws.reader(), reportFsPath);
    assert.deepEqual(batch.applied.map((a) => a.entryIndex), [0]);
    const skipped = new Map(batch.skipped.map((s) => [s.entryIndex, s]));
    assert.equal(skipped.get(1)!.code, 'tier');
    assert.equal(skipped.get(2)!.code, 'stale');
    assert.equal(skipped.get(2)!.refusedForSafety, true);
    assert.equal(skipped.get(3)!.code, 'not-deterministic');
    assert.equal(skipped.get(4)!.code, 'conflict');
    assert.deepEqual(applyChangesNode(batch.changes, ws.root), { ok: true });
    assert.equal(ws.read('a.md'), 'a1\n');
    assert.equal(ws.read('archive/a.md'), 'a2\n');
    assert.equal(ws.read('b.md'), B);
  });
});

describe('the sample workspace (test/fixtures/report/sample)', () => {
  test('lenses and diagnostics match its README, and `apply` does what they promise', async () => {
    const { cpSync, readFileSync } = await import('node:fs');
    const { resolve } = await import('node:path');
    const { reportRules } = await import('../../server/src/core/agentJson/rules/report');
    const { run } = await import('../../server/src/cli/apply');
    const ws = tempWorkspace({});
    spaces.push(ws);
    cpSync(resolve(import.meta.dirname, '../fixtures/report/sample'), ws.root, { recursive: true });
    const reportFsPath = ws.path('hygiene.report.json');
    const report = JSON.parse(readFileSync(reportFsPath, 'utf8'));
    const titles = reportLenses(report, ws.reader(), true, reportFsPath).map((l) => [l.entryIndex, l.title]);
    assert.deepEqual(titles, [
      [0, 'Apply move-to-archive to docs/plan.md (auto)'],
      [1, 'Apply dedupe to docs/notes.md (auto)'],
      [2, 'Apply delete-range to docs/old.md (confirm)'],
      [3, 'Stale — docs/old.md changed, re-run check'],
    ]);
    const findings = reportRules(report, { text: '', fsPath: reportFsPath, workspace: ws.reader() });
    assert.deepEqual(findings.map((f) => f.code), ['report/stale-edit']);
    let out = '';
    const code = await run([reportFsPath, '--root', ws.root], { cwd: ws.root, stdout: (t) => void (out += t), stderr: (t) => void (out += t), readStdin: async () => '' });
    assert.equal(code, 1, out);
    assert.equal(ws.read('docs/archive/plan.md'), '# Plan\n\n- [x] ship the parser\n- [x] ship the CLI\n');
    assert.equal(ws.exists('docs/plan.md'), false);
    assert.equal(ws.read('docs/notes.md'), '# Notes\n\n\nA long story about a flaky test.\n');
  });
});
