/**
 * The originals Convert replaced, kept per workspace folder so that exact Revert works in a later window of the
 * same folder and never in another one (docs/safety.md, "The originals store").
 *
 * - One store per workspace folder, named by the folder's real path: the file
 *   `<storage>/revert-originals/<sha256 of the real path>.jsonl` (a header line naming the real path, then one
 *   `[fenceKey, heading, original]` line per record, least recently used first). The client hands the extension's
 *   global storage folder, which stays the same for every window, so a folder reopened in a new window finds its
 *   originals; another folder has another file, and a file whose header names another path is not read.
 * - Bounded: a workspace keeps at most {@link ORIGINALS_LIMITS}.records records and .bytes bytes (the least recently
 *   used go first, in memory and on disk alike), and the folder holds at most .workspaces files and .totalBytes
 *   bytes (the least recently written workspace files go first). A record larger than the byte cap is not kept.
 * - Written in the background: after a put the workspace's file is rewritten (temp file, then rename) in turns of
 *   at most {@link WRITE_TURN_MS}, with the event loop free between them; records another window wrote meanwhile
 *   are merged in first. `flush` writes at once (the server calls it on shutdown).
 * - Any I/O failure degrades to memory: Revert stays exact for the session, and one warning says so.
 * - A document in no workspace folder gets a store in memory only.
 *
 * What may be put is decided by the caller (features/markdown/convert.ts: only Convert's own edits).
 */
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import type { OriginalRecord, OriginalsStore } from '../core/markdown/revert';
import { errorMessage } from '../core/errors';

const KEY = /^[0-9a-f]{64}$/;
const HEADER = 'toonlens-originals';

/** How long one turn of background writes may hold the event loop. */
export const WRITE_TURN_MS = 15;

/** The bounds of the store (docs/safety.md lists them). */
export const ORIGINALS_LIMITS = {
  /** Records per workspace folder. */
  records: 10_000,
  /** Bytes of one workspace folder's file (and of its records in memory, counted as written). */
  bytes: 8 * 1024 * 1024,
  /** Workspace files kept in the storage folder. */
  workspaces: 64,
  /** Bytes of all workspace files together. */
  totalBytes: 64 * 1024 * 1024,
};

export interface OriginalsStoreOptions {
  /** Told about a write failure, once per run of writes (with how many workspace files it could not write). */
  warn?: (m: string) => void;
  /** Given each run of background writes (the server counts it as pending work: lsp/idle.ts). */
  track?: (written: Promise<void>) => void;
  /** Overrides of {@link ORIGINALS_LIMITS} (tests). */
  limits?: Partial<typeof ORIGINALS_LIMITS>;
}

/** The stores of every workspace folder of a server. */
export interface OriginalsStores {
  /** The store of the workspace folder `root` (undefined: a document in no folder, kept in memory only). */
  of(root: string | undefined): OriginalsStore;
  /** Writes every pending workspace file now. */
  flush(): void;
  /** Settles once every record put so far is written (or failed; tests wait on it). */
  written(): Promise<void>;
  /** The file a workspace folder's originals are kept in (undefined without storage). */
  fileOf(root: string): string | undefined;
}

interface Entry {
  record: OriginalRecord;
  /** Bytes of its line in the file, newline included. */
  bytes: number;
}

const lineOf = (key: string, r: OriginalRecord): string => JSON.stringify([key, r.heading, r.original]) + '\n';

function realFolder(root: string): string {
  const abs = nodePath.resolve(root);
  try {
    return fs.realpathSync.native(abs);
  } catch {
    return abs;
  }
}

/** One workspace folder's records, least recently used first; `file` undefined: memory only. */
class WorkspaceOriginals implements OriginalsStore {
  readonly map = new Map<string, Entry>();
  bytes = 0;
  dirty = false;
  private loaded = false;
  /** The file's size and mtime as last read or written by this store: another change is another window's. */
  private stamp = '';

  constructor(
    readonly real: string,
    readonly file: string | undefined,
    private readonly limits: typeof ORIGINALS_LIMITS,
    private readonly changed: (s: WorkspaceOriginals) => void,
  ) {}

  get(key: string): OriginalRecord | undefined {
    this.load();
    let e = this.map.get(key);
    if (!e && this.file && this.fileStamp() !== this.stamp) {
      this.merge(); // another window wrote since: its records count too
      e = this.map.get(key);
    }
    if (!e) return undefined;
    this.map.delete(key);
    this.map.set(key, e);
    return e.record;
  }

  put(key: string, record: OriginalRecord): void {
    if (!KEY.test(key) || typeof record.heading !== 'string' || typeof record.original !== 'string') return;
    this.load();
    const bytes = Buffer.byteLength(lineOf(key, record));
    if (bytes > this.limits.bytes) return;
    this.remove(key);
    this.map.set(key, { record: { heading: record.heading, original: record.original }, bytes });
    this.bytes += bytes;
    this.trim();
    this.dirty = true;
    this.changed(this);
  }

  private remove(key: string): void {
    const old = this.map.get(key);
    if (!old) return;
    this.map.delete(key);
    this.bytes -= old.bytes;
  }

  /** Least recently used first, until within the caps. */
  private trim(): void {
    for (const [k, e] of this.map) {
      if (this.map.size <= this.limits.records && this.bytes <= this.limits.bytes) break;
      this.map.delete(k);
      this.bytes -= e.bytes;
    }
  }

  private fileStamp(): string {
    try {
      const st = fs.statSync(this.file!);
      return `${st.size}:${st.mtimeMs}:${st.ino}`;
    } catch {
      return '';
    }
  }

  private load(): void {
    if (this.loaded) return;
    this.loaded = true;
    if (this.file) this.merge();
  }

  /** Reads the file and adds the records not in memory, as older than every record in memory. */
  private merge(): void {
    this.stamp = this.fileStamp();
    const lines = this.readLines();
    if (!lines) return;
    const newer = [...this.map];
    this.map.clear();
    this.bytes = 0;
    for (const line of lines) {
      let v: unknown;
      try {
        v = JSON.parse(line);
      } catch {
        continue;
      }
      if (!Array.isArray(v) || v.length !== 3 || typeof v[0] !== 'string' || !KEY.test(v[0]) || typeof v[1] !== 'string' || typeof v[2] !== 'string') continue;
      const key = v[0];
      this.remove(key);
      this.map.set(key, { record: { heading: v[1], original: v[2] }, bytes: Buffer.byteLength(line) + 1 });
      this.bytes += Buffer.byteLength(line) + 1;
    }
    for (const [k, e] of newer) {
      this.remove(k);
      this.map.set(k, e);
      this.bytes += e.bytes;
    }
    this.trim();
  }

  /** The record lines of the file, when it is this folder's and within the caps; else undefined. */
  private readLines(): string[] | undefined {
    let text: string;
    try {
      const fd = fs.openSync(this.file!, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0));
      try {
        const st = fs.fstatSync(fd);
        // A file larger than a workspace may hold was not written by this store: not read.
        if (!st.isFile() || st.size > this.limits.bytes + 64 * 1024) return undefined;
        const buf = Buffer.allocUnsafe(st.size);
        let n = 0;
        while (n < st.size) {
          const r = fs.readSync(fd, buf, n, st.size - n, n);
          if (r === 0) break;
          n += r;
        }
        text = buf.toString('utf8', 0, n);
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      return undefined;
    }
    const lines = text.split('\n');
    let header: unknown;
    try {
      header = JSON.parse(lines[0] ?? '');
    } catch {
      return undefined;
    }
    const h = header as { format?: unknown; workspace?: unknown } | null;
    if (!h || h.format !== HEADER || h.workspace !== this.real) return undefined;
    return lines.slice(1).filter((l) => l !== '');
  }

  /** The lines to write, a batch at a time (merging another window's records first). */
  *serialize(): Generator<string, void, void> {
    if (this.fileStamp() !== this.stamp) this.merge();
    this.dirty = false;
    yield JSON.stringify({ format: HEADER, workspace: this.real }) + '\n';
    let batch = '';
    for (const [k, e] of [...this.map]) {
      batch += lineOf(k, e.record);
      if (batch.length >= 64 * 1024) {
        yield batch;
        batch = '';
      }
    }
    if (batch) yield batch;
  }

  /** After this store wrote its file. */
  wrote(): void {
    this.stamp = this.fileStamp();
  }
}

/** The originals of every workspace folder; `storagePath` undefined: memory only. */
export function createOriginalsStore(storagePath: string | undefined, opts: OriginalsStoreOptions = {}): OriginalsStores {
  const limits = { ...ORIGINALS_LIMITS, ...opts.limits };
  const dir = storagePath ? nodePath.join(storagePath, 'revert-originals') : undefined;
  const warn = opts.warn ?? (() => undefined);
  const stores = new Map<string, WorkspaceOriginals>();
  const byRoot = new Map<string, WorkspaceOriginals>();
  const pending = new Set<WorkspaceOriginals>();
  let running: Promise<void> | undefined;
  let failed = 0;
  let lastError = '';
  const fileFor = (real: string) => (dir ? nodePath.join(dir, `${createHash('sha256').update(real).digest('hex')}.jsonl`) : undefined);

  /** One workspace's file, written in steps (a yield between batches); false when it failed. */
  function* writeSteps(s: WorkspaceOriginals): Generator<void, void, void> {
    const file = s.file!;
    const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    let fd: number | undefined;
    try {
      fs.mkdirSync(dir!, { recursive: true, mode: 0o700 });
      fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0), 0o600);
      for (const chunk of s.serialize()) {
        const b = Buffer.from(chunk, 'utf8');
        let off = 0;
        while (off < b.length) off += fs.writeSync(fd, b, off, b.length - off);
        yield;
      }
      fs.closeSync(fd);
      fd = undefined;
      fs.renameSync(tmp, file);
      s.wrote();
      enforceFolderCaps(file);
    } catch (err) {
      if (fd !== undefined) {
        try {
          fs.closeSync(fd);
        } catch {
          // closed
        }
      }
      try {
        fs.rmSync(tmp, { force: true });
      } catch {
        // nothing to clean
      }
      failed++;
      lastError = errorMessage(err);
    }
  }

  /** The least recently written workspace files go until the folder is within its caps (the one just written stays). */
  function enforceFolderCaps(keep: string): void {
    let names: string[];
    try {
      names = fs.readdirSync(dir!).filter((n) => n.endsWith('.jsonl'));
    } catch {
      return;
    }
    const files: { path: string; size: number; mtime: number }[] = [];
    for (const n of names) {
      const p = nodePath.join(dir!, n);
      try {
        const st = fs.lstatSync(p);
        if (st.isFile()) files.push({ path: p, size: st.size, mtime: st.mtimeMs });
      } catch {
        // gone meanwhile
      }
    }
    let total = files.reduce((a, f) => a + f.size, 0);
    files.sort((a, b) => a.mtime - b.mtime);
    let count = files.length;
    for (const f of files) {
      if (count <= limits.workspaces && total <= limits.totalBytes) break;
      if (f.path === keep) continue;
      try {
        fs.unlinkSync(f.path);
        count--;
        total -= f.size;
      } catch {
        // another window removed it
      }
    }
  }

  function reportFailures(): void {
    if (failed === 0) return;
    warn(`could not keep the originals of converted sections in ${dir}: ${lastError} (Revert stays exact for this session only)`);
    failed = 0;
  }

  /** Writes pending workspace files until none is left or `deadline` (performance.now()) has passed. */
  let current: Generator<void, void, void> | undefined;
  const writeUntil = (deadline: number): void => {
    while (performance.now() < deadline) {
      if (!current) {
        const next = pending.values().next();
        if (next.done) break;
        pending.delete(next.value);
        current = writeSteps(next.value);
      }
      if (current.next().done) current = undefined;
    }
    if (!current && pending.size === 0) reportFailures();
  };
  const start = (): void => {
    if (running) return;
    running = new Promise<void>((resolve) => {
      const turn = () => {
        writeUntil(performance.now() + WRITE_TURN_MS);
        if (current || pending.size > 0) setImmediate(turn);
        else {
          running = undefined;
          resolve();
        }
      };
      setImmediate(turn);
    });
    opts.track?.(running);
  };
  const changed = (s: WorkspaceOriginals): void => {
    if (!s.file) return;
    pending.add(s);
    start();
  };

  return {
    of(root) {
      // Asked for every fence a lens pass measures: the folder's real path is resolved once per folder.
      const known = byRoot.get(root ?? '');
      if (known) return known;
      const real = root === undefined ? '' : realFolder(root);
      let s = stores.get(real);
      if (!s) {
        s = new WorkspaceOriginals(real, real === '' ? undefined : fileFor(real), limits, changed);
        stores.set(real, s);
      }
      if (byRoot.size >= 256) byRoot.clear();
      byRoot.set(root ?? '', s);
      return s;
    },
    flush() {
      writeUntil(Infinity);
    },
    written: () => running ?? Promise.resolve(),
    fileOf: (root) => fileFor(realFolder(root)),
  };
}
