/**
 * One import in progress: collects normalized spans into batches, writes each batch in one
 * transaction through the store, and keeps the counts of the import report.
 */
import type { SpanRecord } from '../../domain/span.js';
import type { Store } from '../../store/index.js';
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

export class ImportSession {
  format = 'unknown';
  bytes = 0;
  spans = 0;
  private batch: SpanRecord[] = [];
  private readonly report = {
    spans_imported: 0,
    spans_replaced: 0,
    spans_skipped: 0,
    skipped_reasons: {} as Record<string, number>,
    non_trace_lines_skipped: 0,
    error_count: 0,
    errors: [] as { line: number | null; message: string }[],
  };
  private readonly projects = new Set<string>();
  /** Trace requests seen (a file with none and only errors is "not trace data"). */
  traceRequests = 0;
  private readonly sink = {
    span: (s: SpanRecord) => {
      this.batch.push(s);
      this.spans++;
      if (this.batch.length >= BATCH_SPANS) this.flush();
    },
    skip: (reason: string) => {
      this.report.spans_skipped++;
      this.report.skipped_reasons[reason] = (this.report.skipped_reasons[reason] ?? 0) + 1;
    },
  };

  constructor(
    private readonly store: Store,
    private readonly projectId: string | undefined,
    private readonly onBatch?: () => void,
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
    const r = this.store.ingest.writeBatch(spans);
    this.report.spans_imported += r.inserted;
    this.report.spans_replaced += r.replaced;
    for (const t of r.touched) this.projects.add(t.project_id);
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

  finish(events?: EventBus): ImportReport {
    this.flush();
    const projects = [...this.projects].sort();
    for (const p of projects) events?.emit({ type: 'data.changed', project_id: p, tables: ['spans'] });
    return { format: this.format, bytes: this.bytes, ...this.report, projects };
  }
}
