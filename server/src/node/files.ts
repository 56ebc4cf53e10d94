/**
 * Reading files safely, for every CLI command and the server's workspace reads: only regular files
 * within a size limit are read. The file is opened first (non-blocking, so a FIFO cannot hang the open)
 * and then checked with fstat on the open descriptor, so a path swapped between a check and the read
 * cannot turn into /dev/zero, a FIFO or a directory. Reads never grow past the limit even when the file
 * grows while it is read.
 */
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EntryType } from '../core/types';
import { describeEntryType, type FsView } from '../core/agentJson/report/paths';
import { gitHookDirs } from './git';

/** Absolute file-system path of a `file:` URI; undefined for other schemes (untitled, git, …) and malformed ones. */
export function fsPathOf(uri: string): string | undefined {
  if (!uri.startsWith('file:')) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}

/** Default limit for inputs (the server's and `check`'s document limit, with room for a BOM or a few edits). */
export const MAX_INPUT_BYTES = 64 * 1024 * 1024;

export type ReadResult = { ok: true; bytes: Buffer; size: number } | { ok: false; reason: string; code: ReadFailure; /** too-large: the size and the first 64 KB */ size?: number; head?: Buffer };
export type ReadFailure = 'missing' | 'not-regular' | 'too-large' | 'io';

export function entryTypeOfStats(st: fs.Stats): EntryType {
  if (st.isFile()) return 'file';
  if (st.isDirectory()) return 'directory';
  if (st.isSymbolicLink()) return 'symlink';
  if (st.isFIFO()) return 'fifo';
  if (st.isSocket()) return 'socket';
  if (st.isCharacterDevice()) return 'character device';
  if (st.isBlockDevice()) return 'block device';
  return 'unknown';
}

/** lstat's answer about the path itself (a symlink is 'symlink'), undefined when nothing is there. */
export function entryTypeOf(absPath: string): EntryType | undefined {
  try {
    return entryTypeOfStats(fs.lstatSync(absPath));
  } catch {
    return undefined;
  }
}

const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0;

function mb(bytes: number): string {
  const v = bytes / (1024 * 1024);
  return `${Number.isInteger(v) ? v : v.toFixed(1)} MB`;
}

/**
 * Reads a regular file (symlinks to one are followed) of at most `maxBytes`. Anything else — missing,
 * a directory, a FIFO, a device, a socket, a larger file — is a failure with a one-line reason such as
 * "is a FIFO (named pipe), not a regular file". Never blocks on a FIFO, never reads past the limit.
 */
export function readRegularFile(absPath: string, maxBytes: number = MAX_INPUT_BYTES): ReadResult {
  let fd: number;
  try {
    fd = fs.openSync(absPath, fs.constants.O_RDONLY | O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { ok: false, code: 'missing', reason: 'does not exist' };
    if (code === 'EISDIR') return { ok: false, code: 'not-regular', reason: 'is a directory, not a regular file' };
    if (code === 'ENXIO') return { ok: false, code: 'not-regular', reason: 'is a socket, not a regular file' };
    if (code === 'ELOOP') return { ok: false, code: 'io', reason: 'is a symlink loop' };
    if (code === 'ENOTDIR') return { ok: false, code: 'missing', reason: 'does not exist (a parent is not a directory)' };
    return { ok: false, code: 'io', reason: `cannot be read (${code ?? String(e)})` };
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return { ok: false, code: 'not-regular', reason: `is ${describeEntryType(entryTypeOfStats(st))}, not a regular file` };
    if (st.size > maxBytes) {
      const head = Buffer.alloc(Math.min(65536, st.size));
      const n = fs.readSync(fd, head, 0, head.length, 0);
      return { ok: false, code: 'too-large', reason: `is ${mb(st.size)}, over the ${mb(maxBytes)} limit`, size: st.size, head: head.subarray(0, n) };
    }
    // Read at most maxBytes + 1: a file that grew past the limit while being read is refused, not read forever.
    const cap = Math.min(maxBytes + 1, Math.max(st.size, 64 * 1024));
    let buf = Buffer.allocUnsafe(Math.max(1, Math.min(cap, st.size + 1)));
    let len = 0;
    for (;;) {
      if (len === buf.length) {
        if (buf.length >= maxBytes + 1) break;
        const bigger = Buffer.allocUnsafe(Math.min(maxBytes + 1, buf.length * 2));
        buf.copy(bigger, 0, 0, len);
        buf = bigger;
      }
      let n: number;
      try {
        n = fs.readSync(fd, buf, len, buf.length - len, null);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EAGAIN') continue;
        throw e;
      }
      if (n === 0) break;
      len += n;
    }
    if (len > maxBytes) return { ok: false, code: 'too-large', reason: `grew past the ${mb(maxBytes)} limit while being read` };
    return { ok: true, bytes: buf.subarray(0, len), size: len };
  } catch (e) {
    return { ok: false, code: 'io', reason: `cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)})` };
  } finally {
    fs.closeSync(fd);
  }
}

/** readRegularFile as UTF-8 text (a BOM is kept). */
export function readRegularText(absPath: string, maxBytes: number = MAX_INPUT_BYTES): { ok: true; text: string } | { ok: false; reason: string; code: ReadFailure } {
  const r = readRegularFile(absPath, maxBytes);
  return r.ok ? { ok: true, text: r.bytes.toString('utf8') } : r;
}

export function realpathOrUndefined(absPath: string): string | undefined {
  try {
    return fs.realpathSync.native(absPath);
  } catch {
    return undefined;
  }
}

/** Whether `dir` is a git directory by its contents (HEAD file, objects/ and refs/ folders), whatever its name. */
export function looksLikeGitDir(dir: string): boolean {
  const is = (name: string, type: EntryType) => entryTypeOf(nodePath.join(dir, name)) === type;
  return is('HEAD', 'file') && is('objects', 'directory') && is('refs', 'directory');
}

/** Whether the file (symlinks followed) is a regular file with any execute bit set. */
export function isExecutableFile(absPath: string): boolean {
  try {
    const st = fs.statSync(absPath);
    return st.isFile() && (st.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

/** The live file system as the containment walk sees it (no caching: the writer checks right before each operation). */
export const liveFsView: FsView = { realpath: realpathOrUndefined, entryType: entryTypeOf, isGitDir: looksLikeGitDir, hookDirs: gitHookDirs };
