/**
 * The originals Convert replaced, on disk: one file per fence content hash under `<storagePath>/originals/`
 * (`<sha256>.json`, `{ heading, original }`), written atomically (temp file, then rename), read lazily and
 * kept in memory. Any I/O failure degrades to the in-memory store: Revert then renders canonical markdown
 * in a later session, and says so.
 */
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { randomBytes } from 'node:crypto';
import { MemoryOriginals, type OriginalRecord, type OriginalsStore } from '../core/markdown/revert';

const KEY = /^[0-9a-f]{64}$/;

export function createOriginalsStore(storagePath: string | undefined, warn: (m: string) => void = () => undefined): OriginalsStore {
  const memory = new MemoryOriginals();
  if (!storagePath) return memory;
  const dir = nodePath.join(storagePath, 'originals');
  return {
    get(key) {
      const hit = memory.get(key);
      if (hit || !KEY.test(key)) return hit;
      try {
        const raw = JSON.parse(fs.readFileSync(nodePath.join(dir, `${key}.json`), 'utf8')) as Partial<OriginalRecord>;
        if (typeof raw.heading !== 'string' || typeof raw.original !== 'string') return undefined;
        const record = { heading: raw.heading, original: raw.original };
        memory.put(key, record);
        return record;
      } catch {
        return undefined;
      }
    },
    put(key, record) {
      memory.put(key, record);
      if (!KEY.test(key)) return;
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
        warn(`could not keep the original of a converted section in ${dir}: ${err instanceof Error ? err.message : String(err)} (Revert stays exact for this session only)`);
      }
    },
  };
}
