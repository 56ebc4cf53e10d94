/**
 * The server's side of the JSON worker: one lazily started worker thread, jobs sent one at a time in
 * order, a job whose document version is no longer current dropped before it is sent (so a burst of edits
 * costs one check, not a queue of stale ones). When the worker cannot start (no dist/jsonWorker.js, as
 * when the features run in-process under tests) or dies, callers get `undefined` and check in-thread.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { WorkerJob, WorkerReply } from './jsonWorkerProtocol';

type JobBody = WorkerJob extends infer J ? (J extends WorkerJob ? Omit<J, 'id'> : never) : never;

interface Queued {
  body: JobBody;
  /** Still worth running (the document version it is for is current). */
  wanted: () => boolean;
  resolve: (r: WorkerReply | undefined) => void;
}

export class JsonWorkerClient {
  private worker: Worker | undefined;
  private broken = false;
  private nextId = 1;
  private readonly queue: Queued[] = [];
  private inFlight: (Queued & { id: number }) | undefined;

  constructor(private readonly script = join(__dirname, 'jsonWorker.js')) {}

  /** Whether jobs can run off-thread at all. */
  get available(): boolean {
    return !this.broken && existsSync(this.script);
  }

  /** Runs a job; resolves undefined when it was dropped (no longer wanted) or the worker is unavailable. */
  run(body: JobBody, wanted: () => boolean): Promise<WorkerReply | undefined> {
    if (!this.available) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.queue.push({ body, wanted, resolve });
      this.pump();
    });
  }

  dispose(): void {
    void this.worker?.terminate();
    this.worker = undefined;
    this.broken = true;
    for (const q of this.queue.splice(0)) q.resolve(undefined);
  }

  private pump(): void {
    if (this.inFlight) return;
    let next: Queued | undefined;
    while ((next = this.queue.shift()) && !next.wanted()) next.resolve(undefined);
    if (!next) return;
    const w = this.ensureWorker();
    if (!w) {
      next.resolve(undefined);
      for (const q of this.queue.splice(0)) q.resolve(undefined);
      return;
    }
    const id = this.nextId++;
    this.inFlight = { ...next, id };
    w.postMessage({ ...next.body, id } as WorkerJob);
  }

  private ensureWorker(): Worker | undefined {
    if (this.worker) return this.worker;
    try {
      const w = new Worker(this.script);
      w.unref(); // never keeps the server alive
      w.on('message', (reply: WorkerReply) => {
        const job = this.inFlight;
        if (!job || job.id !== reply.id) return;
        this.inFlight = undefined;
        job.resolve(reply);
        this.pump();
      });
      const fail = () => {
        // A crash (out of memory on an absurd document): this job and the rest check in-thread.
        this.worker = undefined;
        this.broken = true;
        this.inFlight?.resolve(undefined);
        this.inFlight = undefined;
        for (const q of this.queue.splice(0)) q.resolve(undefined);
      };
      w.on('error', fail);
      w.on('exit', (code) => {
        if (this.worker === w && code !== 0) fail();
      });
      this.worker = w;
      return w;
    } catch {
      this.broken = true;
      return undefined;
    }
  }
}
