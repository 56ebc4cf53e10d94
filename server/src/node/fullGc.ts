/**
 * One full garbage collection on purpose, for the few moments where a large document just left more garbage
 * than the rest of the heap holds and the next allocations would stack on it (the stdio reader after a large
 * message's parse, the JSON analyzer after a large document's in-thread check): V8's `gc`, exposed at run time
 * (`--expose-gc`, read from a fresh context). A no-op where that is not available. Never per message or per
 * request: callers gate it by size (docs/performance.md, "JSON peak memory").
 */
import v8 from 'node:v8';
import vm from 'node:vm';

/** How many collections ran and how long they took in all (ms): the memory trace prints them. */
export const fullGcStats = { collections: 0, ms: 0 };

let gcFunction: (() => void) | null | undefined = null;

/**
 * V8's `gc` function (Node 20: `--expose-gc` set at run time, then read from a fresh context), or undefined where
 * it cannot be had; looked up once. The one way the server reaches it (this module's collections, node/idleGc.ts).
 */
export function v8Gc(): (() => void) | undefined {
  if (gcFunction === null) {
    try {
      v8.setFlagsFromString('--expose-gc');
      const gc: unknown = vm.runInNewContext('gc');
      gcFunction = typeof gc === 'function' ? (gc as () => void) : undefined;
    } catch {
      gcFunction = undefined;
    }
  }
  return gcFunction;
}

/** Runs one full collection now (synchronously), when V8's `gc` can be had. */
export function collectGarbage(): void {
  const gc = v8Gc();
  if (!gc) return;
  const t0 = performance.now();
  gc();
  fullGcStats.collections++;
  fullGcStats.ms += performance.now() - t0;
}
