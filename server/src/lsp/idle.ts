/**
 * Knowing when the server has nothing left to do. Work that runs after the request or notification that
 * caused it — a debounce timer and the diagnostics run it starts, a time-sliced markdown analysis, a JSON
 * worker job, the report-lens refresh, a git read — registers here while it is pending, so a test can ask
 * "is everything that was queued done and published?" instead of sleeping and hoping.
 *
 * The signal is served only with the test hooks on (`toonlens.test.idle`, testing/commands.ts); counting is
 * always on and costs an integer per piece of work. Caches that merely expire (a parsed value's TTL) are
 * not work: nothing is published when they go.
 */
import type { IdleGcStats } from '../node/idleGc';

export class WorkTracker {
  private busy = 0;
  private waiters: (() => void)[] = [];
  private idleListeners: (() => void)[] = [];

  /** Registers one piece of pending work; the returned function ends it (calling it again does nothing). */
  begin(): () => void {
    this.busy++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.busy--;
      if (this.busy === 0) {
        for (const w of this.waiters.splice(0)) w();
        if (this.idleListeners.length) setImmediate(() => this.notifyIdle());
      }
    };
  }

  /**
   * Calls `listener` each time pending work drops to zero and is still zero a turn of the event loop later
   * (the server's idle moments: what the idle collector of node/idleGc.ts waits for).
   */
  onIdle(listener: () => void): void {
    this.idleListeners.push(listener);
  }

  private notifyIdle(): void {
    if (this.busy !== 0) return;
    for (const l of this.idleListeners) l();
  }

  /** Counts `p` as pending work until it settles; returns it unchanged. */
  track<T>(p: Promise<T>): Promise<T> {
    const end = this.begin();
    p.then(end, end);
    return p;
  }

  get pending(): number {
    return this.busy;
  }

  /**
   * Resolves once nothing is pending, and still nothing is after a turn of the event loop (so work that the
   * last piece chained in a callback, or a message already read from the client, has had its chance to
   * register itself).
   */
  async whenIdle(): Promise<void> {
    for (;;) {
      if (this.busy > 0) await new Promise<void>((resolve) => this.waiters.push(resolve));
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (this.busy === 0) return;
    }
  }
}

/** The answer of `toonlens.test.idle`: the process's memory once idle (bench/heap-breakdown.ts and the bench read it). */
export interface IdleAnswer {
  idle: true;
  /** The idle collector's figures (node/idleGc.ts), null when it does not run. */
  gc: IdleGcStats | null;
  /** process.memoryUsage() (bytes). */
  memory: { rss: number; heapTotal: number; heapUsed: number; external: number; arrayBuffers: number };
  /** V8's heap spaces: committed (space_size), in use, and resident (physical_space_size), bytes. */
  heapSpaces: { name: string; space_size: number; space_used_size: number; physical_space_size: number }[];
}

/** The server's pending background work (one server per process). */
export const serverWork = new WorkTracker();
