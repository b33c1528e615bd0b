import type { Db } from '../open.js';
import type { SpanRecord } from '../../../domain/span.js';
import type { SummaryMaintainer } from './index.js';

/** Trace summaries, maintained at ingest. Owned by the chat work stream (no-op until implemented). */
export function createTraceSummaries(db: Db): SummaryMaintainer {
  void db;
  return { afterWrite: (_spans: SpanRecord[]) => {} };
}
