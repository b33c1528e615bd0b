/**
 * SQLite's failures as the port's typed errors (ports.ts), so nothing outside this adapter reads a
 * SQLite code. Busy, full, read-only and damaged become their own classes (the transports answer
 * 503 + Retry-After for each); the other failures of the store rather than of one row (I/O, memory,
 * permission, ...) become a StoreError. A row's own failure (a constraint, a value SQLite refuses)
 * stays as it is: the writer retries a refused batch span by span only for those.
 */
import { StoreBusyError, StoreDamagedError, StoreError, StoreFullError, StoreReadOnlyError } from '../ports.js';

const code = (err: unknown): string => {
  const c = (err as { code?: unknown } | null)?.code;
  return typeof c === 'string' ? c : '';
};

const OTHER_STORE_FAILURE = /^SQLITE_(IOERR|CANTOPEN|NOMEM|PERM|INTERRUPT|ABORT|PROTOCOL|AUTH)/;

/** The port error for a SQLite failure of the store; anything else (a row's failure, a bug) unchanged. */
export function asPortError(err: unknown): unknown {
  if (err instanceof StoreError) return err;
  const c = code(err);
  if (!c) return err;
  const message = (err as Error).message;
  const typed =
    /^SQLITE_(BUSY|LOCKED)/.test(c) ? new StoreBusyError(message)
    : c === 'SQLITE_FULL' || c === 'ENOSPC' || c === 'EDQUOT' ? new StoreFullError(message)
    // No room for the WAL's shared-memory file (a full disk at open): the disk is full, not the file damaged.
    : c === 'SQLITE_IOERR_SHMSIZE' ? new StoreFullError(`the disk is full: ${message} (no room for the WAL's shared-memory file)`)
    : /^SQLITE_READONLY/.test(c) ? new StoreReadOnlyError(message)
    : /^SQLITE_(CORRUPT|NOTADB)/.test(c) ? new StoreDamagedError(message)
    : OTHER_STORE_FAILURE.test(c) ? new StoreError(message)
    : null;
  if (!typed) return err;
  // The engine's code stays readable in logs.
  return Object.assign(typed, { code: c, cause: err });
}

/** True for a failure of the store rather than of one row (writer thread: a refused batch is cut span by span only otherwise). */
export const isSqliteStoreFailure = (err: unknown): boolean => asPortError(err) instanceof StoreError;

/** Runs `fn`, rethrowing a SQLite failure as the port's error. */
export async function portErrors<T>(fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw asPortError(e);
  }
}
