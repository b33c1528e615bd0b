import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { migrate } from './migrate.js';
import { registerSearchFunctions } from './fts.js';
import { compactLegacyBodies, registerBodyFunctions } from './bodies.js';
import { registerRollupFunctions } from './unit-bits.js';
import { applyWalPragmas } from './wal.js';
import { giveBackFreePages } from './vacuum.js';

export type Db = Database.Database;

export interface OpenOptions {
  /**
   * Path of a better_sqlite3.node built for another runtime (Electron has its own ABI).
   * Under plain Node this stays undefined and the addon from node_modules is used, so tests keep
   * working after the desktop app was started.
   */
  nativeBinding?: string;
  readonly?: boolean;
  /**
   * How long a write waits for another connection's lock (default 5000 ms, for CLI imports). The
   * server passes a short one: better-sqlite3 waits on the calling thread, so a long wait is a stall
   * of every request, and a busy store is better answered 503 + Retry-After (issue 13.6).
   */
  busyTimeoutMs?: number;
}

/** Page cache and memory map per connection (see openDatabase for the measurement). */
function sizePragmas(db: Db, cacheKiB = READ_CACHE_KIB): void {
  db.pragma(`cache_size = -${cacheKiB}`);
  db.pragma('mmap_size = 67108864');
  db.pragma('temp_store = MEMORY');
}

/** Page cache of a read connection: the pages that answer the app's reads. */
const READ_CACHE_KIB = 65_536;

/**
 * Page cache of the writer connection. An import fills whatever cache it has with pages it wrote and
 * will not read again (a 100k-span import writes ~100 MB): at 64 MiB that cache was the largest
 * single part of the import's peak RSS (over 500 MB on a quiet machine). The writer's own reads (a
 * trace's spans, the rollup rows of a day) are the pages it just wrote or read through the 64 MiB
 * memory map; 16 MiB measured no slower for the writer thread (bench 10-ingest; docs/store.md "Import memory").
 */
const WRITE_CACHE_KIB = 16_384;

/**
 * A read-only connection for a read worker: WAL lets it read while the writer writes, each
 * statement seeing the last committed state. `query_only` makes a stray write fail loudly.
 */
export function openReadConnection(file: string, opts: { nativeBinding?: string } = {}): Db {
  const db = new Database(file, { readonly: true, fileMustExist: true, nativeBinding: opts.nativeBinding });
  db.pragma('busy_timeout = 5000');
  db.pragma('query_only = ON');
  sizePragmas(db);
  // The readers run the full-text search's queries and read compressed bodies too (functions are per connection).
  registerSearchFunctions(db);
  registerBodyFunctions(db, file, opts.nativeBinding);
  registerRollupFunctions(db);
  return db;
}

/** Opens (creating if needed) the database file, sets the pragmas of semantics §2 and migrates. */
export function openDatabase(file: string, opts: OpenOptions = {}): Db {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file, {
    nativeBinding: opts.nativeBinding,
    readonly: opts.readonly ?? false,
  });
  if (!opts.readonly && db.pragma('page_count', { simple: true }) === 0) {
    // A new file (both only take effect before the first table, and before WAL): 16 KiB pages — the
    // issue's measurement gave +20–30 % import speed over 4 KiB with the same cache bytes — and
    // incremental vacuum, so retention (sqlite/retention.ts) can give freed pages back to the disk.
    db.pragma('page_size = 16384');
    db.pragma('auto_vacuum = INCREMENTAL');
  }
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma(`busy_timeout = ${Math.max(0, Math.trunc(opts.busyTimeoutMs ?? 5000))}`);
  // A 16 MiB page cache (WRITE_CACHE_KIB) and a 64 MiB mmap window. Measured on the 1M-span bench store:
  // a 256 MiB window put the import's peak RSS at 571 MB (over the 500 MB goal) and sped up no query
  // (chat, agents, spans list, group-by and threads figures equal within noise at 64 MiB; import 447 MB).
  sizePragmas(db, opts.readonly ? READ_CACHE_KIB : WRITE_CACHE_KIB);
  // How often SQLite checkpoints and how large the WAL file may stay (wal.ts, issue 23.3). Imports
  // write ~3.5 KB per span: the default checkpoint every 1000 pages stalled the writer on an fsync
  // every few hundred spans; 32 MiB between checkpoints keeps the import's speed (bench 10-ingest).
  if (!opts.readonly && file !== ':memory:') applyWalPragmas(db);
  registerSearchFunctions(db);
  registerBodyFunctions(db, file, opts.nativeBinding);
  registerRollupFunctions(db);
  if (!opts.readonly) {
    migrate(db);
    compactLegacyBodies(db, (m) => console.error(m));
    // What a migration (or a delete outside retention) freed goes back to the disk (vacuum.ts).
    if (file !== ':memory:') giveBackFreePages(db, (m) => console.error(`loupe: ${m}`));
  }
  return db;
}
