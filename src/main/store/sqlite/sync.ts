/**
 * better-sqlite3 answers synchronously, so the SQLite repositories are written as synchronous
 * functions and the port's async methods wrap them (`asyncify`). Keeping them synchronous inside lets
 * an intention-named write (e.g. `completeJob`) run several of them in one transaction, which a
 * transaction must: no await may happen inside one.
 */

/** The synchronous form of a port interface: every `(...a) => Promise<R>` becomes `(...a) => R`. */
export type Sync<T> = { [K in keyof T]: T[K] extends (...a: infer A) => Promise<infer R> ? (...a: A) => R : T[K] };

/** The port's async form of a synchronous repository: each call runs now and its result (or throw) settles a promise. */
export function asyncify<T extends object>(repo: Sync<T>): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(repo)) {
    out[k] = typeof v === 'function' ? (...a: unknown[]) => new Promise((resolve) => resolve((v as (...x: unknown[]) => unknown)(...a))) : v;
  }
  return out as T;
}
