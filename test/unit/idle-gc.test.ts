// The idle collector (server/src/node/idleGc.ts): a major GC only once the server is idle, only when the garbage
// since the last collection pays for it, never while other work is pending. Driven with a fake heap and gc.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as turn } from 'node:timers/promises';
import { WorkTracker } from '../../server/src/lsp/idle';
import { IdleCollector, exposeGc, IDLE_GC_MIN_GARBAGE_BYTES } from '../../server/src/node/idleGc';

const MB = 1024 * 1024;

function setup(heap: { used: number }) {
  const work = new WorkTracker();
  let collections = 0;
  const gc = () => {
    collections++;
    heap.used = 100 * MB; // what survives
  };
  const c = new IdleCollector(gc, work, { delayMs: 0, heapUsed: () => heap.used });
  return { work, c, count: () => collections };
}

test('collects once the server is idle after work that left enough garbage, and reports it as pending work', async () => {
  const heap = { used: 100 * MB };
  const { work, c, count } = setup(heap);
  const end = work.begin();
  heap.used = 100 * MB + IDLE_GC_MIN_GARBAGE_BYTES + 10 * MB; // ≥ the minimum and ≥ 10 % of 100 MB
  end();
  await work.whenIdle(); // the collection is pending work: idle means it has run
  assert.equal(count(), 1);
  assert.equal(c.stats.collections, 1);
  assert.equal(c.stats.freed, IDLE_GC_MIN_GARBAGE_BYTES + 10 * MB);
});

test('does not collect when the garbage is small (under 4 MB, or under a tenth of what survived)', async () => {
  assert.equal(IDLE_GC_MIN_GARBAGE_BYTES, 4 * MB);
  const heap = { used: 20 * MB };
  const { work, count } = setup(heap);
  let end = work.begin();
  heap.used = 20 * MB + 3 * MB; // 15 % of what survived, but under 4 MB
  end();
  await work.whenIdle();
  assert.equal(count(), 0, 'under 4 MB');
  const big = { used: 400 * MB };
  const s2 = setup(big);
  end = s2.work.begin();
  big.used = 420 * MB; // 20 MB: over 4 MB but 5 % of 400 MB
  end();
  await s2.work.whenIdle();
  assert.equal(s2.count(), 0, 'under a tenth');
  void count;
});

test('memory let go of without any allocation (a document closed) is collected at the next idle moment, when it pays', async () => {
  const heap = { used: 140 * MB };
  const { work, c, count } = setup(heap);
  c.noteReleased(4 * MB); // a small document: not worth a collection
  await work.whenIdle();
  assert.equal(count(), 0);
  c.noteReleased(36 * MB); // 40 MB in all, with no other work: collected now, the heap unchanged until then
  await work.whenIdle();
  assert.equal(count(), 1);
  assert.equal(c.stats.freed, 40 * MB);
  c.noteReleased(8 * MB); // counted afresh after a collection
  await work.whenIdle();
  assert.equal(count(), 1);
});

test('does not collect while other work arrived meanwhile; the next idle moment decides again', async () => {
  const heap = { used: 100 * MB };
  const work = new WorkTracker();
  let collections = 0;
  const c = new IdleCollector(() => collections++, work, { delayMs: 5, heapUsed: () => heap.used });
  const end = work.begin();
  heap.used = 200 * MB;
  end();
  await turn(); // the idle notification has run: the collection's timer is pending
  await turn();
  assert.equal(work.pending, 1, 'the collection waits as pending work');
  const request = work.begin(); // a request arrives before the timer fires
  await new Promise<void>((resolve) => {
    const t = setInterval(() => {
      if (work.pending === 1) {
        clearInterval(t);
        resolve();
      }
    }, 1);
  });
  assert.equal(collections, 0, 'not while the request is pending');
  request();
  await work.whenIdle();
  assert.equal(collections, 1, 'at the next idle moment');
  assert.equal(c.stats.collections, 1);
});

test('V8 exposes gc at run time (Node 20: --expose-gc, then a fresh context)', () => {
  const gc = exposeGc();
  assert.equal(typeof gc, 'function');
  gc!();
});
