/**
 * Which errors are the store's (it cannot take requests now: busy, full, read-only, damaged,
 * unavailable, I/O) rather than one row's. The ingest service fails a whole import on a store failure
 * (and blames no span), and the transports answer 503 + Retry-After for the kinds a client can wait
 * out. Only the port's typed errors (ports.ts) are recognized: each adapter turns its engine's own
 * failures into them at its boundary (the SQLite adapter's codes: sqlite/failures.ts).
 */
import { StoreBusyError, StoreDamagedError, StoreError, StoreFullError, StoreReadOnlyError, StoreUnavailableError } from './ports.js';

export type StoreFailureKind = 'busy' | 'full' | 'read-only' | 'damaged' | 'unavailable';

/** Which store failure `err` is, or null when it is not one a client can wait out. */
export function classifyStoreFailure(err: unknown): StoreFailureKind | null {
  if (err instanceof StoreBusyError) return 'busy';
  if (err instanceof StoreFullError) return 'full';
  if (err instanceof StoreReadOnlyError) return 'read-only';
  if (err instanceof StoreDamagedError) return 'damaged';
  if (err instanceof StoreUnavailableError) return 'unavailable';
  return null;
}

/** Failures of the store rather than of one row: they fail the request and are never blamed on a span. */
export function isStoreFailure(err: unknown): boolean {
  return err instanceof StoreError;
}
