/**
 * Node implementations of the core's workspace interfaces: a WorkspaceReader backed by the file system
 * and git (child_process with timeouts), and a writer that applies planned FileChanges atomically.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { randomBytes } from 'node:crypto';
import type { WorkspaceReader } from '../core/types';
import type { FileChange, WorkspaceWriter } from '../core/report/changes';
import { applyTextEdits } from '../core/report/changes';
import { isInside } from '../core/report/paths';
import { decodeUtf8, sha256Hex } from '../core/report/text';

const GIT_TIMEOUT_MS = 5000;
/** Files larger than this are not read (a report never needs them; a huge read would stall the server). */
const MAX_READ_BYTES = 64 * 1024 * 1024;

function git(cwd: string, args: string[]): string | undefined {
  try {
    return execFileSync('git', ['-c', 'core.fsmonitor=false', '-c', 'core.quotepath=off', ...args], {
      cwd,
      encoding: 'utf8',
      timeout: GIT_TIMEOUT_MS,
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0' },
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch {
    return undefined;
  }
}

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
  return {
    root: rootAbs,
    openText,
    readFile(absPath) {
      try {
        const st = fs.statSync(absPath);
        if (!st.isFile() || st.size > MAX_READ_BYTES) return undefined;
        return fs.readFileSync(absPath);
      } catch {
        return undefined;
      }
    },
    realpath(absPath) {
      try {
        return fs.realpathSync.native(absPath);
      } catch {
        return undefined;
      }
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

function tempPathBeside(absPath: string): string {
  return nodePath.join(nodePath.dirname(absPath), `.${nodePath.basename(absPath)}.toonlens-${randomBytes(6).toString('hex')}.tmp`);
}

/** Creates `dest` with `data`, failing if anything (even a dangling symlink) is already there. */
function createExclusive(dest: string, data: Uint8Array, mode?: number): void {
  const tmp = tempPathBeside(dest);
  fs.writeFileSync(tmp, data, { flag: 'wx', mode });
  try {
    linkNoClobber(tmp, dest);
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/** Hard-links `from` to `to` (fails when `to` exists); falls back to an exclusive copy where links are unsupported. */
function linkNoClobber(from: string, to: string): void {
  try {
    fs.linkSync(from, to);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EXDEV' && code !== 'EOPNOTSUPP') throw e;
    fs.copyFileSync(from, to, fs.constants.COPYFILE_EXCL);
  }
}

function lstatOrUndefined(p: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(p);
  } catch {
    return undefined;
  }
}

/** Directories to create for `absPath`'s parent, outermost first, all inside the root. */
function missingParents(absPath: string): string[] {
  const out: string[] = [];
  let dir = nodePath.dirname(absPath);
  while (!lstatOrUndefined(dir)) {
    out.unshift(dir);
    const up = nodePath.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return out;
}

/**
 * Applies planned changes under `root`, all or nothing: every path is re-checked for containment
 * (symlinks included), every edited/deleted/renamed file is re-hashed against the plan, creates and
 * renames never overwrite, and edits are written to a temp file and renamed over the original. On a
 * failure midway, what was done is undone.
 */
export function applyChangesNode(changes: readonly FileChange[], root: string): { ok: true } | { ok: false; reason: string } {
  let rootReal: string;
  try {
    rootReal = fs.realpathSync.native(nodePath.resolve(root));
  } catch {
    return { ok: false, reason: 'the workspace root does not exist' };
  }
  const rootAbs = nodePath.resolve(root);
  // Containment: lexically inside the root, and the nearest existing ancestor really inside it.
  const contained = (p: string): boolean => {
    if (!nodePath.isAbsolute(p) || p.includes('\0') || (!isInside(rootAbs, p) && !isInside(rootReal, p))) return false;
    const rel = nodePath.relative(isInside(rootAbs, p) ? rootAbs : rootReal, p);
    if (rel.split(nodePath.sep).some((s) => s.toLowerCase() === '.git')) return false;
    let probe = p;
    for (;;) {
      try {
        return isInside(rootReal, fs.realpathSync.native(probe));
      } catch {
        const up = nodePath.dirname(probe);
        if (up === probe) return false;
        probe = up;
      }
    }
  };
  const regularFile = (p: string) => lstatOrUndefined(p)?.isFile() === true;
  const seen = new Set<string>();
  const prepared: { change: FileChange; bytes?: Buffer; original?: Buffer; mode?: number }[] = [];
  for (const c of changes) {
    const paths = c.type === 'rename' ? [c.from, c.to] : [c.absPath];
    for (const p of paths) {
      if (!contained(p)) return { ok: false, reason: `${p} is outside the workspace` };
      if (seen.has(p)) return { ok: false, reason: `${p} is changed twice in one plan` };
      seen.add(p);
    }
    if (c.type === 'create') {
      if (lstatOrUndefined(c.absPath)) return { ok: false, reason: `${c.absPath} already exists` };
      prepared.push({ change: c, bytes: Buffer.from(c.text, 'utf8') });
      continue;
    }
    const src = c.type === 'rename' ? c.from : c.absPath;
    if (!regularFile(src)) return { ok: false, reason: `${src} is not a regular file` };
    if (c.type === 'rename' && lstatOrUndefined(c.to)) return { ok: false, reason: `${c.to} already exists` };
    const original = fs.readFileSync(src);
    if (sha256Hex(original) !== c.baseSha256) return { ok: false, reason: `${src} changed since it was planned; re-run the check` };
    if (c.type === 'edit') {
      const text = decodeUtf8(original);
      if (text === undefined) return { ok: false, reason: `${src} is not UTF-8 text` };
      const sorted = [...c.edits].sort((a, b) => a.start - b.start);
      for (let k = 0; k < sorted.length; k++) {
        const e = sorted[k]!;
        if (!(Number.isSafeInteger(e.start) && Number.isSafeInteger(e.end) && 0 <= e.start && e.start <= e.end && e.end <= text.length)) return { ok: false, reason: 'an edit lies outside the file' };
        if (k > 0 && sorted[k - 1]!.end > e.start) return { ok: false, reason: 'edits overlap' };
      }
      prepared.push({ change: c, original, bytes: Buffer.from(applyTextEdits(text, c.edits), 'utf8'), mode: fs.statSync(src).mode & 0o7777 });
    } else {
      prepared.push({ change: c, original });
    }
  }

  const order = { create: 0, edit: 1, rename: 2, delete: 3 } as const;
  prepared.sort((a, b) => order[a.change.type] - order[b.change.type]);
  const undo: Undo[] = [];
  try {
    for (const p of prepared) {
      const c = p.change;
      if (c.type === 'create' || c.type === 'rename') {
        const dest = c.type === 'create' ? c.absPath : c.to;
        for (const dir of missingParents(dest)) {
          fs.mkdirSync(dir);
          undo.push(() => fs.rmdirSync(dir));
        }
        if (!contained(dest)) throw new Error(`${dest} is outside the workspace`);
        if (c.type === 'create') {
          createExclusive(dest, p.bytes!);
          undo.push(() => fs.rmSync(dest, { force: true }));
        } else {
          if (sha256Hex(fs.readFileSync(c.from)) !== c.baseSha256) throw new Error(`${c.from} changed during the apply`);
          linkNoClobber(c.from, c.to);
          fs.unlinkSync(c.from);
          undo.push(() => {
            linkNoClobber(c.to, c.from);
            fs.unlinkSync(c.to);
          });
        }
      } else if (c.type === 'edit') {
        const tmp = tempPathBeside(c.absPath);
        fs.writeFileSync(tmp, p.bytes!, { flag: 'wx', mode: p.mode });
        if (sha256Hex(fs.readFileSync(c.absPath)) !== c.baseSha256) {
          fs.rmSync(tmp, { force: true });
          throw new Error(`${c.absPath} changed during the apply`);
        }
        fs.renameSync(tmp, c.absPath);
        undo.push(() => {
          const back = tempPathBeside(c.absPath);
          fs.writeFileSync(back, p.original!, { flag: 'wx', mode: p.mode });
          fs.renameSync(back, c.absPath);
        });
      } else {
        if (sha256Hex(fs.readFileSync(c.absPath)) !== c.baseSha256) throw new Error(`${c.absPath} changed during the apply`);
        fs.unlinkSync(c.absPath);
        undo.push(() => createExclusive(c.absPath, p.original!));
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
    return { ok: false, reason: e instanceof Error ? e.message : String(e) };
  }
}

/** The Node writer for a workspace root. */
export function createNodeWriter(root: string): WorkspaceWriter {
  return { apply: (changes) => applyChangesNode(changes, root) };
}
