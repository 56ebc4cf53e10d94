/**
 * The one place ToonLens writes files (report edits through `apply`, `check --fix`): every operation is
 * verified immediately before it runs and then performed on what was verified.
 *
 * - Containment: the folder an operation touches is resolved (every component) and must be inside the
 *   workspace root, outside every git directory (`.git` in any spelling, or a folder holding HEAD,
 *   objects/ and refs/), and not behind a dangling symlink (core/agentJson/report/paths.ts `realLocation`).
 * - Operate on what was verified: on Linux the folder is then opened component by component from the
 *   root with O_NOFOLLOW|O_DIRECTORY (a folder swapped for a symlink in between makes the open fail),
 *   its descriptor's real path is compared with the verified one, and every operation goes through that
 *   descriptor (`/proc/self/fd/N/name`), so no later swap of any ancestor can redirect it. Files are
 *   opened with O_NOFOLLOW; where /proc is missing, each component is lstat-checked right before use.
 * - Replacing a file: the bytes on disk are re-hashed right before the rename and must still be the ones
 *   the edit was planned against (a concurrent edit → refused, nothing lost). A save that lands in the
 *   last instant is detected on the old inode afterwards and that inode is put back under its name through a
 *   hard link made before the rename (its bytes are never copied: they may be half of a save). The temp file is created in the
 *   same folder with O_CREAT|O_EXCL|O_NOFOLLOW and a crypto-random name, gets the file's mode (and owner
 *   when running as root), is fsynced, then renamed over the file. A symlinked file is written through
 *   to its target (which is verified like any path). Read-only files are refused; files with several hard
 *   links are refused (a rename would split them, an in-place write would change the other names too,
 *   possibly outside the workspace).
 * - Temp files are removed on every failure path (a failed write, disk full, a refused re-check), and
 *   on SIGINT/SIGTERM/SIGHUP and process exit; only `kill -9` can leave one (named `.NAME.toonlens-HEX.tmp`, or
 *   `.NAME.toonlens-HEX.bak` for the second name of the file being replaced).
 */
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { randomBytes, createHash } from 'node:crypto';
import { describeEntryType, isGitSegment, realLocation } from '../core/agentJson/report/paths';
import { entryTypeOfStats, liveFsView, realpathOrUndefined } from './files';

/** A refusal or failure of a verified write; its message is one line for the user. */
export class WriteRefused extends Error {}

const sha256Hex = (data: Uint8Array): string => createHash('sha256').update(data).digest('hex');
const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const O_DIRECTORY = fs.constants.O_DIRECTORY ?? 0;
const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0;

/** Whether directory descriptors can be used as paths (`/proc/self/fd/N/...`, Linux). */
const PROC_FD: boolean = (() => {
  if (process.platform !== 'linux') return false;
  try {
    const fd = fs.openSync('/', fs.constants.O_RDONLY | O_DIRECTORY);
    try {
      return fs.readlinkSync(`/proc/self/fd/${fd}`) === '/';
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return false;
  }
})();

/** Test seam: called at named points of an operation (a test makes a concurrent change there). */
export const writeHooks: {
  beforeRename?: (realPath: string) => void;
  /** After the last check, right before the rename. */
  beforeSwap?: (realPath: string) => void;
  /** Right after the rename, before the replaced file is looked at again. */
  afterSwap?: (realPath: string) => void;
  beforeOpenDir?: (realDir: string) => void;
} = {};

// ───────────── temp files: always removed ─────────────

const liveTemps = new Set<string>();
let cleanupInstalled = false;

function removeLiveTemps(): void {
  for (const t of liveTemps) {
    try {
      fs.unlinkSync(t);
    } catch {
      // already gone
    }
  }
  liveTemps.clear();
}

/** On SIGINT/SIGTERM/SIGHUP (and exit) the temp files still alive are removed, then the signal kills as usual. */
function installCleanup(): void {
  if (cleanupInstalled) return;
  cleanupInstalled = true;
  process.on('exit', removeLiveTemps);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = () => {
      removeLiveTemps();
      for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.removeListener(s, handlers[s]!);
      process.kill(process.pid, sig);
    };
    handlers[sig] = onSignal;
    process.on(sig, onSignal);
  }
}
const handlers: Partial<Record<NodeJS.Signals, () => void>> = {};

// ───────────── verified folders ─────────────

/** An open, verified folder: operations address entries as `at(name)`. */
interface Dir {
  /** Real path the folder had when verified. */
  readonly real: string;
  at(name: string): string;
  close(): void;
}

function errCode(e: unknown): string {
  return (e as NodeJS.ErrnoException)?.code ?? String(e);
}

function checkName(name: string, where: string): void {
  if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\0')) throw new WriteRefused(`${where}: invalid file name`);
  if (isGitSegment(name)) throw new WriteRefused(`${where} is inside .git (repository internals are never edited)`);
}

/**
 * Verifies `dirAbs` (containment, .git, dangling symlinks) and opens it; missing folders are created
 * when `made` is given (their real paths are pushed, outermost first). Throws WriteRefused.
 */
function openVerifiedDir(rootReal: string, dirAbs: string, made?: string[]): Dir {
  const where = realLocation(dirAbs, nodePath.parse(dirAbs).root, rootReal, liveFsView, dirAbs);
  if (!where.ok) throw new WriteRefused(where.reason);
  if (where.missing.length > 0 && !made) throw new WriteRefused(`${dirAbs} does not exist`);
  const rel = nodePath.relative(rootReal, where.existingReal);
  const segments = [...(rel === '' ? [] : rel.split(nodePath.sep)), ...where.missing];
  writeHooks.beforeOpenDir?.(where.existingReal);
  return PROC_FD ? walkWithDescriptors(rootReal, segments, dirAbs, made) : walkWithLstat(rootReal, segments, dirAbs, made);
}

function walkWithDescriptors(rootReal: string, segments: string[], dirAbs: string, made?: string[]): Dir {
  let fd = fs.openSync(rootReal, fs.constants.O_RDONLY | O_DIRECTORY);
  let real = rootReal;
  try {
    if (fs.readlinkSync(`/proc/self/fd/${fd}`) !== rootReal) throw new WriteRefused(`the workspace root ${rootReal} moved during the write`);
    for (const seg of segments) {
      checkName(seg, dirAbs);
      const next = `/proc/self/fd/${fd}/${seg}`;
      let child: number;
      try {
        child = fs.openSync(next, fs.constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
      } catch (e) {
        const code = errCode(e);
        if (code === 'ENOENT' && made) {
          fs.mkdirSync(next);
          made.push(nodePath.join(real, seg));
          child = fs.openSync(next, fs.constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
        } else if (code === 'ELOOP' || code === 'ENOTDIR') {
          throw new WriteRefused(`${nodePath.join(real, seg)} is no longer a folder (a symlink or file was put there); nothing written there`);
        } else throw new WriteRefused(`${nodePath.join(real, seg)}: ${code}`);
      }
      fs.closeSync(fd);
      fd = child;
      real = nodePath.join(real, seg);
    }
    const now = fs.readlinkSync(`/proc/self/fd/${fd}`);
    if (now !== real) throw new WriteRefused(`${real} moved during the write (now ${now}); nothing written there`);
  } catch (e) {
    fs.closeSync(fd);
    throw e;
  }
  const dirFd = fd;
  return { real, at: (name) => `/proc/self/fd/${dirFd}/${name}`, close: () => fs.closeSync(dirFd) };
}

/** Without descriptor paths: every component is lstat-checked (a real folder, no symlink) right before use. */
function walkWithLstat(rootReal: string, segments: string[], dirAbs: string, made?: string[]): Dir {
  let real = rootReal;
  for (const seg of segments) {
    checkName(seg, dirAbs);
    const next = nodePath.join(real, seg);
    let st: fs.Stats | undefined;
    try {
      st = fs.lstatSync(next);
    } catch {
      st = undefined;
    }
    if (!st && made) {
      fs.mkdirSync(next);
      made.push(next);
      st = fs.lstatSync(next);
    }
    if (!st || !st.isDirectory()) throw new WriteRefused(`${next} is no longer a folder (a symlink or file was put there); nothing written there`);
    real = next;
  }
  const dir = real;
  return { real: dir, at: (name) => nodePath.join(dir, name), close: () => undefined };
}

function withDir<T>(rootReal: string, dirAbs: string, made: string[] | undefined, fn: (d: Dir) => T): T {
  const d = openVerifiedDir(rootReal, dirAbs, made);
  try {
    return fn(d);
  } finally {
    d.close();
  }
}

// ───────────── files ─────────────

/** An open regular file in a verified folder (never a symlink), with its stats. */
interface OpenFile {
  fd: number;
  st: fs.Stats;
}

function openExisting(d: Dir, name: string, label: string): OpenFile {
  let fd: number;
  try {
    fd = fs.openSync(d.at(name), fs.constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (e) {
    const code = errCode(e);
    if (code === 'ENOENT') throw new WriteRefused(`${label} does not exist`);
    if (code === 'ELOOP') throw new WriteRefused(`${label} is a symlink; not written through`);
    if (code === 'ENXIO') throw new WriteRefused(`${label} is a socket, not a regular file`);
    throw new WriteRefused(`${label}: ${code}`);
  }
  const st = fs.fstatSync(fd);
  if (!st.isFile()) {
    fs.closeSync(fd);
    throw new WriteRefused(`${label} is ${describeEntryType(entryTypeOfStats(st))}, not a regular file`);
  }
  return { fd, st };
}

function readAll(fd: number): Buffer {
  const chunks: Buffer[] = [];
  let pos = 0;
  for (;;) {
    const b = Buffer.allocUnsafe(1 << 20);
    const n = fs.readSync(fd, b, 0, b.length, pos);
    if (n === 0) break;
    chunks.push(b.subarray(0, n));
    pos += n;
  }
  return Buffer.concat(chunks);
}

function sameEntry(d: Dir, name: string, st: fs.Stats): boolean {
  try {
    const now = fs.lstatSync(d.at(name));
    return now.ino === st.ino && now.dev === st.dev;
  } catch {
    return false;
  }
}

/** Writes `bytes` to a new temp file beside `name` (O_EXCL, O_NOFOLLOW, random name), fsynced; returns its name. */
function writeTemp(d: Dir, name: string, bytes: Uint8Array, like?: { mode: number; uid?: number; gid?: number }): string {
  installCleanup();
  const tmp = `.${name.length > 100 ? name.slice(0, 100) : name}.toonlens-${randomBytes(8).toString('hex')}.tmp`;
  const fd = fs.openSync(d.at(tmp), fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | O_NOFOLLOW, like ? 0o600 : 0o666);
  const tracked = nodePath.join(d.real, tmp);
  liveTemps.add(tracked);
  try {
    try {
      let off = 0;
      while (off < bytes.length) off += fs.writeSync(fd, bytes, off, bytes.length - off);
      if (like) {
        fs.fchmodSync(fd, like.mode & 0o7777);
        if (process.getuid?.() === 0 && like.uid !== undefined && like.gid !== undefined) {
          try {
            fs.fchownSync(fd, like.uid, like.gid);
          } catch {
            // keeping the owner is best effort
          }
        }
      }
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch (e) {
    dropTemp(d, tmp, tracked);
    throw new WriteRefused(`cannot write a temp file beside ${nodePath.join(d.real, name)}: ${errCode(e)}; nothing written`);
  }
  return tmp;
}

function dropTemp(d: Dir, tmp: string, tracked = nodePath.join(d.real, tmp)): void {
  try {
    fs.unlinkSync(d.at(tmp));
  } catch {
    // gone already
  }
  liveTemps.delete(tracked);
}

function refuseUnwritable(st: fs.Stats, label: string): void {
  if ((st.mode & 0o222) === 0) throw new WriteRefused(`${label} is read-only; not changed`);
  if (st.nlink > 1) throw new WriteRefused(`${label} has ${st.nlink} hard links; not changed (replacing it would split them, writing in place would change every name, possibly outside the workspace)`);
}

/** A second name for the file `name` (a hard link beside it, tracked like a temp file), or undefined where links are not supported. */
function linkBackup(d: Dir, name: string, st: fs.Stats, label: string): string | undefined {
  installCleanup();
  const backup = `.${name.length > 100 ? name.slice(0, 100) : name}.toonlens-${randomBytes(8).toString('hex')}.bak`;
  try {
    fs.linkSync(d.at(name), d.at(backup));
  } catch (e) {
    const code = errCode(e);
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'EXDEV' || code === 'EMLINK' || code === 'ENOSYS') return undefined;
    throw new WriteRefused(`cannot replace ${label}: ${code}; nothing written`);
  }
  liveTemps.add(nodePath.join(d.real, backup));
  // The name may have been swapped between the last check and the link: the backup must be the checked file.
  if (!sameEntry(d, backup, st)) {
    dropTemp(d, backup);
    throw new WriteRefused(`${label} was replaced during the write; nothing written`);
  }
  return backup;
}

/** Whether the open file still has the size and the bytes it was checked with. */
function unchangedSince(fd: number, st: fs.Stats, baseSha256: string): boolean {
  return fs.fstatSync(fd).size === st.size && sha256Hex(readAll(fd)) === baseSha256;
}

/**
 * Replaces the file at `absPath` (a symlinked file: its target) with `bytes`, only while its bytes still
 * hash to `baseSha256`. Throws WriteRefused on any doubt; then nothing was changed and no temp file is left.
 *
 * Another program saving the file in place (an editor that opens it with O_TRUNC and writes it in chunks) may be
 * halfway through its save at any moment. Its bytes are never copied: right before the rename the checked file gets
 * a second name (a hard link), and when it changed after all (a save that began in the last instant), that name is
 * renamed back, so the file the other program is writing is the file again and its save completes there.
 */
export function replaceFile(rootReal: string, absPath: string, baseSha256: string, bytes: Uint8Array): void {
  const target = realpathOrUndefined(absPath);
  if (target === undefined) throw new WriteRefused(`${absPath} does not exist`);
  const name = nodePath.basename(target);
  checkName(name, absPath);
  withDir(rootReal, nodePath.dirname(target), undefined, (d) => {
    const label = nodePath.join(d.real, name);
    const f = openExisting(d, name, label);
    try {
      refuseUnwritable(f.st, label);
      if (sha256Hex(readAll(f.fd)) !== baseSha256) throw new WriteRefused(`${label} changed since it was planned; nothing written (re-run)`);
      const tmp = writeTemp(d, name, bytes, f.st);
      let backup: string | undefined;
      try {
        writeHooks.beforeRename?.(label);
        // The last check, right before the rename: same file, same bytes.
        if (!sameEntry(d, name, f.st)) throw new WriteRefused(`${label} was replaced during the write; nothing written`);
        if (!unchangedSince(f.fd, f.st, baseSha256)) throw new WriteRefused(`${label} changed during the write; nothing written, the other change is kept`);
        backup = linkBackup(d, name, f.st, label);
        writeHooks.beforeSwap?.(label);
        fs.renameSync(d.at(tmp), d.at(name));
        liveTemps.delete(nodePath.join(d.real, tmp));
      } catch (e) {
        dropTemp(d, tmp);
        if (backup) dropTemp(d, backup);
        throw e instanceof WriteRefused ? e : new WriteRefused(`cannot replace ${label}: ${errCode(e)}; nothing written`);
      }
      writeHooks.afterSwap?.(label);
      // A save that reached the replaced file between the last check and the rename: that file goes back under
      // its name, as it is (whatever its writer still writes lands there), and this edit is not applied.
      if (!unchangedSince(f.fd, f.st, baseSha256)) {
        if (backup) {
          fs.renameSync(d.at(backup), d.at(name));
          liveTemps.delete(nodePath.join(d.real, backup));
          throw new WriteRefused(`${label} changed during the write; the other change was kept and this edit not applied`);
        }
        throw new WriteRefused(`${label} changed during the write, on a file system without hard links: this edit is applied and the other program's save went to the replaced file (save it there again)`);
      }
      if (backup) dropTemp(d, backup);
    } finally {
      fs.closeSync(f.fd);
    }
  });
}

/** Creates `absPath` with `bytes` (and the folders it needs, pushed to `made`), never over anything already there. */
export function createFile(rootReal: string, absPath: string, bytes: Uint8Array, made: string[], mode?: number): void {
  const name = nodePath.basename(absPath);
  checkName(name, absPath);
  withDir(rootReal, nodePath.dirname(absPath), made, (d) => {
    const label = nodePath.join(d.real, name);
    const tmp = writeTemp(d, name, bytes, mode !== undefined ? { mode } : undefined);
    try {
      try {
        fs.linkSync(d.at(tmp), d.at(name));
      } catch (e) {
        const code = errCode(e);
        if (code === 'EEXIST') throw new WriteRefused(`${label} already exists; not overwritten`);
        if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EXDEV') throw new WriteRefused(`cannot create ${label}: ${code}`);
        try {
          fs.copyFileSync(d.at(tmp), d.at(name), fs.constants.COPYFILE_EXCL);
        } catch (e2) {
          throw new WriteRefused(errCode(e2) === 'EEXIST' ? `${label} already exists; not overwritten` : `cannot create ${label}: ${errCode(e2)}`);
        }
      }
    } finally {
      dropTemp(d, tmp);
    }
  });
}

/**
 * Opens the regular file `absPath` (never a symlink) in its verified folder and runs `fn` while its
 * bytes still hash to `baseSha256` and it is writable; `verb` words the refusals ("not deleted").
 */
function withPlannedFile<T>(rootReal: string, absPath: string, baseSha256: string, verb: string, fn: (d: Dir, name: string, f: OpenFile, bytes: Buffer, label: string) => T): T {
  const name = nodePath.basename(absPath);
  checkName(name, absPath);
  return withDir(rootReal, nodePath.dirname(absPath), undefined, (d) => {
    const label = nodePath.join(d.real, name);
    const f = openExisting(d, name, label);
    try {
      if ((f.st.mode & 0o222) === 0) throw new WriteRefused(`${label} is read-only; ${verb}`);
      const bytes = readAll(f.fd);
      if (sha256Hex(bytes) !== baseSha256) throw new WriteRefused(`${label} changed since it was planned; ${verb}`);
      return fn(d, name, f, bytes, label);
    } finally {
      fs.closeSync(f.fd);
    }
  });
}

/** Deletes the regular file `absPath` (never a symlink) while its bytes hash to `baseSha256`; returns them and its mode. */
export function deleteFile(rootReal: string, absPath: string, baseSha256: string): { bytes: Buffer; mode: number } {
  return withPlannedFile(rootReal, absPath, baseSha256, 'not deleted', (d, name, f, bytes, label) => {
    if (!sameEntry(d, name, f.st)) throw new WriteRefused(`${label} was replaced during the delete; not deleted`);
    fs.unlinkSync(d.at(name));
    return { bytes, mode: f.st.mode & 0o7777 };
  });
}

/** Moves the regular file `from` to `to` (never over anything; folders created and pushed to `made`) while `from` hashes to `baseSha256`. */
export function moveFile(rootReal: string, from: string, to: string, baseSha256: string, made: string[]): void {
  const toName = nodePath.basename(to);
  checkName(toName, to);
  withPlannedFile(rootReal, from, baseSha256, 'not moved', (src, fromName, f, _bytes, label) => {
    withDir(rootReal, nodePath.dirname(to), made, (dst) => {
      const destLabel = nodePath.join(dst.real, toName);
      try {
        fs.linkSync(src.at(fromName), dst.at(toName));
      } catch (e) {
        const code = errCode(e);
        if (code === 'EEXIST') throw new WriteRefused(`${destLabel} already exists; not overwritten`);
        throw new WriteRefused(`cannot move ${label} to ${destLabel}: ${code}`);
      }
      if (!sameEntry(dst, toName, f.st) || !sameEntry(src, fromName, f.st)) {
        try {
          fs.unlinkSync(dst.at(toName));
        } catch {
          // best effort
        }
        throw new WriteRefused(`${label} was replaced during the move; not moved`);
      }
      fs.unlinkSync(src.at(fromName));
    });
  });
}

/** Removes a folder this writer created (undo), only when it is empty. */
export function removeMadeDir(rootReal: string, dirReal: string): void {
  const name = nodePath.basename(dirReal);
  withDir(rootReal, nodePath.dirname(dirReal), undefined, (d) => fs.rmdirSync(d.at(name)));
}

/**
 * The write-time check for a path the editor will write (a WorkspaceEdit the server sends): the same
 * containment walk, right now. For `mustNotExist` paths (create / rename destinations) anything already
 * there — a dangling symlink included — is refused. Returns the verified real path to address
 * (the file's real path when it exists, else its real folder + name), or a one-line reason.
 */
export function verifyWriteTarget(
  rootReal: string,
  absPath: string,
  opts: { mustNotExist?: boolean; followFinalSymlink?: boolean; /** its content is replaced (an edit): hard links refused too */ replacesContent?: boolean } = {},
): { ok: true; real: string } | { ok: false; reason: string } {
  const name = nodePath.basename(absPath);
  if (isGitSegment(name)) return { ok: false, reason: `${absPath} is inside .git (repository internals are never edited)` };
  let st: fs.Stats | undefined;
  try {
    st = fs.lstatSync(absPath);
  } catch {
    st = undefined;
  }
  if (opts.mustNotExist && st) return { ok: false, reason: `${absPath} already exists${st.isSymbolicLink() ? ' (a symlink)' : ''}; not overwritten` };
  if (st?.isSymbolicLink() && !opts.followFinalSymlink) return { ok: false, reason: `${absPath} is a symlink; not written through` };
  const where = realLocation(absPath, nodePath.parse(absPath).root, rootReal, liveFsView, absPath);
  if (!where.ok) return where;
  if (where.real !== undefined) {
    const t = fs.statSync(where.real);
    if (!t.isFile()) return { ok: false, reason: `${absPath} is ${describeEntryType(entryTypeOfStats(t))}, not a regular file` };
    // What the CLI's writer refuses, the editor is not asked to do either.
    if ((t.mode & 0o222) === 0) return { ok: false, reason: `${absPath} is read-only; not changed` };
    if (opts.replacesContent && t.nlink > 1) return { ok: false, reason: `${absPath} has ${t.nlink} hard links; not changed (writing it would change every name, possibly outside the workspace)` };
    return { ok: true, real: where.real };
  }
  return { ok: true, real: nodePath.join(where.existingReal, ...where.missing) };
}

/** The real path of a folder used as a write root, or undefined when it is not an existing folder. */
export function realRoot(root: string): string | undefined {
  const real = realpathOrUndefined(nodePath.resolve(root));
  if (real === undefined) return undefined;
  try {
    return fs.statSync(real).isDirectory() ? real : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Writes a file the user named (`--out`): atomically (random O_EXCL temp in the same folder, fsync,
 * rename), through a symlinked file to its target, keeping an existing file's mode, refusing what is
 * not a regular file (`--out /dev/null` is never replaced by a file), a read-only file, a file with
 * several hard links and a dangling symlink. No containment root: the user chose the path.
 */
export function writeOutputFile(absPath: string, bytes: Uint8Array): void {
  const lst = (() => {
    try {
      return fs.lstatSync(absPath);
    } catch {
      return undefined;
    }
  })();
  const target = lst ? realpathOrUndefined(absPath) : absPath;
  if (target === undefined) throw new WriteRefused(`${absPath} is a dangling symlink; not written through`);
  const name = nodePath.basename(target);
  const dirReal = realpathOrUndefined(nodePath.dirname(target));
  if (dirReal === undefined) throw new WriteRefused(`the folder ${nodePath.dirname(target)} does not exist`);
  const d: Dir = { real: dirReal, at: (n) => nodePath.join(dirReal, n), close: () => undefined };
  let like: { mode: number; uid: number; gid: number } | undefined;
  if (lst) {
    const f = openExisting(d, name, absPath);
    try {
      refuseUnwritable(f.st, absPath);
      like = { mode: f.st.mode & 0o7777, uid: f.st.uid, gid: f.st.gid };
    } finally {
      fs.closeSync(f.fd);
    }
  }
  const tmp = writeTemp(d, name, bytes, like);
  try {
    fs.renameSync(d.at(tmp), d.at(name));
    liveTemps.delete(nodePath.join(d.real, tmp));
  } catch (e) {
    dropTemp(d, tmp);
    throw new WriteRefused(`cannot write ${absPath}: ${errCode(e)}`);
  }
}
