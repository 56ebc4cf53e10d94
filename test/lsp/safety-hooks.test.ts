// The LSP apply commands treat hook folders like .git (dist/server.js over stdio): an auto-tier
// "move docs/run.md → .githooks/post-checkout" with core.hooksPath=.githooks, `.husky/post-checkout`,
// a hooksPath of any name and a move of an executable file send no WorkspaceEdit at all.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync } from 'node:fs';
import { LspHarness } from './harness';
import { deterministicEntry, makeReport, sha, tempWorkspace, type TempWorkspace } from '../fixtures/report/helpers';

const spaces: TempWorkspace[] = [];
after(() => spaces.forEach((s) => s.cleanup()));

type Outcome = { applied: boolean; message: string };
const RUN = '#!/bin/sh\necho pwned\n';

describe('report apply commands never write a hook', () => {
  test('core.hooksPath, .githooks, .husky and an executable file: refused, nothing sent, nothing written', async () => {
    const ws = tempWorkspace({ 'docs/run.md': RUN, 'docs/plain.md': 'one\ntwo\n' }, { git: true });
    spaces.push(ws);
    chmodSync(ws.path('docs/run.md'), 0o755);
    ws.git('config', 'core.hooksPath', 'tools/hooks');
    const move = (from: string, text: string, dest: string) => deterministicEntry(from, { kind: 'move-to-archive', expected_sha256: sha(text), anchor: { start_line: 1, end_line: 2 }, dest_path: dest });
    const entries = [
      move('docs/plain.md', 'one\ntwo\n', '.githooks/post-checkout'),
      move('docs/plain.md', 'one\ntwo\n', '.husky/post-checkout'),
      move('docs/plain.md', 'one\ntwo\n', 'tools/hooks/post-checkout'),
      move('docs/run.md', RUN, 'archive/run.md'),
    ];
    ws.write('hygiene.report.json', JSON.stringify(makeReport(entries), null, 2));
    const before = ws.snapshot();
    const h = await LspHarness.start({ workspaceDir: ws.root });
    try {
      const reportFsPath = ws.path('hygiene.report.json');
      for (let i = 0; i < entries.length; i++) {
        const out = (await h.executeCommand('toonlens.applyEdit', [{ reportFsPath, entryIndex: i, tier: 'auto' }])) as Outcome;
        assert.equal(out.applied, false, `entry ${i}: ${out.message}`);
        assert.match(out.message, i < 3 ? /hook/ : /executable/, `entry ${i}`);
      }
      const all = (await h.executeCommand('toonlens.applyAllAuto', [{ reportFsPath }])) as Outcome;
      assert.equal(all.applied, false, all.message);
      await h.waitIdle();
      assert.equal(h.appliedEdits.length, 0, 'no WorkspaceEdit was sent');
      assert.deepEqual(ws.snapshot(), before);
    } finally {
      await h.shutdown();
    }
  });
});
