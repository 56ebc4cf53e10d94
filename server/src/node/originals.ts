/**
 * The originals Convert replaced, on disk: one file per fence content hash under `<storagePath>/originals/`
 * (`<sha256>.json`, `{ heading, original }`), written atomically (temp file, then rename), read lazily and
 * kept in memory. Any I/O failure degrades to the in-memory store: Revert then renders canonical markdown
 * in a later session, and says so.
 *
 * A record is in memory (and Revert exact) as soon as it is put; its file is written in the background, in
 * turns of at most {@link WRITE_TURN_MS} with the event loop free between them, so a Convert all of thousands of
 * sections (a file each: 5,347 took 0.45 s of synchronous writes) never holds up the server's answers.
 * `flush` writes what is still pending at once (the server calls it on shutdown).
 */
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { randomBytes } from 'node:crypto';
import { MemoryOriginals, type OriginalRecord, type OriginalsStore } from '../core/markdown/revert';

const KEY = /^[0-9a-f]{64}$/;

/** How long one turn of background writes may hold the event loop. */
export const WRITE_TURN_MS = 15;

export interface OriginalsStoreOptions {
  /** Told about a write failure, once per run of writes (with how many records it could not keep). */
  warn?: (m: string) => void;
  /** Given each run of background writes (the server counts it as pending work: features/idle.ts). */
  track?: (written: Promise<void>) => void;
}

/** The store; on disk, with `written`: settles once every record put so far is written (or failed; tests wait on it). */
export function createOriginalsStore(storagePath: string | undefined, opts: OriginalsStoreOptions = {}): OriginalsStore & { written?(): Promise<void> } {
  const memory = new MemoryOriginals();
  if (!storagePath) return memory;
  const dir = nodePath.join(storagePath, 'originals');
  const warn = opts.warn ?? (() => undefined);
  const pending: { key: string; record: OriginalRecord }[] = [];
  /** Keys found on no file (fences converted elsewhere, or edited): not looked for again until one is put. */
  const missing = new Set<string>();
  const MISSING_MAX = 100_000;
  let failed = 0;
  let lastError = '';
  let running: Promise<void> | undefined;

  const writeOne = (key: string, record: OriginalRecord): void => {
    const file = nodePath.join(dir, `${key}.json`);
    const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(tmp, JSON.stringify(record));
      fs.renameSync(tmp, file);
    } catch (err) {
      try {
        fs.rmSync(tmp, { force: true });
      } catch {
        // nothing to clean
      }
      failed++;
      lastError = err instanceof Error ? err.message : String(err);
    }
  };
  /** Writes pending records until none is left or `deadline` (performance.now()) has passed. */
  const writeUntil = (deadline: number): void => {
    while (pending.length > 0 && performance.now() < deadline) {
      const { key, record } = pending.shift()!;
      writeOne(key, record);
    }
    if (pending.length === 0 && failed > 0) {
      warn(`could not keep ${failed === 1 ? 'the original of a converted section' : `the originals of ${failed} converted sections`} in ${dir}: ${lastError} (Revert stays exact for this session only)`);
      failed = 0;
    }
  };
  const start = (): void => {
    if (running) return;
    running = new Promise<void>((resolve) => {
      const turn = () => {
        writeUntil(performance.now() + WRITE_TURN_MS);
        if (pending.length > 0) setImmediate(turn);
        else {
          running = undefined;
          resolve();
        }
      };
      setImmediate(turn);
    });
    opts.track?.(running);
  };

  const remember = (key: string): undefined => {
    if (missing.size >= MISSING_MAX) missing.clear();
    missing.add(key);
    return undefined;
  };

  return {
    get(key) {
      const hit = memory.get(key);
      if (hit || !KEY.test(key) || missing.has(key)) return hit;
      try {
        const raw = JSON.parse(fs.readFileSync(nodePath.join(dir, `${key}.json`), 'utf8')) as Partial<OriginalRecord>;
        if (typeof raw.heading !== 'string' || typeof raw.original !== 'string') return remember(key);
        const record = { heading: raw.heading, original: raw.original };
        memory.put(key, record);
        return record;
      } catch {
        return remember(key);
      }
    },
    put(key, record) {
      missing.delete(key);
      memory.put(key, record);
      if (!KEY.test(key)) return;
      pending.push({ key, record });
      start();
    },
    flush() {
      writeUntil(Infinity);
    },
    written: () => running ?? Promise.resolve(),
  };
}
