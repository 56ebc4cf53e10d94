/**
 * `.gitignore` files, as git reads them (gitignore(5)), for the files `toonlens check` walks: blank lines and `#`
 * comments skipped, `!` re-includes, a trailing `/` matches directories only, a pattern with a `/` before its end
 * is anchored at the file's folder, one without matches at any depth; `*`, `?`, `[…]` and `**` through the
 * linear-time matcher (core/glob.ts). The last matching line wins, a deeper file's lines after a shallower's.
 */
import { compileGlob } from './glob';

interface IgnoreRule {
  negate: boolean;
  dirOnly: boolean;
  match: (rel: string) => boolean;
}

/** The rules of one `.gitignore`, whose folder is `base` (a `/`-separated path, `''` for the walk root's own). */
export interface IgnoreFile {
  base: string;
  rules: IgnoreRule[];
}

/** Parses one `.gitignore` text. */
export function parseGitignore(text: string, base: string): IgnoreFile {
  const rules: IgnoreRule[] = [];
  for (let line of text.split(/\r?\n/)) {
    if (line === '' || line.startsWith('#')) continue;
    // Trailing spaces are dropped unless escaped with a backslash.
    line = line.replace(/(?<!\\)[ \t]+$/, '').replace(/\\ $/, ' ');
    if (line === '') continue;
    let negate = false;
    if (line.startsWith('!')) {
      negate = true;
      line = line.slice(1);
    } else if (line.startsWith('\\!') || line.startsWith('\\#')) line = line.slice(1);
    let dirOnly = false;
    if (line.endsWith('/')) {
      dirOnly = true;
      line = line.slice(0, -1);
    }
    if (line === '') continue;
    const anchored = line.includes('/');
    if (line.startsWith('/')) line = line.slice(1);
    // A leading `!` left in the pattern is literal here (the negation was taken above).
    const glob = (anchored ? line : `**/${line}`).replace(/^!/, '\\!');
    const m = compileGlob(glob);
    rules.push({ negate, dirOnly, match: m });
  }
  return { base, rules };
}

/**
 * Whether `rel` (`/`-separated, relative to the walk's root folder) is ignored by the given files, shallowest
 * first. `isDir`: the path is a directory (`dir/` patterns match only those).
 */
export function isGitIgnored(files: readonly IgnoreFile[], rel: string, isDir: boolean): boolean {
  let ignored = false;
  for (const f of files) {
    let sub: string;
    if (f.base === '') sub = rel;
    else if (rel.startsWith(`${f.base}/`)) sub = rel.slice(f.base.length + 1);
    else continue;
    for (const r of f.rules) {
      if (r.dirOnly && !isDir) continue;
      if (r.negate === ignored && r.match(sub)) ignored = !r.negate;
    }
  }
  return ignored;
}
