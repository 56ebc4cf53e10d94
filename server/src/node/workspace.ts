/**
 * Node implementations of the core's workspace interfaces: a WorkspaceReader backed by the file system
 * and git (child_process with timeouts), and a writer that applies planned FileChanges atomically.
 */
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import type { WorkspaceReader } from '../core/types';
import type { FileChange, WorkspaceWriter } from '../core/agentJson/report/changes';
import { applyTextEdits } from '../core/agentJson/report/changes';
import { isInside, realLocation } from '../core/agentJson/report/paths';
import { decodeUtf8, sha256Hex } from '../core/agentJson/report/text';
import { MAX_INPUT_BYTES, entryTypeOf, isExecutableFile, liveFsView, looksLikeGitDir, readRegularFile, realpathOrUndefined } from './files';
import { git, gitHookDirs } from './git';
import { createFile, deleteFile, moveFile, realRoot, removeMadeDir, replaceFile } from './safeWrite';
import { errorMessage } from '../core/errors';

/** How long a "is this folder a git directory" answer is reused by a reader (lenses ask for every entry). */
const GIT_DIR_TTL_MS = 2000;

/** The top level of the git work tree holding `dir`, or undefined when there is none (or git is missing). */
export function findGitToplevel(dir: string): string | undefined {
  const out = git(dir, ['rev-parse', '--show-toplevel']);
  return out ? out.replace(/\r?\n$/, '') : undefined;
}

/**
 * A WorkspaceReader over the real file system. `openText` answers for open editor buffers (the
 * language server passes its document store; the CLI passes nothing). Only regular files are read
 * (never FIFOs or devices), and git runs with fsmonitor disabled and a timeout.
 */
export function createNodeWorkspace(root: string, openText: (absPath: string) => string | undefined = () => undefined): WorkspaceReader {
  const rootAbs = nodePath.resolve(root);
  const toplevels = new Map<string, string | undefined>();
  const toplevelOf = (dir: string): string | undefined => {
    if (!toplevels.has(dir)) toplevels.set(dir, findGitToplevel(dir));
    return toplevels.get(dir);
  };
  const gitDirs = new Map<string, { at: number; is: boolean }>();
  return {
    root: rootAbs,
    openText,
    readFile(absPath) {
      const r = readRegularFile(absPath, MAX_INPUT_BYTES);
      return r.ok ? r.bytes : undefined;
    },
    realpath: realpathOrUndefined,
    entryType: entryTypeOf,
    hookDirs: gitHookDirs,
    isExecutable: isExecutableFile,
    isGitDir(absPath) {
      const hit = gitDirs.get(absPath);
      const now = Date.now();
      if (hit && now - hit.at < GIT_DIR_TTL_MS) return hit.is;
      const is = looksLikeGitDir(absPath);
      if (gitDirs.size > 10000) gitDirs.clear();
      gitDirs.set(absPath, { at: now, is });
      return is;
    },
    gitState(absPath) {
      let real: string;
      let isDir: boolean;
      try {
        real = fs.realpathSync.native(absPath);
        isDir = fs.statSync(real).isDirectory();
      } catch {
        return undefined;
      }
      const top = toplevelOf(isDir ? real : nodePath.dirname(real));
      if (!top) return undefined;
      let topReal: string;
      try {
        topReal = fs.realpathSync.native(top);
      } catch {
        return undefined;
      }
      if (!isInside(topReal, real)) return undefined;
      const rel = nodePath.relative(topReal, real).split(nodePath.sep).join('/');
      const spec = `:(literal)${rel === '' ? '.' : rel}`;
      const tracked = git(topReal, ['ls-files', '-z', '--', spec]);
      const status = git(topReal, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--', spec]);
      if (tracked === undefined || status === undefined) return undefined;
      return { tracked: tracked.length > 0, clean: status.length === 0 };
    },
  };
}

type Undo = () => void;

/**
 * Applies planned changes under `root`, all or nothing. Every path is checked by the containment walk
 * when the plan is prepared and again, through server/src/node/safeWrite.ts, immediately before each
 * operation, which then runs on the verified folder: edits replace the file atomically only while it
 * still has the planned bytes, creates and moves never overwrite (a dangling symlink included), deletes
 * re-hash first. On a failure midway, what was done is undone (newest first).
 */
export function applyChangesNode(changes: readonly FileChange[], root: string): { ok: true } | { ok: false; reason: string } {
  const rootReal = realRoot(root);
  if (rootReal === undefined) return { ok: false, reason: 'the workspace root does not exist' };
  const rootAbs = nodePath.resolve(root);
  const lexicallyInside = (p: string) => nodePath.isAbsolute(p) && !p.includes('\0') && (isInside(rootAbs, p) || isInside(rootReal, p));
  const seen = new Set<string>();
  const prepared: { change: FileChange; bytes?: Buffer; original?: Buffer }[] = [];
  for (const c of changes) {
    const paths = c.type === 'rename' ? [c.from, c.to] : [c.absPath];
    for (const p of paths) {
      if (!lexicallyInside(p)) return { ok: false, reason: `${p} is outside the workspace` };
      const where = realLocation(p, nodePath.parse(p).root, rootReal, liveFsView, p);
      if (!where.ok) return { ok: false, reason: where.reason };
      if (seen.has(p)) return { ok: false, reason: `${p} is changed twice in one plan` };
      seen.add(p);
    }
    if (c.type === 'create') {
      if (entryTypeOf(c.absPath) !== undefined) return { ok: false, reason: `${c.absPath} already exists` };
      prepared.push({ change: c, bytes: Buffer.from(c.text, 'utf8') });
      continue;
    }
    const src = c.type === 'rename' ? c.from : c.absPath;
    if (c.type === 'rename' && entryTypeOf(c.to) !== undefined) return { ok: false, reason: `${c.to} already exists` };
    if (c.type === 'rename' && isExecutableFile(c.from)) return { ok: false, reason: `${c.from} is executable; an executable file is never moved` };
    if (c.type !== 'edit') {
      prepared.push({ change: c });
      continue;
    }
    const read = readRegularFile(src, MAX_INPUT_BYTES);
    if (!read.ok) return { ok: false, reason: `${src} ${read.reason}` };
    if (sha256Hex(read.bytes) !== c.baseSha256) return { ok: false, reason: `${src} changed since it was planned; re-run the check` };
    const text = decodeUtf8(read.bytes);
    if (text === undefined) return { ok: false, reason: `${src} is not UTF-8 text` };
    const sorted = [...c.edits].sort((a, b) => a.start - b.start);
    for (let k = 0; k < sorted.length; k++) {
      const e = sorted[k]!;
      if (!(Number.isSafeInteger(e.start) && Number.isSafeInteger(e.end) && 0 <= e.start && e.start <= e.end && e.end <= text.length)) return { ok: false, reason: 'an edit lies outside the file' };
      if (k > 0 && sorted[k - 1]!.end > e.start) return { ok: false, reason: 'edits overlap' };
    }
    prepared.push({ change: c, original: read.bytes, bytes: Buffer.from(applyTextEdits(text, c.edits), 'utf8') });
  }

  const order = { create: 0, edit: 1, rename: 2, delete: 3 } as const;
  prepared.sort((a, b) => order[a.change.type] - order[b.change.type]);
  const undo: Undo[] = [];
  const made: string[] = [];
  const undoMade = (from: number) => () => {
    for (const dir of made.splice(from).reverse()) removeMadeDir(rootReal, dir);
  };
  try {
    for (const p of prepared) {
      const c = p.change;
      if (c.type === 'create') {
        const before = made.length;
        try {
          createFile(rootReal, c.absPath, p.bytes!, made);
        } finally {
          if (made.length > before) undo.push(undoMade(before));
        }
        const created = p.bytes!;
        undo.push(() => void deleteFile(rootReal, c.absPath, sha256Hex(created)));
      } else if (c.type === 'rename') {
        const before = made.length;
        try {
          moveFile(rootReal, c.from, c.to, c.baseSha256, made);
        } finally {
          if (made.length > before) undo.push(undoMade(before));
        }
        undo.push(() => moveFile(rootReal, c.to, c.from, c.baseSha256, []));
      } else if (c.type === 'edit') {
        const target = realpathOrUndefined(c.absPath) ?? c.absPath;
        replaceFile(rootReal, target, c.baseSha256, p.bytes!);
        const written = p.bytes!;
        const original = p.original!;
        undo.push(() => replaceFile(rootReal, target, sha256Hex(written), original));
      } else {
        const gone = deleteFile(rootReal, c.absPath, c.baseSha256);
        undo.push(() => createFile(rootReal, c.absPath, gone.bytes, [], gone.mode));
      }
    }
    return { ok: true };
  } catch (e) {
    for (const u of undo.reverse()) {
      try {
        u();
      } catch {
        // best effort: keep undoing the rest
      }
    }
    return { ok: false, reason: errorMessage(e) };
  }
}

/** The Node writer for a workspace root. */
export function createNodeWriter(root: string): WorkspaceWriter {
  return { apply: (changes) => applyChangesNode(changes, root) };
}
