// The originals Convert replaced, on disk (node/originals.ts): one file per workspace folder under the storage
// folder, named by the folder's real path; readable at once, written in the background in turns that leave the event
// loop free, all written by `flush`; bounded per workspace (records and bytes, least recently used first) and over
// every workspace; one warning for a run of failed writes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { createOriginalsStore, ORIGINALS_LIMITS } from '../../server/src/node/originals';

const key = (i: number) => createHash('sha256').update(`fence ${i}`).digest('hex');
const record = (i: number) => ({ heading: `## Section ${i}\n`, original: `## Section ${i}\n\n| a | b |\n| ------- | --- |\n| ${i} | team ${i % 7} |\n` });
const storeFiles = (dir: string) => readdirSync(join(dir, 'revert-originals')).filter((f) => f.endsWith('.jsonl'));

function temp(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

test('put is readable at once; the workspace file is written in the background, with the event loop free meanwhile; a later session reads it', async () => {
  const storage = temp('toonlens-originals-');
  const ws = temp('toonlens-ws-');
  try {
    const tracked: Promise<void>[] = [];
    const stores = createOriginalsStore(storage, { track: (p) => tracked.push(p) });
    const store = stores.of(ws);
    const n = 3000;
    for (let i = 0; i < n; i++) store.put(key(i), record(i));
    assert.deepEqual(store.get(key(1234)), record(1234), 'in memory at once');
    assert.equal(tracked.length, 1, 'one run of background writes, counted as pending work');
    assert.deepEqual(readdirSync(storage), [], 'nothing written synchronously by put');
    await stores.written();
    assert.deepEqual(storeFiles(storage).length, 1, 'one file for the workspace, not one per record');
    assert.deepEqual(readdirSync(join(storage, 'revert-originals')).filter((f) => f.endsWith('.tmp')), []);
    // A later session (another window of the same folder) reads them.
    const later = createOriginalsStore(storage).of(ws);
    assert.deepEqual(later.get(key(2999)), record(2999));
    assert.deepEqual(later.get(key(0)), record(0));
  } finally {
    rmSync(storage, { recursive: true, force: true });
    rmSync(ws, { recursive: true, force: true });
  }
});

test('keyed by the workspace folder\'s real path: another folder never gets an original, a symlink to the same folder does', async () => {
  const storage = temp('toonlens-originals-');
  const a = temp('toonlens-ws-a-');
  const b = temp('toonlens-ws-b-');
  const link = join(temp('toonlens-ws-link-'), 'a-again');
  symlinkSync(a, link);
  try {
    const stores = createOriginalsStore(storage);
    stores.of(a).put(key(1), record(1));
    assert.equal(stores.of(b).get(key(1)), undefined, 'project B, same server');
    stores.flush();
    assert.equal(createOriginalsStore(storage).of(b).get(key(1)), undefined, 'project B, later window');
    assert.deepEqual(createOriginalsStore(storage).of(link).get(key(1)), record(1), 'the same folder through a symlink');
    assert.equal(createOriginalsStore(storage).of(undefined).get(key(1)), undefined, 'no workspace folder');
    // A file put in B's place holding A's records (copied, or planted) is not read: its header names A.
    writeFileSync(stores.fileOf(b)!, readFileSync(stores.fileOf(a)!));
    assert.equal(createOriginalsStore(storage).of(b).get(key(1)), undefined, 'a file naming another folder is not read');
  } finally {
    for (const d of [storage, a, b]) rmSync(d, { recursive: true, force: true });
  }
});

test('20,000 records of 10 KB stay under the caps (records and bytes per workspace, least recently used out); Revert of the recent ones stays exact', async () => {
  const storage = temp('toonlens-originals-');
  const ws = temp('toonlens-ws-');
  try {
    const stores = createOriginalsStore(storage);
    const store = stores.of(ws);
    const big = (i: number) => ({ heading: `## S${i}\n`, original: `## S${i}\n\n` + `- rule ${i}: keep the queue drained\n`.repeat(310) });
    const size = big(0).original.length;
    assert.ok(size >= 10_000, `${size} characters a record`);
    for (let i = 0; i < 20_000; i++) store.put(key(i), big(i));
    stores.flush();
    const files = storeFiles(storage);
    assert.equal(files.length, 1);
    const bytes = statSync(join(storage, 'revert-originals', files[0]!)).size;
    assert.ok(bytes <= ORIGINALS_LIMITS.bytes + 1024, `${bytes} bytes on disk, cap ${ORIGINALS_LIMITS.bytes}`);
    assert.deepEqual(store.get(key(19_999)), big(19_999), 'the most recent is kept');
    assert.equal(store.get(key(0)), undefined, 'the oldest went');
    assert.deepEqual(createOriginalsStore(storage).of(ws).get(key(19_998)), big(19_998));

    // The record count is capped as well: many small records.
    const few = createOriginalsStore(storage, { limits: { records: 100 } });
    const s2 = few.of(ws);
    for (let i = 0; i < 1000; i++) s2.put(key(i), record(i));
    few.flush();
    const lines = readFileSync(few.fileOf(ws)!, 'utf8').split('\n').filter((l) => l !== '');
    assert.equal(lines.length, 101, 'a header and 100 records');
    assert.deepEqual(createOriginalsStore(storage).of(ws).get(key(999)), record(999));
    assert.equal(createOriginalsStore(storage).of(ws).get(key(899)), undefined);
  } finally {
    rmSync(storage, { recursive: true, force: true });
    rmSync(ws, { recursive: true, force: true });
  }
});

test('over every workspace: at most N files and a total byte cap, the least recently written going first', () => {
  const storage = temp('toonlens-originals-');
  const folders = Array.from({ length: 6 }, () => temp('toonlens-ws-'));
  try {
    const stores = createOriginalsStore(storage, { limits: { workspaces: 4 } });
    for (const [i, f] of folders.entries()) {
      stores.of(f).put(key(i), record(i));
      stores.flush();
    }
    assert.equal(storeFiles(storage).length, 4);
    assert.deepEqual(createOriginalsStore(storage).of(folders[5]).get(key(5)), record(5), 'the newest stays');
    assert.equal(createOriginalsStore(storage).of(folders[0]).get(key(0)), undefined, 'the oldest went');
  } finally {
    rmSync(storage, { recursive: true, force: true });
    for (const f of folders) rmSync(f, { recursive: true, force: true });
  }
});

test('two windows of the same folder: the records of both are kept (merged before each write)', () => {
  const storage = temp('toonlens-originals-');
  const ws = temp('toonlens-ws-');
  try {
    const one = createOriginalsStore(storage);
    const two = createOriginalsStore(storage);
    one.of(ws).put(key(1), record(1));
    two.of(ws).put(key(2), record(2));
    one.flush();
    two.flush();
    const later = createOriginalsStore(storage).of(ws);
    assert.deepEqual(later.get(key(1)), record(1));
    assert.deepEqual(later.get(key(2)), record(2));
    // A window still open sees what the other wrote since.
    one.of(ws).get(key(1));
    two.of(ws).put(key(3), record(3));
    two.flush();
    assert.deepEqual(one.of(ws).get(key(3)), record(3));
  } finally {
    rmSync(storage, { recursive: true, force: true });
    rmSync(ws, { recursive: true, force: true });
  }
});

test('a run of failed writes warns once and keeps the records in memory; no temp file left', async () => {
  const blocked = temp('toonlens-originals-');
  const ws = temp('toonlens-ws-');
  try {
    writeFileSync(join(blocked, 'revert-originals'), 'a file where the folder should be');
    const warnings: string[] = [];
    const failing = createOriginalsStore(blocked, { warn: (m) => warnings.push(m) });
    for (let i = 0; i < 20; i++) failing.of(ws).put(key(i), record(i));
    await failing.written();
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(warnings[0]!, /could not keep the originals of converted sections .*Revert stays exact for this session only/);
    assert.deepEqual(failing.of(ws).get(key(7)), record(7), 'still exact in this session');
    assert.deepEqual(readdirSync(blocked), ['revert-originals'], 'no temp file left behind');
    // Keys and records that are not a fence hash and two strings are not kept.
    const stores = createOriginalsStore(undefined);
    stores.of(ws).put('not-a-hash', record(1));
    stores.of(ws).put(key(1), { heading: 1, original: null } as never);
    assert.equal(stores.of(ws).get('not-a-hash'), undefined);
    assert.equal(stores.of(ws).get(key(1)), undefined);
    mkdirSync(join(ws, 'x'));
  } finally {
    rmSync(blocked, { recursive: true, force: true });
    rmSync(ws, { recursive: true, force: true });
  }
});

test('the session memory (core) is bounded by characters, least recently used first; every record of a Convert all of 5,000 sections stays', async () => {
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

test('the Convert actions offered and not yet applied: one nonce per section and version, bounded by count and characters, done once', async () => {
  const { PendingConverts } = await import('../../server/src/features/markdown/convert');
  const memo = (i: number) => () => ({ records: [{ key: key(i), record: record(i) }] });
  const p = new PendingConverts(4, 10_000);
  const first = p.offer('file:///a.md', 1, 0, 'converted 0', memo(0));
  assert.match(first, /^[0-9a-f]{32}$/);
  assert.equal(p.offer('file:///a.md', 1, 0, 'converted 0', memo(0)), first, 'a repeated request: the same nonce');
  assert.notEqual(p.offer('file:///a.md', 2, 0, 'converted 0', memo(0)), first, 'another version: another nonce');
  for (let i = 1; i <= 4; i++) p.offer('file:///a.md', 1, i * 100, `converted ${i}`, memo(i));
  assert.equal(p.get(first), undefined, 'the oldest went (count)');
  const big = p.offer('file:///b.md', 1, 0, 'x'.repeat(9_000), memo(9));
  assert.ok(p.get(big));
  assert.equal([1, 2, 3, 4].filter((i) => p.get(p.offer('file:///a.md', 1, i * 100, `converted ${i}`, memo(i)))).length, 4, 'offered again when gone');
  assert.equal(p.get(big), undefined, 'the characters are bounded too');
  const n = p.offer('file:///c.md', 1, 0, 'c', memo(5));
  assert.deepEqual(p.get(n)?.memo.records[0]?.record, record(5));
  p.done(n);
  assert.equal(p.get(n), undefined, 'done once');
  assert.equal(p.get(7), undefined);
});
