import type { Db } from './open.js';
import type { SpanRecord } from '../../domain/span.js';

/** SQL of span ingestion: batched idempotent upserts of spans and their details. */
export interface WriteResult {
  inserted: number;
  replaced: number;
  /** (project_id, trace_id) pairs touched, so summaries and live views can refresh just those. */
  touched: { project_id: string; trace_id: string }[];
}

export interface IngestRepo {
  /** Upserts a batch in ONE transaction; either all of it is stored or none. */
  writeBatch(spans: SpanRecord[]): WriteResult;
}

export function createIngestRepo(db: Db): IngestRepo {
  void db;
  return {
    writeBatch() {
      throw new Error('writeBatch: not implemented yet');
    },
  };
}
