/**
 * Errors crossing a thread boundary (the read pool's and the writer thread's workers): class name,
 * message and SQLite code travel; on this side they become the same kind of error again, so the
 * transports' 503 mapping (SQLITE_BUSY, SQLITE_FULL, ...) and the per-span retry of the ingest work
 * on them exactly as on errors thrown in this thread.
 */
import { StoreBusyError, StoreError, StoreFullError } from '../ports.js';

/** An error as it crosses the thread boundary: its class name, message and SQLite code. */
export interface WireError {
  name: string;
  message: string;
  code?: string;
}

export function toWire(e: unknown): WireError {
  const err = (e instanceof Error ? e : new Error(String(e))) as Error & { code?: unknown };
  return { name: err.name, message: err.message, code: typeof err.code === 'string' ? err.code : undefined };
}

/** An error from a worker, as the same kind of error on this side (SQLite codes kept for the 503 mapping). */
export function revive(e: WireError): Error {
  const err =
    e.name === 'StoreError' ? new StoreError(e.message)
    : e.name === 'StoreBusyError' ? new StoreBusyError(e.message)
    : e.name === 'StoreFullError' ? new StoreFullError(e.message)
    : new Error(e.message);
  // Decided by name, not `instanceof StoreError`: StoreError is structurally an Error, so TypeScript
  // may narrow the else-branch to never (it did, depending on file order).
  const storeKind = e.name === 'StoreError' || e.name === 'StoreBusyError' || e.name === 'StoreFullError';
  if (!storeKind) err.name = e.name;
  if (e.code) Object.assign(err, { code: e.code });
  return err;
}
