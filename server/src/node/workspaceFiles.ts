/**
 * The files of a workspace folder a workspace-wide check looks at: regular files only (symlinks and
 * special files are never followed or read), a few folders never entered (`node_modules`, `.git`, …),
 * caller-given ignore rules, and hard bounds on how many entries are visited and files returned.
 */
import * as fs from 'node:fs';
import * as nodePath from 'node:path';

/** Folders a workspace check never enters (what ESLint and markdownlint users expect). */
export const SKIPPED_FOLDERS: ReadonlySet<string> = new Set(['node_modules', '.git', '.hg', '.svn']);

export interface WalkOptions {
  /** Whether a file (by its posix path relative to the root) is wanted. */
  wanted(relPath: string): boolean;
  /** Whether a path relative to the root (a folder ends with "/") is ignored by configuration. */
  ignored?(relPath: string): boolean;
  /** Stop after this many wanted files (the rest is reported as not checked). */
  maxFiles: number;
  /** Stop after visiting this many directory entries in all (bounds the walk of a huge tree). */
  maxEntries: number;
  /** Asked between folders: true stops the walk. */
  cancelled(): boolean;
}

export interface WalkResult {
  files: string[];
  /** The walk stopped at `maxFiles` or `maxEntries` before seeing everything. */
  truncated: boolean;
  cancelled: boolean;
}

/** Folders whose listings are read at once (their order of processing stays the queue's). */
const READ_AHEAD = 32;

/**
 * Walks `root` breadth-first (sorted within each folder), asynchronously so the server stays responsive; up to
 * {@link READ_AHEAD} folder listings are read concurrently and then processed in queue order, so the result is the
 * one a folder-by-folder walk gives.
 */
export async function workspaceFiles(root: string, opts: WalkOptions): Promise<WalkResult> {
  const files: string[] = [];
  const queue: string[] = [''];
  let entries = 0;
  for (let q = 0; q < queue.length; ) {
    if (opts.cancelled()) return { files, truncated: false, cancelled: true };
    const batch = queue.slice(q, q + READ_AHEAD);
    const listings = await Promise.all(batch.map((rel) => fs.promises.readdir(nodePath.join(root, rel), { withFileTypes: true }).catch(() => undefined)));
    for (let b = 0; b < batch.length; b++, q++) {
      const rel = batch[b]!;
      const dirents = listings[b];
      if (!dirents) continue; // unreadable folder: nothing to check in it
      dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const d of dirents) {
        if (++entries > opts.maxEntries) return { files, truncated: true, cancelled: false };
        const childRel = rel ? `${rel}/${d.name}` : d.name;
        if (d.isDirectory()) {
          if (SKIPPED_FOLDERS.has(d.name) || opts.ignored?.(childRel + '/')) continue;
          queue.push(childRel);
        } else if (d.isFile()) {
          // Dirent types come from lstat semantics: a symlink is neither a file nor a directory here.
          if (!opts.wanted(childRel) || opts.ignored?.(childRel)) continue;
          if (files.length >= opts.maxFiles) return { files, truncated: true, cancelled: false };
          files.push(nodePath.join(root, childRel));
        }
      }
    }
  }
  return { files, truncated: false, cancelled: false };
}
