// The originals Convert replaced, on disk (node/originals.ts): readable at once, written in the background in
// turns that leave the event loop free, all written by `flush` at once, one warning for a run of failed writes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { createOriginalsStore } from '../../server/src/node/originals';

const key = (i: number) => createHash('sha256').update(`fence ${i}`).digest('hex');
const record = (i: number) => ({ heading: `## Section ${i}\n`, original: `- item: ${i}\n- owner: team ${i % 7}\n` });
const files = (dir: string) => readdirSync(join(dir, 'originals')).filter((f) => f.endsWith('.json'));

test('put is readable at once; the files are written in the background, with the event loop free meanwhile', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'toonlens-originals-'));
  try {
    const tracked: Promise<void>[] = [];
    const store = createOriginalsStore(dir, { track: (p) => tracked.push(p) });
    const n = 3000;
    for (let i = 0; i < n; i++) store.put(key(i), record(i));
    assert.deepEqual(store.get(key(1234)), record(1234), 'in memory at once');
    assert.equal(tracked.length, 1, 'one run of background writes, counted as pending work');
    // A callback queued now runs between the turns of writes, not after all of them.
    const seenBetween = await new Promise<number>((resolve) => setImmediate(() => setImmediate(() => resolve(files(dir).length))));
    assert.ok(seenBetween < n, `the event loop ran with ${seenBetween} of ${n} files written`);
    await store.written!();
    assert.equal(files(dir).length, n);
    assert.deepEqual(JSON.parse(readFileSync(join(dir, 'originals', `${key(42)}.json`), 'utf8')), record(42));
    // A later session reads them from disk.
    assert.deepEqual(createOriginalsStore(dir).get(key(2999)), record(2999));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('flush writes every pending record now; a run of failed writes warns once and keeps the records in memory', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'toonlens-originals-'));
  try {
    const store = createOriginalsStore(dir);
    for (let i = 0; i < 50; i++) store.put(key(i), record(i));
    store.flush!();
    assert.equal(files(dir).length, 50, 'all written by flush, synchronously');
    await store.written!();

    const blocked = mkdtempSync(join(tmpdir(), 'toonlens-originals-'));
    writeFileSync(join(blocked, 'originals'), 'a file where the folder should be');
    const warnings: string[] = [];
    const failing = createOriginalsStore(blocked, { warn: (m) => warnings.push(m) });
    for (let i = 0; i < 20; i++) failing.put(key(i), record(i));
    await failing.written!();
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(warnings[0]!, /could not keep the originals of 20 converted sections .*Revert stays exact for this session only/);
    assert.deepEqual(failing.get(key(7)), record(7), 'still exact in this session');
    assert.deepEqual(readdirSync(blocked), ['originals'], 'no temp file left behind');
    rmSync(blocked, { recursive: true, force: true });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the session memory is bounded by characters, least recently used first; every record of a Convert all of 5,000 sections stays', async () => {
  const { MemoryOriginals } = await import('../../server/src/core/markdown/revert');
  const all = new MemoryOriginals();
  for (let i = 0; i < 5000; i++) all.put(key(i), record(i));
  for (let i = 0; i < 5000; i++) assert.deepEqual(all.get(key(i)), record(i), `record ${i}`);
  const size = record(0).heading.length + record(0).original.length;
  const small = new MemoryOriginals(size * 3);
  for (let i = 0; i < 3; i++) small.put(key(i), record(i));
  assert.ok(small.get(key(0)), 'read: now the most recent');
  small.put(key(3), record(3));
  assert.equal(small.get(key(1)), undefined, 'the least recently used went');
  assert.ok(small.get(key(0)) && small.get(key(2)) && small.get(key(3)));
});

test('a key found on no file is not looked for again, until a record is put for it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toonlens-originals-'));
  try {
    const store = createOriginalsStore(dir);
    assert.equal(store.get(key(7)), undefined);
    // A file appearing behind the store's back (another process) is not read: the miss is remembered.
    mkdirSync(join(dir, 'originals'), { recursive: true });
    writeFileSync(join(dir, 'originals', `${key(7)}.json`), JSON.stringify(record(7)));
    assert.equal(store.get(key(7)), undefined);
    store.put(key(7), record(8));
    assert.deepEqual(store.get(key(7)), record(8));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
