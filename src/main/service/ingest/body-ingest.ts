/**
 * Large bodies parsed off the server thread (issue 13.7: a 32.7 MB OTLP post held every other request
 * for 4.8 s). One ingest worker thread is kept alive per server and takes bodies — OTLP posts and
 * uploads — one after another: it decompresses, parses and normalizes, and posts the encoded batches
 * straight to the store's writer thread (SQLite; `TraceStore.batchChannel`), so neither the body nor
 * its spans nor their write transactions touch this thread: it only waits for the outcome. For a
 * store without a writer thread (ClickHouse) the batches come here for `writeEncoded`. Small bodies
 * are parsed in-thread, where a worker round trip would cost more than the parse (their write still
 * runs on the writer thread).
 *
 * Over capacity — more than MAX_QUEUED_BYTES of bodies waiting — a new body is refused with 429 and
 * Retry-After (an OTLP exporter retries it later) instead of piling up memory.
 */
import { Worker } from 'node:worker_threads';
import zlib from 'node:zlib';
import type { TraceStore } from '../../store/ports.js';
import type { ImportReport } from '../../../shared/contract/import-report.js';
import { ServiceError, detailText, errorMessage, tooManyRequests } from '../../../shared/errors.js';
import { StoreWriter, completeReport, type ParseReport } from './session.js';
import { checkEncoding, importBuffer, type ImportBufferOptions } from './buffer.js';
import { ACKED, CANCELLED, ackLater, openChannel, written } from './pipeline.js';
import { isGzip } from './document.js';
import type { BodyJob, BodyReply, SpoolThreshold } from './body-worker.js';
import { workerLaunch } from '../../worker-launch.js';

/** Bodies up to this size are parsed in-thread (a few ms); larger ones go to the worker. */
export const INLINE_MAX_BYTES = 256 * 1024;
export const INLINE_MAX_GZIP_BYTES = 16 * 1024;
/**
 * Spans per write transaction for body jobs. Summaries are maintained per batch over every span of
 * each touched trace, so small batches make one huge trace quadratic: 64 took a 20,000-span trace
 * past 3 minutes; 1024 (the file pipeline's) keeps it linear-ish. The transactions run on the
 * writer thread, so their length no longer pauses the server (bench/sections/70-stall.ts).
 */
export const BODY_BATCH_SPANS = 1024;
/** Bodies waiting or in work beyond this → 429. Two 64 MiB bodies fit; a flood does not. */
export const MAX_QUEUED_BYTES = 160 * 1024 * 1024;

/** A body checked, not imported (importOrCheck): its parse report, span count and bytes as received. */
export interface BodyChecked {
  checked: ParseReport;
  spans: number;
  body: Buffer;
}

export class BodyIngester {
  private worker: Worker | null = null;
  private tail: Promise<unknown> = Promise.resolve();
  private nextId = 1;
  private queuedBytes = 0;
  private closed = false;

  constructor(
    private readonly store: TraceStore,
    private readonly maxQueuedBytes = MAX_QUEUED_BYTES,
  ) {}

  /**
   * Imports one body: in-thread when small, else through the worker (in arrival order). `handOver`:
   * the caller is done with `body`, whose memory may then move to the worker (detached here) instead
   * of being copied — a 60 MiB request costs 60 MiB, not 120.
   */
  async import(body: Buffer, opts: ImportBufferOptions, handOver = false): Promise<ImportReport> {
    const out = await this.importOrCheck(body, opts, handOver);
    if ('checked' in out) throw new Error('a body checked for the spool without a spool threshold'); // unreachable: no spoolAt
    return out;
  }

  /**
   * As `import`, except that a body of at least `spoolAt` spans or decompressed bytes that goes to the
   * worker is only checked there (parsed and normalized, nothing written: 400/413 as an import) and
   * comes back with the parse report, to be spooled (spool.ts). Inline bodies are always imported.
   */
  async importOrCheck(body: Buffer, opts: ImportBufferOptions, handOver = false, spoolAt?: SpoolThreshold): Promise<ImportReport | BodyChecked> {
    // gzip can hide 64 MiB in a few KB: a compressed body stays on this thread only when it is small
    // once decompressed too (decompressed here no further than that), else it goes to the worker.
    const zipped = /gzip/i.test(opts.contentEncoding ?? '') || isGzip(body);
    if (body.length <= (zipped ? INLINE_MAX_GZIP_BYTES : INLINE_MAX_BYTES) && (!zipped || inflatesWithin(body, INLINE_MAX_BYTES))) {
      return importBuffer(this.store, body, opts);
    }
    checkEncoding(opts); // 415 at once, before queueing
    if (this.queuedBytes > 0 && this.queuedBytes + body.length > this.maxQueuedBytes) {
      throw tooManyRequests(`Too many large bodies in progress (${Math.round(this.queuedBytes / 1048576)} MiB waiting); retry shortly`, 2);
    }
    const size = body.length; // a handed-over body is detached once it runs
    this.queuedBytes += size;
    const run = this.tail.then(() => this.run(body, opts, handOver, spoolAt));
    this.tail = run.catch(() => undefined);
    try {
      return await run;
    } finally {
      this.queuedBytes -= size;
    }
  }

  /** Stops at once: the body in work is cut (its committed batches stay; the client gets an error), queued ones are refused. */
  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = null;
    await worker?.terminate();
    await this.tail;
  }

  /** `data.changed` for these projects once the store has written the summaries it owed (body answered before). */
  private async announceSummaries(projects: string[], opts: ImportBufferOptions): Promise<void> {
    try {
      await this.store.settled?.();
    } catch {
      return; // the store retries them (writer.ts); nothing new to show yet
    }
    for (const p of projects.sort()) opts.events?.emit({ type: 'data.changed', project_id: p, tables: ['spans'] });
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const { file, entry } = workerLaunch(new URL('./ingest-worker.ts', import.meta.url), 'ingest-worker.js');
    const worker = new Worker(file, { workerData: { bodies: true, entry } });
    worker.unref(); // an idle body worker never keeps the process alive
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = null;
    });
    worker.on('error', () => undefined); // reported to the job in progress through 'exit'
    return (this.worker = worker);
  }

  private run(body: Buffer, opts: ImportBufferOptions, handOver: boolean, spoolAt?: SpoolThreshold): Promise<ImportReport | BodyChecked> {
    if (this.closed) return Promise.reject(new ServiceError(503, 'The server is shutting down'));
    const worker = this.ensureWorker();
    const id = this.nextId++;
    const control = new SharedArrayBuffer(8);
    const slots = new Int32Array(control);
    const stored = new StoreWriter(this.store);
    // Transferred as is when handed over and owning its memory (a large request body does); else a
    // copy (a view into a larger pooled buffer, or a buffer the caller keeps).
    const owns = handOver && body.byteOffset === 0 && body.length === body.buffer.byteLength && !(body.buffer instanceof SharedArrayBuffer);
    const copy = (owns ? body.buffer : body.buffer.slice(body.byteOffset, body.byteOffset + body.length)) as ArrayBuffer;
    return new Promise<ImportReport | BodyChecked>((resolve, reject) => {
      let over = false;
      const finish = (fn: () => void) => {
        over = true;
        worker.off('message', onMessage);
        worker.off('exit', onExit);
        Atomics.store(slots, CANCELLED, 1);
        Atomics.notify(slots, ACKED);
        channel?.close();
        fn();
      };
      // A store failure stops the job at once (the worker is told through the control block).
      const channel = openChannel(this.store, (e) => {
        if (!over) finish(() => reject(e instanceof Error ? e : new Error(errorMessage(e))));
      });
      const onExit = (code: number) => finish(() => reject(new Error(`ingest worker exited (code ${code}) while parsing a body`)));
      // Messages are handled one after another (a write is async), in the order the worker posted them.
      let handled: Promise<void> = Promise.resolve();
      const handle = async (msg: BodyReply) => {
        if (over) return;
        try {
          if (msg.type === 'batch') {
            await stored.writeEncoded(msg.batch, msg.lines);
            ackLater(slots);
          } else if (msg.type === 'checked') {
            await written(stored, channel, 'later'); // nothing was sent: closes the channel's side
            if (!over) finish(() => resolve({ checked: msg.report, spans: msg.spans, body: Buffer.from(msg.body) }));
          } else if (msg.type === 'done') {
            await written(stored, channel, opts.summaries);
            if (!over) finish(() => resolve(completeReport(msg.report, stored, opts.events)));
            // Answered before the store's summaries were written: views refresh again once they are.
            if (opts.summaries === 'later' && this.store.settled) void this.announceSummaries([...stored.projects], opts);
          } else {
            await written(stored, channel);
            if (!over) finish(() => reject(msg.status === null ? new Error(detailText(msg.detail)) : new ServiceError(msg.status, msg.detail)));
          }
        } catch (e) {
          // A store failure while writing: the worker is told to stop, the caller gets the failure.
          if (!over) finish(() => reject(e instanceof Error ? e : new Error(errorMessage(e))));
        }
      };
      const onMessage = (msg: BodyReply) => {
        if (msg.id === id) handled = handled.then(() => handle(msg));
      };
      worker.on('message', onMessage);
      worker.on('exit', onExit);
      const job: BodyJob = {
        type: 'job',
        id,
        body: copy,
        contentType: opts.contentType,
        contentEncoding: opts.contentEncoding,
        projectId: opts.projectId,
        control,
        batchSpans: this.store.writeBatchSpans ?? BODY_BATCH_SPANS,
        adapter: this.store.adapter,
        channel: channel?.handle,
        spoolAt,
      };
      worker.postMessage(job, [copy, ...(channel?.handle.transfer ?? [])]);
    });
  }
}

/** Whether a gzip body decompresses to at most `max` bytes (a broken one counts as small: the import says what is wrong). */
function inflatesWithin(body: Buffer, max: number): boolean {
  try {
    zlib.gunzipSync(body, { maxOutputLength: max });
    return true;
  } catch (e) {
    return !((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || e instanceof RangeError);
  }
}

const ingesters = new WeakMap<object, BodyIngester>();

/** The body ingester of a server (one per service context), made on first use. */
export function bodyIngester(ctx: { traces: TraceStore }): BodyIngester {
  let b = ingesters.get(ctx);
  if (!b) ingesters.set(ctx, (b = new BodyIngester(ctx.traces)));
  return b;
}

export async function closeBodyIngester(ctx: object): Promise<void> {
  await ingesters.get(ctx)?.close();
  ingesters.delete(ctx);
}
