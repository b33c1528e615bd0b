/**
 * Which errors of a write are the store's (it cannot take writes now: busy, full, read-only, damaged,
 * I/O) rather than one row's (a constraint, a value SQLite refuses, malformed JSON in one row).
 * The writer thread cuts a refused batch span by span only for a row-level error. The same split as
 * service/system/store-health.ts (`isStoreFailure`), which the service applies on its side of the
 * port; kept here because the adapter may not import service code.
 */
import { StoreError } from '../ports.js';

const STORE_CODES = /^(SQLITE_(BUSY|LOCKED|FULL|READONLY|CORRUPT|NOTADB|IOERR|CANTOPEN|NOMEM|PERM|INTERRUPT|ABORT|PROTOCOL|AUTH)|ENOSPC|EDQUOT)/;

export function isStoreFailure(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return err instanceof StoreError || (typeof code === 'string' && STORE_CODES.test(code));
}
