/**
 * Which errors are the store's (it cannot take writes now: busy, full, read-only, damaged, I/O)
 * rather than one row's (a constraint, a value SQLite refuses, malformed JSON in one row). One place
 * for both sides of the port: the SQLite writer thread cuts a refused batch span by span only for a
 * row-level error, the ingest service fails a whole import on a store failure, and the transports
 * answer 503 + Retry-After for the kinds a client can wait out. Both the port's typed errors
 * (ports.ts) and better-sqlite3's raw codes are recognized.
 */
import { StoreBusyError, StoreError, StoreFullError, StoreUnavailableError } from './ports.js';

export type StoreFailureKind = 'busy' | 'full' | 'read-only' | 'damaged' | 'unavailable';

const code = (err: unknown): string => {
  const c = (err as { code?: unknown } | null)?.code;
  return typeof c === 'string' ? c : '';
};

/** Which store failure `err` is, or null when it is not one a client can wait out. */
export function classifyStoreFailure(err: unknown): StoreFailureKind | null {
  if (err instanceof StoreBusyError) return 'busy';
  if (err instanceof StoreFullError) return 'full';
  if (err instanceof StoreUnavailableError) return 'unavailable';
  const c = code(err);
  if (/^SQLITE_(BUSY|LOCKED)/.test(c)) return 'busy';
  if (c === 'SQLITE_FULL' || c === 'ENOSPC' || c === 'EDQUOT') return 'full';
  if (/^SQLITE_READONLY/.test(c)) return 'read-only';
  if (/^SQLITE_(CORRUPT|NOTADB)/.test(c)) return 'damaged';
  return null;
}

/**
 * Failures of the store rather than of one row (those above, and I/O, memory, permission errors):
 * they fail the request and are never blamed on a span.
 */
export function isStoreFailure(err: unknown): boolean {
  return err instanceof StoreError || classifyStoreFailure(err) !== null || /^SQLITE_(IOERR|CANTOPEN|NOMEM|PERM|INTERRUPT|ABORT|PROTOCOL|AUTH)/.test(code(err));
}
