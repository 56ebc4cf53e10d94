/** Seed documents for the fuzzers: every JSON and markdown file of examples/ and test/fixtures/ (the producer corpus included). */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES, REPO_ROOT } from '../paths';

export { REPO_ROOT };

function walk(dir: string, out: string[]): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const n of names.sort()) {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) walk(p, out);
    else out.push(p);
  }
}

function files(roots: string[], re: RegExp): { path: string; text: string }[] {
  const all: string[] = [];
  for (const r of roots) walk(r, all);
  return all.filter((p) => re.test(p)).map((path) => ({ path, text: readFileSync(path, 'utf8') }));
}

let json: { path: string; text: string }[] | undefined;
let markdown: { path: string; text: string }[] | undefined;

/** Every seed JSON document (examples, fixtures, the doc2toon corpus). */
export function jsonSeeds(): { path: string; text: string }[] {
  json ??= files([join(REPO_ROOT, 'examples'), FIXTURES], /\.json$/i).filter(
    (f) => !/tmLanguage\.json$/.test(f.path),
  );
  if (json.length === 0) throw new Error('no JSON seeds found');
  return json;
}

/** Every seed markdown document (examples, fixtures, the corpus inputs) and the .toon examples. */
export function markdownSeeds(): { path: string; text: string }[] {
  markdown ??= files([join(REPO_ROOT, 'examples'), FIXTURES], /\.(md|markdown|toon)$/i);
  if (markdown.length === 0) throw new Error('no markdown seeds found');
  return markdown;
}
