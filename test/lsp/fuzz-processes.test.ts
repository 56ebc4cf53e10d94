// A short, seeded slice of the process-driving fuzz (test/fuzz/processes.ts) for CI: the built server and
// CLI over a few generated hostile workspaces (.git, symlinks into it and out of the project, dangling
// symlinks, FIFOs, a file over the size limit, binary files, hostile globs, a report targeting all of them)
// and small "large" inputs. The full run is `npm run fuzz` (200 workspaces, large inputs at full size).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { processSummary, runProcessFuzz } from '../fuzz/processes';

const WORKSPACES = 4;
const SEED = 424242;

test(`process fuzz: the built server and CLI over ${WORKSPACES} seeded hostile workspaces and small large inputs`, async () => {
  const r = await runProcessFuzz({ workspaces: WORKSPACES, seed: SEED, large: 0.03, cliPerWorkspace: 3 });
  assert.equal(r.failures.length, 0, processSummary(r));
  assert.equal(r.workspaces, WORKSPACES);
  assert.ok(r.cliRuns >= WORKSPACES * 3, `${r.cliRuns} CLI runs`);
  assert.ok(r.lspOps >= WORKSPACES * 5, `${r.lspOps} LSP requests`);
});
