/**
 * The server's side of the JSON worker: one lazily started worker thread, jobs sent one at a time in
 * order, a job whose document version is no longer current dropped before it is sent (so a burst of edits
 * costs one check, not a queue of stale ones). A job that stops being wanted while it runs (its document got
 * a new version or was closed: {@link JsonWorkerClient.cancelUnwanted}) is cancelled by terminating the
 * worker — the check is synchronous core code, so this is the one way to stop it mid-phase — and the next
 * job starts a fresh worker. A job running longer than {@link LONG_JOB_MS} calls its `onLong` hook (the
 * feature shows `$/progress` there). When the worker cannot start (no dist/jsonWorker.js, as when the
 * features run in-process under tests) or dies, callers get `undefined` and check in-thread.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { WorkerJob, WorkerReply } from './jsonWorkerProtocol';

type JobBody = WorkerJob extends infer J ? (J extends WorkerJob ? Omit<J, 'id'> : never) : never;

/** After this long in the worker a job counts as long (its `onLong` hook runs). */
export const LONG_JOB_MS = 1000;

export interface JobHooks {
  /** What the job is, for the log (`checking big.report.json`). */
  label?: string;
  /** Called when the job has run {@link LONG_JOB_MS}; the function it returns is called once the job ends, however it ends. */
  onLong?: () => () => void;
}

interface Queued extends JobHooks {
  body: JobBody;
  /** Still worth running (the document version it is for is current). */
  wanted: () => boolean;
  resolve: (r: WorkerReply | undefined) => void;
}

interface Running extends Queued {
  id: number;
  timer: NodeJS.Timeout;
  endLong?: () => void;
}

/** What the worker did, for the test-only counters command. */
export interface WorkerCounters {
  /** Jobs posted to a worker. */
  started: number;
  /** Jobs that answered. */
  completed: number;
  /** Jobs stopped mid-run because nobody wanted them any more (the worker was terminated). */
  cancelled: number;
  /** Queued jobs dropped before they were sent. */
  dropped: number;
  /** Worker threads started. */
  workers: number;
  /** Jobs that reached {@link LONG_JOB_MS}. */
  long: number;
}

export class JsonWorkerClient {
  private worker: Worker | undefined;
  private broken = false;
  private nextId = 1;
  private readonly queue: Queued[] = [];
  private inFlight: Running | undefined;
  readonly counters: WorkerCounters = { started: 0, completed: 0, cancelled: 0, dropped: 0, workers: 0, long: 0 };

  /** `log` gets one line when a job turns long and when a running job is cancelled (the server's Output). */
  constructor(
    private readonly script = join(__dirname, 'jsonWorker.js'),
    private readonly log: (message: string) => void = () => undefined,
  ) {}

  /** Whether jobs can run off-thread at all. */
  get available(): boolean {
    return !this.broken && existsSync(this.script);
  }

  /** Runs a job; resolves undefined when it was dropped or cancelled (no longer wanted) or the worker is unavailable. */
  run(body: JobBody, wanted: () => boolean, hooks: JobHooks = {}): Promise<WorkerReply | undefined> {
    if (!this.available) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.queue.push({ body, wanted, resolve, ...hooks });
      this.pump();
    });
  }

  /**
   * Asks every job whether it is still wanted: queued ones that are not resolve undefined now, and a running
   * one that is not is stopped (its worker terminated; the next job gets a new one). Call when a document
   * gets a new version or is closed.
   */
  cancelUnwanted(): void {
    for (let i = this.queue.length - 1; i >= 0; i--) {
      const q = this.queue[i]!;
      if (q.wanted()) continue;
      this.queue.splice(i, 1);
      this.counters.dropped++;
      q.resolve(undefined);
    }
    const job = this.inFlight;
    if (!job || job.wanted()) return;
    const w = this.worker;
    this.worker = undefined; // its exit is expected: not a crash
    void w?.terminate();
    this.counters.cancelled++;
    this.log(`JSON worker: cancelled ${job.label ?? 'a job'} (its document has a new version or was closed)`);
    this.finish(job, undefined);
  }

  dispose(): void {
    const w = this.worker;
    this.worker = undefined;
    this.broken = true;
    void w?.terminate();
    if (this.inFlight) this.finish(this.inFlight, undefined, false);
    for (const q of this.queue.splice(0)) q.resolve(undefined);
  }

  private finish(job: Running, reply: WorkerReply | undefined, pump = true): void {
    if (this.inFlight === job) this.inFlight = undefined;
    clearTimeout(job.timer);
    job.endLong?.();
    job.resolve(reply);
    if (pump) this.pump();
  }

  private pump(): void {
    if (this.inFlight) return;
    let next: Queued | undefined;
    while ((next = this.queue.shift()) && !next.wanted()) {
      this.counters.dropped++;
      next.resolve(undefined);
    }
    if (!next) return;
    const w = this.ensureWorker();
    if (!w) {
      next.resolve(undefined);
      for (const q of this.queue.splice(0)) q.resolve(undefined);
      return;
    }
    const id = this.nextId++;
    const job: Running = { ...next, id, timer: setTimeout(() => this.long(job), LONG_JOB_MS) };
    job.timer.unref?.();
    this.inFlight = job;
    this.counters.started++;
    w.postMessage({ ...next.body, id } as WorkerJob);
  }

  private long(job: Running): void {
    if (this.inFlight !== job) return;
    this.counters.long++;
    this.log(`JSON worker: ${job.label ?? 'a job'} has run for over ${LONG_JOB_MS / 1000} s`);
    job.endLong = job.onLong?.();
  }

  private ensureWorker(): Worker | undefined {
    if (this.worker) return this.worker;
    try {
      const w = new Worker(this.script);
      w.unref(); // never keeps the server alive
      this.counters.workers++;
      w.on('message', (reply: WorkerReply) => {
        const job = this.inFlight;
        if (this.worker !== w || !job || job.id !== reply.id) return;
        this.counters.completed++;
        this.finish(job, reply);
      });
      const fail = () => {
        if (this.worker !== w) return; // terminated on purpose (a cancelled job, dispose)
        // A crash (out of memory on an absurd document): this job and the rest check in-thread.
        this.worker = undefined;
        this.broken = true;
        if (this.inFlight) this.finish(this.inFlight, undefined, false);
        for (const q of this.queue.splice(0)) q.resolve(undefined);
      };
      w.on('error', fail);
      w.on('exit', (code) => {
        if (code !== 0) fail();
      });
      this.worker = w;
      return w;
    } catch {
      this.broken = true;
      return undefined;
    }
  }
}
