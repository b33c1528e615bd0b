/**
 * One import in progress: collects normalized spans into batches, writes each batch in one
 * transaction through the store, and keeps the counts of the import report.
 */
import type { SpanRecord } from '../../domain/span.js';
import type { Store } from '../../store/index.js';
import type { PreparedSpan, WriteResult } from '../../store/sqlite/ingest.js';
import type { EventBus } from '../events.js';
import { MAX_LISTED_ERRORS, type ImportReport } from '../../../shared/contract/import-report.js';
import { classify, walkRequest } from './otlp.js';
import type { Obj } from './lenient.js';

/**
 * Spans per transaction. Measured on 100k generated spans: 1024, 4096 and 16384 cost the same CPU
 * (commits are cheap with synchronous=NORMAL), while peak RSS grows with the batch (308 / 357 /
 * 488 MB); 2048 keeps RSS low and a turn's spans mostly in one batch (summaries refresh a trace once).
 */
export const BATCH_SPANS = 2048;

/**
 * Where a session's batches go. In-thread imports write them to the store right away (StoreWriter);
 * an import parsed in a worker thread posts them to the main thread, which writes and counts them
 * (pipeline.ts).
 */
export interface BatchWriter {
  write(spans: SpanRecord[]): void;
}

/** Writes batches to the store, one transaction each, and keeps the stored counts of the report. */
export class StoreWriter implements BatchWriter {
  inserted = 0;
  replaced = 0;
  readonly projects = new Set<string>();

  constructor(private readonly store: Store) {}

  write(spans: SpanRecord[]): void {
    this.count(this.store.ingest.writeBatch(spans));
  }

  /** A batch prepared on the worker thread (pipeline.ts). */
  writePrepared(rows: PreparedSpan[]): void {
    this.count(this.store.ingest.writePrepared(rows));
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
  return { ...parsed, spans_imported: stored.inserted, spans_replaced: stored.replaced, projects };
}

export class ImportSession {
  format = 'unknown';
  bytes = 0;
  spans = 0;
  private batch: SpanRecord[] = [];
  private readonly report = {
    spans_skipped: 0,
    skipped_reasons: {} as Record<string, number>,
    non_trace_lines_skipped: 0,
    error_count: 0,
    errors: [] as { line: number | null; message: string }[],
  };
  /** Trace requests seen (a file with none and only errors is "not trace data"). */
  traceRequests = 0;
  private readonly sink = {
    span: (s: SpanRecord) => {
      this.batch.push(s);
      this.spans++;
      if (this.batch.length >= this.batchSpans) this.flush();
    },
    skip: (reason: string) => {
      this.report.spans_skipped++;
      this.report.skipped_reasons[reason] = (this.report.skipped_reasons[reason] ?? 0) + 1;
    },
  };

  constructor(
    private readonly writer: BatchWriter,
    private readonly projectId: string | undefined,
    private readonly onBatch?: () => void,
    private readonly batchSpans = BATCH_SPANS,
  ) {}

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
      walkRequest(v as Obj, this.projectId, this.sink, rawDump);
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
    if (!this.batch.length) return;
    const spans = this.batch;
    this.batch = [];
    this.writer.write(spans);
    this.onBatch?.();
  }

  /** Drops spans not yet written (the broken part of an input). */
  discardPending(): void {
    this.spans -= this.batch.length;
    this.batch = [];
  }

  get errorCount(): number {
    return this.report.error_count;
  }

  get firstError(): { line: number | null; message: string } | undefined {
    return this.report.errors[0];
  }

  get pending(): number {
    return this.batch.length;
  }

  /** Writes what is pending and returns the parse side of the report. */
  finish(): ParseReport {
    this.flush();
    return { format: this.format, bytes: this.bytes, ...this.report };
  }
}
