/**
 * Errors crossing a thread boundary (the read pool's and the writer thread's workers): class name,
 * message and SQLite code travel; on this side they become the same kind of error again — a SQLite
 * failure of the store becomes the port's typed error (failures.ts) — so the transports' 503 mapping
 * and the ingest's per-span retry work on them exactly as on errors thrown in this thread.
 */
import { StoreBusyError, StoreDamagedError, StoreError, StoreFullError, StoreReadOnlyError } from '../ports.js';
import { asPortError } from './failures.js';

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

const STORE_ERRORS: Record<string, new (message: string) => Error> = {
  StoreError, StoreBusyError, StoreFullError, StoreReadOnlyError, StoreDamagedError,
};

/** An error from a worker, as the same kind of error on this side (a SQLite failure of the store as the port's error). */
export function revive(e: WireError): Error {
  const Kind = Object.hasOwn(STORE_ERRORS, e.name) ? STORE_ERRORS[e.name]! : null;
  if (Kind) return new Kind(e.message);
  const err = Object.assign(new Error(e.message), { name: e.name }, e.code ? { code: e.code } : {});
  return asPortError(err) as Error;
}
