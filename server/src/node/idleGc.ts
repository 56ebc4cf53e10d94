/**
 * A major garbage collection when the server goes idle after work that left a lot of garbage behind
 * (a large markdown document analysed, a keystroke's plan of it superseding the last one), so the
 * process's memory drops back to what it holds instead of waiting for V8's next major collection,
 * which lands at no predictable moment (docs/performance.md, "Markdown server memory").
 *
 * It never runs on a request's path: only once every piece of pending work (debounce timers, analyses,
 * diagnostics runs, worker jobs: features/idle.ts) is done, after a further quiet delay, and not at all
 * when anything arrived meanwhile. It runs only when it pays: when the heap has grown since the last
 * collection by at least {@link IDLE_GC_MIN_GARBAGE_BYTES} and by {@link IDLE_GC_MIN_GARBAGE_SHARE} of
 * what survived it (a small document's keystrokes reach it only after many of them, once per pause in typing;
 * the collection's cost is proportional to what survives, so it runs only when it frees at least a tenth of
 * that), or when a closed document's analyses became garbage ({@link releasedHeap}).
 */
import v8 from 'node:v8';
import { v8Gc } from './fullGc';

/**
 * At least this much heap growth since the last collection before an idle collection runs: low enough that the
 * garbage a few edits of a large document leave is collected at the idle moment, not held until V8's next
 * collection.
 */
export const IDLE_GC_MIN_GARBAGE_BYTES = 4 * 1024 * 1024;
/** …and at least this share of the heap that survived the last collection. */
export const IDLE_GC_MIN_GARBAGE_SHARE = 0.1;
/** How long the server must stay idle before the collection runs. */
export const IDLE_GC_DELAY_MS = 100;
/** Idle means the event loop was busy for at most this share of that interval (untracked requests count)… */
export const IDLE_GC_MAX_UTILIZATION = 0.25;
/** …re-checked this many times (10 s at the default delay) before the collection is given up until the next idle moment. */
export const IDLE_GC_MAX_TRIES = 100;

/** V8's `gc` (node/fullGc.ts) as a compacting collection, or undefined where `gc` cannot be had. */
export function exposeGc(): (() => void) | undefined {
  const gc = v8Gc();
  if (!gc) return undefined;
  // Compacting every page it can, not only V8's usual few candidates: the analyses a plan keeps were
  // allocated among its garbage, so without it the freed memory stays committed in half-empty pages
  // (the compaction costs no more time than the collection without it).
  return () => {
    v8.setFlagsFromString('--compact-on-every-full-gc');
    try {
      gc();
    } finally {
      v8.setFlagsFromString('--no-compact-on-every-full-gc');
    }
  };
}

/** What the idle collector did (the test-only idle command reports it; the bench reads it). */
export interface IdleGcStats {
  collections: number;
  /** Wall time spent in the collections (ms). */
  ms: number;
  /** Heap bytes the collections freed, in all. */
  freed: number;
}

/**
 * The pending-work tracker the server hands in (lsp/idle.ts's WorkTracker fits it). Declared here so node/ stays
 * below the framework: lsp/ depends on node/, never the reverse.
 */
export interface Tracker {
  begin(): () => void;
  readonly pending: number;
  onIdle(listener: () => void): void;
}

/**
 * Work that pays only while the server is idle and that leaves garbage behind (a large markdown document's text
 * held compactly: features/markdown/plans.ts). It runs at the idle collector's quiet moment, just before the
 * collector decides whether a collection pays, so the collection that follows gives its garbage back.
 */
export interface IdleTask {
  /** Whether it has anything to do now. */
  pending(): boolean;
  /** Does it; returns about how many heap bytes became garbage. */
  run(): number;
}

const idleTasks: IdleTask[] = [];

/** Adds a task the idle collector runs at its quiet moments (the collector of {@link startIdleCollector}). */
export function addIdleTask(task: IdleTask): void {
  idleTasks.push(task);
}

export interface IdleCollectorOptions {
  delayMs?: number;
  minGarbageBytes?: number;
  minGarbageShare?: number;
  /** Heap bytes in use (default: V8's used_heap_size). */
  heapUsed?: () => number;
  /** The idle tasks (default: those of {@link addIdleTask}). */
  tasks?: readonly IdleTask[];
}

export class IdleCollector {
  readonly stats: IdleGcStats = { collections: 0, ms: 0, freed: 0 };
  /** The smallest heap seen since the last collection (what survived it, or V8's own collections since). */
  private floor: number;
  /** Bytes the server announced it let go of since the last collection (a closed document), not yet garbage V8 counts. */
  private released = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly heapUsed: () => number;

  constructor(
    private readonly gc: () => void,
    private readonly work: Tracker,
    private readonly opts: IdleCollectorOptions = {},
  ) {
    this.heapUsed = opts.heapUsed ?? (() => v8.getHeapStatistics().used_heap_size);
    this.floor = this.heapUsed();
    work.onIdle(() => this.idle());
  }

  /** Whether the garbage since the last collection is worth one now. */
  pays(): boolean {
    const used = this.heapUsed();
    if (used < this.floor) this.floor = used;
    const garbage = used - this.floor + this.released;
    return garbage >= (this.opts.minGarbageBytes ?? IDLE_GC_MIN_GARBAGE_BYTES) && garbage >= (this.opts.minGarbageShare ?? IDLE_GC_MIN_GARBAGE_SHARE) * this.floor;
  }

  /**
   * The server let go of about `bytes` of heap (a large document closed): the memory is garbage, but nothing
   * allocated, so the heap has not grown and no collection would come, from us or from V8, while the server
   * sits idle. Counted as garbage, and the idle check made now (a close starts no tracked work).
   */
  noteReleased(bytes: number): void {
    this.released += bytes;
    if (this.work.pending === 0) this.idle();
  }

  private tasksPending(): boolean {
    return (this.opts.tasks ?? idleTasks).some((t) => t.pending());
  }

  private idle(): void {
    if (this.timer || (!this.pays() && !this.tasksPending())) return;
    // Pending work itself, so the test-only idle signal (and the bench) see the collection finished.
    const end = this.work.begin();
    let tries = 0;
    const arm = () => {
      const elu = performance.eventLoopUtilization();
      this.timer = setTimeout(() => {
        this.timer = undefined;
        // Anything else pending (an edit's debounce, an analysis): not now; the next idle moment decides again.
        if (this.work.pending !== 1) return end();
        // Work no tracker sees (a request being answered, a workspace check between its files) keeps the event
        // loop busy: wait for a quiet interval, a bounded number of times.
        if (performance.eventLoopUtilization(elu).utilization > IDLE_GC_MAX_UTILIZATION) {
          if (++tries < IDLE_GC_MAX_TRIES) return arm();
          return end();
        }
        try {
          for (const t of this.opts.tasks ?? idleTasks) {
            try {
              if (t.pending()) this.released += t.run();
            } catch {
              // A task's failure costs only its saving: the collection still runs when it pays.
            }
          }
          if (this.pays()) this.collect();
        } finally {
          end();
        }
      }, this.opts.delayMs ?? IDLE_GC_DELAY_MS);
    };
    arm();
  }

  private collect(): void {
    const before = this.heapUsed();
    const t0 = performance.now();
    this.gc();
    this.stats.ms += performance.now() - t0;
    this.stats.collections++;
    const after = this.heapUsed();
    this.stats.freed += Math.max(0, before - after);
    this.floor = after;
    this.released = 0;
  }
}

let installed: IdleCollector | undefined;

/**
 * Starts the server's idle collector over `work` (once per process); nothing when `gc` cannot be exposed
 * or `TOONLENS_IDLE_GC=0` is set (how the bench measures the server without it).
 */
export function startIdleCollector(work: Tracker): IdleCollector | undefined {
  if (installed) return installed;
  if (process.env.TOONLENS_IDLE_GC === '0') return undefined;
  const gc = exposeGc();
  if (!gc) return undefined;
  return (installed = new IdleCollector(gc, work));
}

/**
 * Tells the idle collector (if it runs) that about `bytes` of heap just became garbage without any allocation
 * (a document closed), so the next idle moment collects it when that pays.
 */
export function releasedHeap(bytes: number): void {
  installed?.noteReleased(bytes);
}

/** The server's idle collector's figures, if it runs. */
export function idleGcStats(): IdleGcStats | undefined {
  return installed?.stats;
}
