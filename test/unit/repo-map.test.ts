// The repository describes itself: the README's architecture map names every source file, and no file
// points outside the clone (the design lives in docs/).
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

test('the README architecture map names every source file under server/src and client/src', () => {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('## Architecture');
  assert.ok(start >= 0, 'README has an Architecture section');
  const open = readme.indexOf('```\n', start);
  const block = readme.slice(open, readme.indexOf('\n```\n', open));
  const sources = ['server/src', 'client/src'].flatMap((d) => files(join(REPO_ROOT, d), (p) => p.endsWith('.ts')));
  assert.ok(sources.length > 50, 'found the sources');
  const missing = sources
    .map((p) => relative(REPO_ROOT, p).split('\\').join('/'))
    .filter((rel) => {
      const name = rel.slice(rel.lastIndexOf('/') + 1);
      const folder = rel.slice(0, rel.lastIndexOf('/'));
      // Named with its path, or by file name after its folder's entry in the map.
      if (block.includes(rel)) return false;
      const folderEntry = block.indexOf(`${folder.slice(folder.lastIndexOf('/') + 1)}/`);
      const region = folderEntry >= 0 ? block.slice(folderEntry) : block;
      return !new RegExp(`(^|[\\s,(/])${name.replace(/\./g, '\\.')}([\\s,);:]|$)`, 'm').test(region);
    });
  assert.deepEqual(missing, [], 'name these files in the README architecture map');
});

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
