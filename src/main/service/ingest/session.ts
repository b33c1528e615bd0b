/**
 * One import in progress: collects normalized spans into batches, writes each batch in one
 * transaction through the store, and keeps the counts of the import report.
 */
import type { SpanRecord } from '../../domain/span.js';
import type { ChannelTotals, EncodedBatch, TraceStore, WriteResult } from '../../store/ports.js';
import { continuesInputs, splitBatch } from '../../store/index.js';
import { InputHistory } from './history.js';
import type { EventBus } from '../events.js';
import { MAX_LISTED_ERRORS, type ImportReport } from '../../../shared/contract/import-report.js';
import { classify, walkRequest, type WalkSink } from './otlp.js';
import { field, str, type Obj } from './lenient.js';
import { asError, errorMessage } from '../../../shared/errors.js';
import { isStoreFailure } from '../../store/failures.js';

/** "<span_id> of trace <trace_id>" as given (cut short), for messages about a span not stored. */
function spanLabel(s: Obj): string {
  const cut = (v: unknown) => (str(v) ?? '?').slice(0, 40);
  return `${cut(field(s, 'spanId', 'span_id'))} of trace ${cut(field(s, 'traceId', 'trace_id'))}`;
}

/**
 * Spans per transaction. Measured on 100k generated spans: 1024, 4096 and 16384 cost the same CPU
 * (commits are cheap with synchronous=NORMAL), while peak RSS grows with the batch (308 / 357 /
 * 488 MB); 2048 keeps RSS low and a turn's spans mostly in one batch (summaries refresh a trace once).
 */
export const BATCH_SPANS = 2048;

/**
 * Where a session's batches go. In-thread imports queue them for the store (StoreWriter); an import
 * parsed in a worker thread posts them to the main thread, which writes and counts them
 * (pipeline.ts).
 */
export interface BatchWriter<T = SpanRecord> {
  /**
   * Set: each span is turned into what the batch holds (its storage form) as soon as it is
   * normalized, so the span's object tree dies young instead of living until its batch is written
   * (issue 19 item 3: on the history workload a batch of 1,024 spans kept alive was ~35 % of the ingest
   * worker's time in the garbage collector). A span it throws for is refused (handed to `reject` when
   * its batch is written, in the order of the batch, as a whole-batch encoding would).
   */
  prepare?(s: SpanRecord): T;
  /**
   * True when the prepared spans of the open batch hold enough bytes to be written now, whatever their
   * count: batches are bounded in bytes as well as spans, so memory between the threads does not grow
   * with the size of the spans (issue 19 item 3).
   */
  full?(): boolean;
  /**
   * Takes a batch. A span that cannot be stored (a value the store refuses, a tree too deep to
   * serialize) is handed to `reject` by its index and the rest are written; a failure of the store
   * itself (busy, full, read-only, damaged) fails the import, never blamed on a span.
   */
  write(spans: T[], lines: (number | null)[], reject: Reject): void;
  /** Resolves when every batch taken so far is written; rejects with the store failure that stopped them. */
  settled?(): Promise<void>;
}

export type Reject = (index: number, err: unknown) => void;

// Store failures (busy, full, read-only, damaged, I/O) fail the request (503 and friends) and are
// never turned into "span skipped"; row-level failures (a value out of range, a constraint, malformed
// JSON in one row) are everything else.

/**
 * Runs `write` on the batch; when it fails for a row-level reason, writes the spans one by one
 * (each its own transaction) so only the spans the store refuses are lost.
 */
export async function writeEach<T>(items: T[], write: (batch: T[]) => Promise<WriteResult>, reject: Reject, count: (r: WriteResult) => void): Promise<void> {
  try {
    count(await write(items));
    return;
  } catch (e) {
    if (isStoreFailure(e)) throw e;
    if (items.length === 1) return reject(0, e);
  }
  for (const [i, item] of items.entries()) {
    try {
      count(await write([item]));
    } catch (e) {
      if (isStoreFailure(e)) throw e;
      reject(i, e);
    }
  }
}

/**
 * Writes batches to the store, one transaction each, in the order taken, and keeps the stored counts
 * of the report. Parsing is synchronous and writes are not: batches queue here, and readers wait for
 * `settled()` between chunks so memory stays bounded. After a store failure nothing more is written.
 */
export class StoreWriter implements BatchWriter {
  inserted = 0;
  replaced = 0;
  readonly projects = new Set<string>();
  private tail: Promise<void> = Promise.resolve();
  private failure: Error | null = null;

  constructor(private readonly store: TraceStore) {}

  /** Spans refused by the store (row-level), with the line they came from when known. */
  readonly rejected: { line: number | null; message: string }[] = [];

  write(spans: SpanRecord[], _lines: (number | null)[], reject: Reject): void {
    this.enqueue(() => writeEach(spans, (b) => this.store.writeSpans(b), reject, (r) => this.count(r)));
  }

  /**
   * A batch encoded on the worker thread (pipeline.ts); `lines` = the line of each span. Resolves once
   * written. A refused batch is retried span by span where its adapter can cut it (store/index.ts
   * splitBatch), else all its spans are reported refused.
   */
  writeEncoded(batch: EncodedBatch, lines: (number | null)[] = []): Promise<void> {
    const reject: Reject = (i, e) => this.rejected.push({ line: lines[i] ?? null, message: `span could not be stored (${errorMessage(e)})` });
    this.enqueue(async () => {
      try {
        this.count(await this.store.writeEncoded(batch));
        return;
      } catch (e) {
        if (isStoreFailure(e)) throw e;
        const parts = batch.count > 1 ? splitBatch(batch) : null;
        if (!parts) {
          for (let i = 0; i < batch.count; i++) reject(i, e);
          return;
        }
        await writeEach(parts, async ([one]) => this.store.writeEncoded(one!), reject, (r) => this.count(r));
      }
    });
    return this.settled();
  }

  /** The counts of batches the store wrote from a channel (ports.ts BatchChannel), not through this writer. */
  absorb(t: ChannelTotals): void {
    this.inserted += t.inserted;
    this.replaced += t.replaced;
    for (const p of t.projects) this.projects.add(p);
    this.rejected.push(...t.rejected);
  }

  async settled(): Promise<void> {
    await this.tail;
    if (this.failure) throw this.failure;
  }

  /**
   * Resolves when the store has also written the summaries of every batch written (a store that
   * writes them in the background after answering `writeEncoded`: ports.ts `settled`).
   */
  async summarized(): Promise<void> {
    await this.store.settled?.();
  }

  private enqueue(run: () => Promise<void>): void {
    this.tail = this.tail.then(async () => {
      if (this.failure) return;
      try {
        await run();
      } catch (e) {
        this.failure = asError(e);
      }
    });
  }

  private count(r: WriteResult): void {
    this.inserted += r.inserted;
    this.replaced += r.replaced;
    for (const t of r.touched) this.projects.add(t.project_id);
  }
}

/** The report without the stored counts (what the parsing side knows). */
export type ParseReport = Omit<ImportReport, 'spans_imported' | 'spans_replaced' | 'projects'>;

/** Adds the stored counts to a parse report and announces the projects touched. */
export function completeReport(parsed: ParseReport, stored: StoreWriter, events?: EventBus): ImportReport {
  const projects = [...stored.projects].sort();
  for (const p of projects) events?.emit({ type: 'data.changed', project_id: p, tables: ['spans'] });
  const report = { ...parsed, skipped_reasons: { ...parsed.skipped_reasons }, errors: [...parsed.errors] };
  // Rows refused on the writing side of a worker import (pipeline.ts) join the parse side's counts.
  for (const r of stored.rejected) {
    report.spans_skipped++;
    report.skipped_reasons[STORE_REJECT_REASON] = (report.skipped_reasons[STORE_REJECT_REASON] ?? 0) + 1;
    report.error_count++;
    if (report.errors.length < MAX_LISTED_ERRORS) report.errors.push(r);
  }
  return { ...report, spans_imported: stored.inserted, spans_replaced: stored.replaced, projects };
}

/** The skip reason of spans the store refused (the message with the cause goes to `errors`). */
export const STORE_REJECT_REASON = 'span could not be stored';

export class ImportSession {
  format = 'unknown';
  bytes = 0;
  spans = 0;
  /** The batch's spans, or their storage forms (BatchWriter.prepare). */
  private batch: unknown[] = [];
  /** The input line (JSONL) or message (length-prefixed protobuf) of each span in `batch`. */
  private batchLines: (number | null)[] = [];
  /** The ids of each span in `batch` (for messages about a span the store refuses). */
  private batchIds: string[] = [];
  /** Spans of this batch that `prepare` refused: where they were in it, and why. */
  private refused: { at: number; line: number | null; trace_id: string; span_id: string; err: unknown }[] = [];
  /** Where the spans being walked come from, for reports; set by the readers. */
  line: number | null = null;
  private readonly report = {
    spans_skipped: 0,
    skipped_reasons: {} as Record<string, number>,
    non_trace_lines_skipped: 0,
    error_count: 0,
    errors: [] as { line: number | null; message: string }[],
  };
  /** Trace requests seen (a file with none and only errors is "not trace data"). */
  traceRequests = 0;
  private readonly sink: WalkSink = {
    span: (s: SpanRecord) => {
      this.spans++;
      const prepare = this.writer.prepare;
      if (prepare) {
        let item: unknown;
        try {
          item = prepare(s);
        } catch (err) {
          this.refused.push({ at: this.batch.length + this.refused.length, line: this.line, trace_id: s.trace_id, span_id: s.span_id, err });
          if (this.pending >= this.batchSpans) this.flush();
          return;
        }
        this.batch.push(item);
      } else this.batch.push(s);
      this.batchLines.push(this.line);
      this.batchIds.push(s.trace_id, s.span_id);
      if (this.pending >= this.batchSpans || this.writer.full?.()) this.flush();
    },
    skip: (reason: string) => this.skipped(reason),
    reject: (raw: Obj, reason: string) => {
      this.skipped(reason.replace(/ \(.*$/s, ''));
      this.error(this.line, `span ${spanLabel(raw)}: ${reason}`);
    },
  };

  /**
   * Only check the spans for what makes them storable (ids, times), building and writing none: the
   * OTLP spool's check of a large body (body-worker.ts). `spans` counts the spans that pass.
   */
  checkOnly(): this {
    this.sink.admitted = () => void this.spans++;
    return this;
  }

  private skipped(reason: string): void {
    this.report.spans_skipped++;
    this.report.skipped_reasons[reason] = (this.report.skipped_reasons[reason] ?? 0) + 1;
  }

  /** Repeated input messages read once, for a store that keeps continued inputs (history.ts). */
  private readonly history: InputHistory | undefined;

  constructor(
    private readonly writer: BatchWriter<unknown>,
    private readonly projectId: string | undefined,
    private readonly onBatch?: () => void,
    private readonly batchSpans = BATCH_SPANS,
    /** The store's adapter (ports.ts TraceStore.adapter): whether it keeps continued inputs. */
    adapter?: string,
  ) {
    this.history = adapter && continuesInputs(adapter) ? new InputHistory() : undefined;
  }

  /**
   * Handles one parsed JSON value (a request, or an array of them). Returns false when it is not
   * OTLP at all; logs/metrics requests are counted as skipped non-trace data.
   */
  request(v: unknown, rawDump?: (s: Obj) => string): 'traces' | 'other-signal' | 'not-otlp' {
    if (Array.isArray(v)) {
      let kind: 'traces' | 'other-signal' | 'not-otlp' = v.length ? 'other-signal' : 'not-otlp';
      for (const x of v) {
        const k = this.request(x, rawDump);
        if (k === 'not-otlp') return 'not-otlp';
        if (k === 'traces') kind = 'traces';
      }
      return kind;
    }
    const kind = classify(v);
    if (kind === 'traces') {
      this.traceRequests++;
      walkRequest(v as Obj, this.projectId, this.sink, rawDump, this.history);
    }
    return kind;
  }

  nonTrace(): void {
    this.report.non_trace_lines_skipped++;
  }

  error(line: number | null, message: string): void {
    this.report.error_count++;
    if (this.report.errors.length < MAX_LISTED_ERRORS) this.report.errors.push({ line, message });
  }

  /** Writes the pending batch in one transaction. */
  flush(): void {
    if (!this.pending) return;
    const spans = this.batch;
    const lines = this.batchLines;
    const ids = this.batchIds;
    const refused = this.refused;
    this.batch = [];
    this.batchLines = [];
    this.batchIds = [];
    this.refused = [];
    const storeRefused = (line: number | null, traceId: string, spanId: string, e: unknown) => {
      this.spans--;
      this.skipped(STORE_REJECT_REASON);
      this.error(line, `span ${spanId} of trace ${traceId} could not be stored (${errorMessage(e)})`);
    };
    for (const r of refused) storeRefused(r.line, r.trace_id, r.span_id, r.err);
    if (spans.length) this.writer.write(spans, lines, (i, e) => storeRefused(lines[i] ?? null, ids[2 * i]!, ids[2 * i + 1]!, e));
    this.onBatch?.();
  }

  /** Drops spans not yet written (the broken part of an input). */
  discardPending(): void {
    this.spans -= this.pending;
    this.batch = [];
    this.batchLines = [];
    this.batchIds = [];
    this.refused = [];
  }

  get errorCount(): number {
    return this.report.error_count;
  }

  get firstError(): { line: number | null; message: string } | undefined {
    return this.report.errors[0];
  }

  get pending(): number {
    return this.batch.length + this.refused.length;
  }

  /** Resolves when every batch flushed so far is written (see BatchWriter.settled). */
  async settled(): Promise<void> {
    await this.writer.settled?.();
  }

  /** Flushes what is pending, waits for every write and returns the parse side of the report. */
  async finish(): Promise<ParseReport> {
    this.flush();
    await this.settled();
    return this.parseReport();
  }

  /** The parse side of the report as it stands. */
  parseReport(): ParseReport {
    return { format: this.format, bytes: this.bytes, ...this.report };
  }
}
