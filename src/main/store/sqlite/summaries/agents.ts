import type { Db } from '../open.js';
import type { SpanRecord } from '../../../domain/span.js';
import type { SummaryMaintainer } from './index.js';

/** Agent summaries, maintained at ingest. Owned by the analytics work stream (no-op until implemented). */
export function createAgentSummaries(db: Db): SummaryMaintainer {
  void db;
  return { afterWrite: (_spans: SpanRecord[]) => {} };
}
