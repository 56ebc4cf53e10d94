// Runs every *.test.ts under test/unit and test/lsp with node's test runner (TypeScript through tsx).
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
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
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...files], { stdio: 'inherit' });
process.exit(r.status ?? 1);
