/**
 * The writer of a SQLite store, as the owning thread sees it: `call(method, args)` runs a method of
 * the write side (write-side.ts) and resolves with its result. For a database file it runs on the
 * writer thread (write-worker.ts), which owns the one writer connection, so a write transaction —
 * an ingest batch of 1,024 spans, a retention delete — never holds the server's thread (issue 13.7:
 * a cheap request waited 1.2–1.9 s behind one). An in-memory database cannot be shared between
 * threads, so its writer runs on the calling thread.
 *
 * Calls are answered in the order sent. Ingest jobs get a channel (`channel`) their worker posts
 * batches into directly; the writer thread interleaves them with calls, one transaction at a time.
 */
import { MessageChannel, Worker } from 'node:worker_threads';
import { workerLaunch } from '../../worker-launch.js';
import { StoreError, type BatchChannel, type ChannelTotals } from '../ports.js';
import type { Db } from './open.js';
import { createWriteSide } from './write-side.js';
import { revive } from './thread-errors.js';
import { sqliteChannelHandle, stopSender } from './channel-sender.js';
import { portErrors } from './failures.js';
import type { WriteReply, WriteRequest, WriteWorkerData } from './write-protocol.js';

export interface Writer {
  /** Names of the write side's methods (`traces.writeSpans`, `app.feedback.insert`, ...). */
  readonly methods: readonly string[];
  call<T>(method: string, args: unknown[]): Promise<T>;
  /** A channel for an ingest worker's batches (ports.ts BatchChannel); absent on the calling thread. */
  channel?(onProgress?: (p: { spans: number; rawBytes: number }) => void): BatchChannel;
  /** Finishes the calls sent before, then closes the connection. */
  close(): Promise<void>;
}

/** The writer of an in-memory database: the write side on this thread. */
export function inlineWriter(db: Db, file: string): Writer {
  const side = createWriteSide(db, file);
  return {
    methods: Object.keys(side.methods),
    call: <T>(method: string, args: unknown[]) => portErrors(() => (side.methods[method] as (...a: unknown[]) => T)(...args)),
    close: async () => void side.close(),
  };
}

interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
}

interface Job {
  resolve(t: ChannelTotals): void;
  reject(e: Error): void;
  onProgress?: (p: { spans: number; rawBytes: number }) => void;
}

/** Starts the writer thread on `file`; resolves once the connection is open (and migrated). */
export function startWriterThread(opts: Omit<WriteWorkerData, 'entry'>): Promise<Writer> {
  const { file, entry } = workerLaunch(new URL('./write-worker.ts', import.meta.url), 'sqlite-write-worker.js');
  const worker = new Worker(file, { workerData: { ...opts, entry } satisfies WriteWorkerData });
  const pending = new Map<number, Pending>();
  const jobs = new Map<number, Job>();
  let nextId = 1;
  let gone: Error | null = null;
  let closing: Promise<void> | null = null;
  // Kept alive only while something waits for it (an idle store never holds the process open).
  const hold = () => (pending.size || jobs.size ? worker.ref() : worker.unref());

  const fail = (err: Error) => {
    gone ??= err;
    for (const p of pending.values()) p.reject(err);
    for (const j of jobs.values()) j.reject(err);
    pending.clear();
    jobs.clear();
  };

  return new Promise<Writer>((resolveStart, rejectStart) => {
    worker.on('error', (e) => {
      const err = new StoreError(`the writer thread failed: ${e.message}`);
      rejectStart(err);
      fail(err);
    });
    worker.on('exit', (code) => {
      const err = new StoreError(closing ? 'the store is closed' : `the writer thread exited (code ${code})`);
      rejectStart(err);
      fail(err);
    });
    worker.on('message', (m: WriteReply) => {
      switch (m.kind) {
        case 'ready':
          hold();
          return resolveStart(writer(m.methods));
        case 'open-failed':
          return rejectStart(revive(m.error));
        case 'value':
        case 'error':
        case 'closed': {
          const p = pending.get(m.id);
          pending.delete(m.id);
          hold();
          if (m.kind === 'error') p?.reject(revive(m.error));
          else p?.resolve(m.kind === 'value' ? m.value : undefined);
          return;
        }
        case 'progress':
          return jobs.get(m.job)?.onProgress?.({ spans: m.spans, rawBytes: m.rawBytes });
        case 'written':
        case 'failed': {
          const j = jobs.get(m.job);
          jobs.delete(m.job);
          hold();
          if (m.kind === 'written') j?.resolve(m.totals);
          else j?.reject(revive(m.error));
        }
      }
    });

    const send = <T>(req: (id: number) => WriteRequest): Promise<T> => {
      if (gone) return Promise.reject(gone);
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        hold();
        worker.postMessage(req(id));
      });
    };

    const writer = (methods: string[]): Writer => ({
      methods,
      call: (method, args) => send((id) => ({ kind: 'call', id, method, args })),
      channel(onProgress) {
        const job = nextId++;
        const { port1, port2 } = new MessageChannel();
        // The sender's backpressure (channel-sender.ts): [committed batches, stopped], shared with both threads.
        const control = new SharedArrayBuffer(8);
        let settled = false;
        const written = new Promise<ChannelTotals>((resolve, reject) => {
          if (gone) return reject(gone);
          jobs.set(job, { resolve, reject, onProgress });
          hold();
          worker.postMessage({ kind: 'channel', job, port: port2, control } satisfies WriteRequest, [port2]);
        });
        written.then(() => (settled = true), () => (settled = true));
        return {
          handle: sqliteChannelHandle({ port: port1, control }),
          written,
          close() {
            // A sender waiting for room wakes and stops at once.
            stopSender(control);
            if (settled) return;
            const j = jobs.get(job);
            jobs.delete(job);
            hold();
            if (!gone) worker.postMessage({ kind: 'drop', job } satisfies WriteRequest);
            j?.reject(new StoreError('the import was cancelled'));
          },
        };
      },
      close: () =>
        (closing ??= (async () => {
          if (!gone) await send<void>((id) => ({ kind: 'close', id })).catch(() => undefined);
          await worker.terminate();
        })()),
    });
  });
}
