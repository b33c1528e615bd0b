/**
 * Large file imports on two cores: a worker thread (ingest-worker.ts) reads, parses and normalizes
 * the file and posts batches of spans already encoded for the store's adapter (store/index.ts
 * batchEncoder; SQLite: JSON columns as text, bodies compressed), so parsing the next batch overlaps
 * writing the previous one. Where the store writes on a thread of its own (SQLite's writer thread,
 * `TraceStore.batchChannel`), the worker posts the batches straight to it and they never cross this
 * thread; otherwise (ClickHouse) they come here and this thread hands them to `writeEncoded`.
 *
 * Backpressure: the worker may be at most MAX_IN_FLIGHT batches ahead of the writes. Its reader is
 * synchronous (a batch is flushed from deep inside a line's walk), so it waits with Atomics.wait: on
 * a shared counter this thread bumps after each batch it wrote, or inside the store's channel sender
 * (store/index.ts openBatchSender), which waits for the store's own writes: memory stays bounded
 * whatever the file size and however slow the disk. Messages arrive in order, so every batch posted
 * before an error or the end is written before the outcome is reported, exactly as in-thread.
 */
import { Worker } from 'node:worker_threads';
import type { BatchChannel, ChannelBatch, ChannelHandle, TraceStore } from '../../store/ports.js';
import type { ImportReport } from '../../../shared/contract/import-report.js';
import { ServiceError, asError, detailText, type ErrorDetail } from '../../../shared/errors.js';
import { StoreWriter, completeReport, type ParseReport } from './session.js';
import { truncatedError, type BrokenRead, type FileJob, type ImportFileOptions } from './read-file.js';
import { workerLaunch } from '../../worker-launch.js';

/**
 * Batches posted but not yet committed. 1 is already full overlap (the worker parses batch n+1 while
 * batch n is written) and keeps one batch fewer alive than 2 (measured: 464 vs 501 MB peak RSS on 100k spans).
 */
export const MAX_IN_FLIGHT = 1;

/**
 * Spans per batch when parsing in the worker. Two heaps (and serialized messages between them) are
 * alive at once, so batches are halved: 1024 instead of 2048 cut peak RSS on 100k spans from 458 to
 * 397 MB for ~9% more write time on the main thread (a turn split over two batches is summarized twice).
 */
export const PIPELINE_BATCH_SPANS = 1024;

/** Shared Int32 slots: [committed batches, cancelled flag]. */
export const ACKED = 0;
export const CANCELLED = 1;

export interface WorkerInput {
  job: FileJob;
  projectId?: string;
  batchSpans: number;
  /** The TraceStore adapter the worker encodes spans for. */
  adapter: string;
  control: SharedArrayBuffer;
  /** Set when starting from sources: the .ts entry the tsx bootstrap imports. */
  entry?: string;
  /** The store's batch channel (ports.ts BatchChannel): batches go there, not to this thread. */
  channel?: ChannelHandle;
}

export type WorkerMessage =
  | ({ type: 'batch' } & ChannelBatch)
  | { type: 'done'; report: ParseReport; broken: BrokenRead | null }
  | { type: 'fail'; status: number | null; detail: ErrorDetail };

/**
 * Acknowledges a written batch on the next turn of the event loop, not at once. Node delivers all
 * queued worker messages in one go, and a worker acknowledged at once has its next batch queued
 * before that loop ends: the server thread then wrote batch after batch for seconds without
 * answering anyone (2.4 s measured for a 32 MB OTLP body). Acknowledging after setImmediate lets
 * I/O and timers run between batches; the worker parses the next one meanwhile all the same.
 */
export function ackLater(slots: Int32Array): void {
  setImmediate(() => {
    Atomics.add(slots, ACKED, 1);
    Atomics.notify(slots, ACKED);
  });
}

/**
 * The store's channel for a job's batches, when it has one; its outcome is watched from the start,
 * so a store failure stops the import at once (and never goes unhandled).
 */
export function openChannel(store: TraceStore, fail: (e: unknown) => void, onProgress?: (p: { spans: number; rawBytes: number }) => void): BatchChannel | null {
  const channel = store.batchChannel?.(onProgress) ?? null;
  channel?.written.catch(fail);
  return channel;
}

export function importFileInWorker(store: TraceStore, job: FileJob, opts: ImportFileOptions): Promise<ImportReport> {
  const control = new SharedArrayBuffer(8);
  const slots = new Int32Array(control);
  const stored = new StoreWriter(store);
  let failEarly: (e: unknown) => void = () => undefined;
  const channel = openChannel(store, (e) => failEarly(e), (p) => opts.onProgress?.({ bytes: p.rawBytes, totalBytes: job.size, spans: p.spans }));
  const { file, entry } = workerLaunch(new URL('./ingest-worker.ts', import.meta.url), 'ingest-worker.js');
  const workerData: WorkerInput = { job, projectId: opts.projectId, adapter: store.adapter, control, entry, batchSpans: opts.batchSpans ?? store.writeBatchSpans ?? PIPELINE_BATCH_SPANS, channel: channel?.handle };
  // V8's default young generation: 96 MB instead of 48 cut ~3 CPU-s per 100k history spans at load 20, but peak
  // RSS went from 446–452 to 473–540 MB over the 500 MB target (docs/store.md "Figures").
  const worker = new Worker(file, { workerData, transferList: channel ? [...channel.handle.transfer] : [] });
  const spans = () => stored.inserted + stored.replaced;

  return new Promise<ImportReport>((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      // Wakes a worker waiting for room, then stops it (it may still be reading).
      Atomics.store(slots, CANCELLED, 1);
      Atomics.notify(slots, ACKED);
      channel?.close();
      void worker.terminate();
      fn();
    };
    failEarly = (e) => settle(() => reject(asError(e)));
    // Messages are handled one after another (a write is async): the order of batches, errors and
    // the end is the order the worker posted them.
    let handled: Promise<void> = Promise.resolve();
    const handle = async (msg: WorkerMessage) => {
      if (settled) return;
      try {
        if (msg.type === 'batch') {
          await stored.writeEncoded(msg.batch, msg.lines);
          ackLater(slots);
          opts.onProgress?.({ bytes: msg.rawBytes, totalBytes: job.size, spans: spans() });
        } else if (msg.type === 'done') {
          await written(stored, channel);
          if (msg.broken) throw truncatedError(job, msg.broken, spans());
          const report = completeReport(msg.report, stored, opts.events);
          opts.onProgress?.({ bytes: report.bytes, totalBytes: report.bytes, spans: spans() });
          settle(() => resolve(report));
        } else {
          await written(stored, channel);
          throw msg.status === null ? new Error(detailText(msg.detail)) : new ServiceError(msg.status, msg.detail);
        }
      } catch (e) {
        settle(() => reject(asError(e)));
      }
    };
    // After its outcome the worker may exit before the writes it reported are acknowledged here.
    let reported = false;
    // `handle` catches its own failures, so the chain never rejects.
    worker.on('message', (msg: WorkerMessage) => {
      if (msg.type !== 'batch') reported = true;
      handled = handled.then(() => handle(msg));
    });
    worker.on('error', (e) => settle(() => reject(new Error(`${job.where}: ingest worker failed: ${e.message}`))));
    worker.on('exit', (code) => reported || settle(() => reject(new Error(`${job.where}: ingest worker exited (code ${code}) before finishing`))));
  });
}

/**
 * Waits until every batch the worker posted is written (it posted `end` to the channel before
 * reporting), and adds the channel's counts to the import's.
 */
export async function written(stored: StoreWriter, channel: BatchChannel | null, summaries: 'wait' | 'later' = 'wait'): Promise<void> {
  if (channel) stored.absorb(await channel.written);
  await stored.settled();
  if (summaries === 'wait') await stored.summarized();
}
