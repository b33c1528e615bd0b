/**
 * Store failures as the answers OTLP exporters and scripts can act on (issue 13.6). "database is
 * locked" and "disk full" used to leave as a bare 500, which OTLP exporters treat as final and drop
 * the data; the OTLP spec has them retry 429/502/503/504, honouring Retry-After. So:
 *
 * | failure                                        | status | Retry-After |
 * |------------------------------------------------|--------|-------------|
 * | busy: another writer holds the lock             | 503    | 1 s         |
 * | full: disk or size cap                          | 503    | 60 s        |
 * | read-only: the database was found damaged       | 503    | 300 s       |
 * | damaged: corruption met on a query              | 503    | 300 s       |
 * | a remote store does not answer                  | 503    | 5 s         |
 *
 * The port's typed errors (store/ports.ts) say which: each adapter turns its engine's failures into
 * them (the SQLite adapter: store/sqlite/failures.ts). Each one is recorded in StoreHealth.
 */
import { ServiceError, unavailable } from '../../shared/errors.js';
import type { StoreBusyError, StoreFullError, StoreUnavailableError } from '../store/ports.js';
import type { StoreHealth } from '../service/system/store-health.js';
import { classifyStoreFailure } from '../store/failures.js';

/** The 503 for a store failure (and records it), or null when `err` is not one. */
export function storeFailure(err: unknown, health?: StoreHealth): ServiceError | null {
  const kind = classifyStoreFailure(err);
  if (!kind) return null;
  if (kind !== 'unavailable') health?.recordFailure(kind, err);
  switch (kind) {
    case 'busy':
      return unavailable('The database is busy (another writer holds its lock); nothing of this request was stored. Retry shortly.', (err as StoreBusyError).retryAfterSeconds ?? 1);
    case 'full':
      return unavailable('The disk holding the data folder is full; nothing of this request was stored. Free some space and retry.', (err as StoreFullError).retryAfterSeconds ?? 60);
    case 'read-only':
      return unavailable(`The database is read-only${health?.readOnlyReason ? `: ${health.readOnlyReason}` : ''}. Reads still work; writes are refused.`, 300);
    case 'damaged':
      return unavailable('The database file is damaged (SQLite reported corruption); see Settings → database check. Reads that avoid the damaged pages still work.', 300);
    default:
      return unavailable(`The trace store does not answer: ${(err as Error).message}`, (err as StoreUnavailableError).retryAfterSeconds ?? 5);
  }
}
