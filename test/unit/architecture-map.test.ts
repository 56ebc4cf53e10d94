// ARCHITECTURE.md's map names every source file under server/src and client/src exactly once, and every path it
// names exists: a new file without its line, a file listed twice or a line left behind by a move fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO_ROOT, tsSources } from '../paths';


/** The map's entries: each list line's leading `path`, in order (duplicates kept). */
export function mapEntries(markdown: string): string[] {
  const start = markdown.indexOf('\n## Map\n');
  assert.ok(start >= 0, 'ARCHITECTURE.md has a Map section');
  const end = markdown.indexOf('\n## ', start + 1);
  const section = markdown.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/^- `([^`]+)`/gm)].map((m) => m[1]!);
}

/** What is wrong with a map, against the source files it must cover. */
export function mapProblems(entries: readonly string[], required: readonly string[], exists: (p: string) => boolean): string[] {
  const problems: string[] = [];
  const count = new Map<string, number>();
  for (const e of entries) count.set(e, (count.get(e) ?? 0) + 1);
  for (const [e, n] of count) {
    if (n > 1) problems.push(`named ${n} times: ${e}`);
    if (!exists(e)) problems.push(`stale (no such file): ${e}`);
  }
  for (const r of required) if (!count.has(r)) problems.push(`missing: ${r}`);
  return problems;
}

test('ARCHITECTURE.md names every source file once, and only files that exist', () => {
  const entries = mapEntries(readFileSync(join(REPO_ROOT, 'ARCHITECTURE.md'), 'utf8'));
  const required = ['server/src', 'client/src'].flatMap((d) => tsSources(join(REPO_ROOT, d)).map((p) => relative(REPO_ROOT, p).split('\\').join('/')));
  assert.ok(required.length > 50, 'found the sources');
  assert.deepEqual(mapProblems(entries, required, (p) => existsSync(join(REPO_ROOT, p))), []);
});

test('the map check catches a duplicate, a stale and a missing entry', () => {
  const md = '# x\n\n## Map\n\n- `a.ts`: one\n- `a.ts`: again\n- `gone.ts`: moved\n\n## Next\n- `b.ts`: not in the map\n';
  const problems = mapProblems(mapEntries(md), ['a.ts', 'b.ts'], (p) => p !== 'gone.ts');
  assert.deepEqual(problems.sort(), ['missing: b.ts', 'named 2 times: a.ts', 'stale (no such file): gone.ts']);
});
