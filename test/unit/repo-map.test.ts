// No file points outside the clone (the design lives in docs/); ARCHITECTURE.md's map has its own test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO_ROOT } from '../paths';

function files(dir: string, keep: (p: string) => boolean, skip: (p: string) => boolean = () => false): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (skip(p)) continue;
    if (statSync(p).isDirectory()) out.push(...files(p, keep, skip));
    else if (keep(p)) out.push(p);
  }
  return out;
}

test('no file of the repository refers to a folder beside the clone', () => {
  const text = (p: string) => /\.(ts|mjs|js|json|md|yml|yaml|sh)$/.test(p) || p.endsWith('/run');
  const skip = (p: string) => /[/\\](node_modules|dist|\.git|\.e2e|\.bench-data|fixtures)$/.test(p);
  const offenders: string[] = [];
  const outside = '.' + './' + 'shared'; // spelled in pieces so this guard does not name the folder itself
  const designRef = ['verdict-engine', 'md §'].join('.');
  for (const p of files(REPO_ROOT, text, skip)) {
    const s = readFileSync(p, 'utf8');
    if (s.includes(outside) || s.includes(designRef) || /shared\/design|design\/(verdict-engine|report-shape|diagnostics)\.md/.test(s)) offenders.push(relative(REPO_ROOT, p));
  }
  assert.deepEqual(offenders, []);
});
