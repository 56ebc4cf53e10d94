// Runs every *.test.ts under test/unit and test/lsp with node's test runner (TypeScript through tsx).
// The run has a temporary directory of its own (TMPDIR, inherited by every test process and every server a
// test starts): whatever a test leaves in it is removed when the run passes, and kept, with its path printed,
// when it fails.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const roots = process.argv.slice(2).length ? process.argv.slice(2) : ['test/unit', 'test/lsp'];
const files = [];
function walk(dir) {
  let names;
  try { names = readdirSync(dir); } catch { return; }
  for (const n of names.sort()) {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) walk(p);
    else if (n.endsWith('.test.ts')) files.push(p);
  }
}
for (const r of roots) {
  if (r.endsWith('.test.ts')) files.push(r); else walk(r);
}
if (files.length === 0) {
  console.error('test/run.mjs: no test files found under ' + roots.join(', '));
  process.exit(1);
}
const scratch = mkdtempSync(join(tmpdir(), 'toonlens-test-'));
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...files], {
  stdio: 'inherit',
  env: { ...process.env, TMPDIR: scratch },
});
const status = r.status ?? 1;
if (status === 0) rmSync(scratch, { recursive: true, force: true });
else console.error(`test/run.mjs: the failed run's temporary files are kept in ${scratch}`);
process.exit(status);
