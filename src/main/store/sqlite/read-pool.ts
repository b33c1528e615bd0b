/**
 * Reads off the main thread (issue 8 item 2): a small pool of worker threads, each with its own
 * read-only connection to the database file (WAL lets them read while the one writer, on the main
 * thread, writes). A read waits only for a free worker, never for the writer or for the JavaScript
 * of other requests; with two workers a slow group-by and a cheap chat read run side by side.
 *
 * Cancellation: better-sqlite3 cannot interrupt a running statement, so a read whose AbortSignal
 * fires while it runs has its worker terminated and replaced (~tens of ms from built JavaScript);
 * a queued read is just dropped. Either way its promise rejects with StoreAbortedError.
 */
import { Worker } from 'node:worker_threads';
import { workerLaunch } from '../../worker-launch.js';
import { StoreAbortedError, StoreError } from '../ports.js';
import type { ReadMethod } from './reader.js';
import type { ReadReply, ReadRequest, ReadWorkerData } from './read-protocol.js';
import { revive } from './thread-errors.js';
import { textOf } from '../../../shared/text.js';

export interface ReadPoolOptions {
  file: string;
  /** Worker threads (each one connection); default 2. */
  size: number;
  nativeBinding?: string;
}

interface Job {
  id: number;
  /**
   * Times a worker died under this job: a read that delivered nothing yet is retried once on a fresh
   * worker (reads have no effects; a worker can fail to start on a loaded machine).
   */
  losses: number;
  delivered: boolean;
  method: ReadMethod;
  args: unknown[];
  signal?: AbortSignal;
  onAbort?: () => void;
  /** A value read: settles once. A streamed read: rows arrive in chunks, then done. */
  onValue(v: unknown): void;
  onChunk(rows: unknown[]): void;
  onDone(): void;
  onError(e: Error): void;
}

interface Slot {
  worker: Worker;
  job: Job | null;
}

/** What a worker's failure was, whatever it threw (an Error, a string, an object). */
function describe(e: unknown): string {
  if (e instanceof Error) return `${e.name}: ${e.message}${(e as { code?: unknown }).code ? ` (${String((e as { code?: unknown }).code)})` : ''}`;
  try {
    return textOf(e);
  } catch {
    return String(e);
  }
}

export class ReadPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly opts: ReadPoolOptions) {}

  /** One read answered with a value. */
  call<T>(method: ReadMethod, args: unknown[], signal?: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.submit({ method, args, signal, onValue: (v) => resolve(v as T), onChunk: () => undefined, onDone: () => undefined, onError: reject });
    });
  }

  /** One read answered with rows as they are computed (the reader method returns a generator). */
  async *stream<T>(method: ReadMethod, args: unknown[], signal?: AbortSignal): AsyncGenerator<T> {
    const buffered: unknown[][] = [];
    let done = false;
    let failure = null as Error | null;
    let wake: (() => void) | null = null;
    const notify = () => {
      wake?.();
      wake = null;
    };
    const stop = new AbortController();
    const both = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
    this.submit({
      method,
      args,
      signal: both,
      onValue: () => undefined,
      onChunk: (rows) => (buffered.push(rows), notify()),
      onDone: () => ((done = true), notify()),
      onError: (e) => ((failure = e), notify()),
    });
    try {
      for (;;) {
        while (buffered.length) yield* buffered.shift()! as T[];
        if (failure) throw failure;
        if (done) return;
        await new Promise<void>((r) => (wake = r));
      }
    } finally {
      // The consumer stopped early (client gone, break): stop the read if it still runs.
      if (!done && !failure) stop.abort();
    }
  }

  /** Terminates the workers; queued and running reads reject. */
  async close(): Promise<void> {
    this.closed = true;
    const gone = new StoreError('the store is closed');
    for (const j of this.queue.splice(0)) this.finish(j, () => j.onError(gone));
    await Promise.all(
      this.slots.splice(0).map((s) => {
        if (s.job) this.finish(s.job, () => s.job!.onError(gone));
        return s.worker.terminate();
      }),
    );
  }

  private submit(j: Omit<Job, 'id' | 'losses' | 'delivered'>): void {
    const job: Job = { ...j, id: this.nextId++, losses: 0, delivered: false };
    if (this.closed) return job.onError(new StoreError('the store is closed'));
    if (job.signal?.aborted) return job.onError(new StoreAbortedError());
    if (job.signal) {
      job.onAbort = () => this.abort(job);
      job.signal.addEventListener('abort', job.onAbort, { once: true });
    }
    this.queue.push(job);
    this.pump();
  }

  /** Gives queued jobs to idle workers, starting workers up to the pool size. */
  private pump(): void {
    while (this.queue.length) {
      let slot = this.slots.find((s) => !s.job);
      if (!slot && this.slots.length < this.opts.size) slot = this.spawn();
      if (!slot) return;
      const job = this.queue.shift()!;
      slot.job = job;
      slot.worker.ref(); // keep the process alive while a read is in flight
      slot.worker.postMessage({ id: job.id, method: job.method, args: job.args } satisfies ReadRequest);
    }
    // Keep one idle worker started while the pool may grow: a worker starts in ~0.3–2 s (module load,
    // connection), which a cheap read arriving during a long one (a chat beside a group-by) would
    // otherwise wait for — measured 2 s in the scale bench before this.
    if (!this.closed && this.slots.length < this.opts.size && !this.slots.some((s) => !s.job)) this.spawn();
  }

  private spawn(): Slot {
    const { file, entry } = workerLaunch(new URL('./read-worker.ts', import.meta.url), 'sqlite-read-worker.js');
    const workerData: ReadWorkerData = { file: this.opts.file, nativeBinding: this.opts.nativeBinding, entry };
    const slot: Slot = { worker: new Worker(file, { workerData }), job: null };
    slot.worker.unref();
    slot.worker.on('message', (m: ReadReply) => this.onReply(slot, m));
    slot.worker.on('error', (e: unknown) => this.lost(slot, `read worker failed: ${describe(e)}`));
    slot.worker.on('exit', (code) => this.lost(slot, `read worker exited (code ${code})`));
    this.slots.push(slot);
    return slot;
  }

  private onReply(slot: Slot, m: ReadReply): void {
    const job = slot.job;
    if (!job || job.id !== m.id) return;
    if (m.kind === 'chunk') {
      job.delivered = true;
      return job.onChunk(m.rows);
    }
    slot.job = null;
    slot.worker.unref();
    this.finish(job, () => {
      if (m.kind === 'value') job.onValue(m.value);
      else if (m.kind === 'done') job.onDone();
      else job.onError(revive(m.error));
    });
    this.pump();
  }

  /** A worker died (or was terminated): its read fails, a fresh worker takes its place on demand. */
  private lost(slot: Slot, message: string): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    this.slots.splice(i, 1);
    const job = slot.job;
    slot.job = null;
    if (job && !job.delivered && ++job.losses < 2 && !this.closed) this.queue.unshift(job);
    else if (job) this.finish(job, () => job.onError(new StoreError(message)));
    if (!this.closed) this.pump();
  }

  private abort(job: Job): void {
    const q = this.queue.indexOf(job);
    if (q >= 0) {
      this.queue.splice(q, 1);
      return this.finish(job, () => job.onError(new StoreAbortedError()));
    }
    const slot = this.slots.find((s) => s.job === job);
    if (!slot) return;
    // better-sqlite3 has no interrupt: stop the thread running the statement.
    this.slots.splice(this.slots.indexOf(slot), 1);
    slot.job = null;
    void slot.worker.terminate();
    this.finish(job, () => job.onError(new StoreAbortedError()));
    this.pump();
  }

  private finish(job: Job, settle: () => void): void {
    if (job.onAbort) job.signal?.removeEventListener('abort', job.onAbort);
    settle();
  }
}
