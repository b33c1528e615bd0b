/**
 * Free pages given back to the disk at open (issue 23.3: "after a migration that frees space, the
 * file shrinks"). A migration that drops or rewrites a table (the compact file, 0011–0015; rollups,
 * 0020) and deletes outside retention leave free pages inside `loupe.db`: SQLite reuses them but the
 * file keeps its size — upgraded stores kept 67 % free pages. Retention gives its own pages back
 * (retention.ts); this gives back whatever else is free, once the writer has migrated.
 *
 * Stores made since page size 16 KiB (migration 0007's era) have `auto_vacuum = INCREMENTAL`, so
 * `PRAGMA incremental_vacuum(N)` moves the last N pages into free slots and cuts the file: done in
 * chunks of one WAL checkpoint's worth, each followed by a TRUNCATE checkpoint, so the WAL stays
 * within its policy (wal.ts) however much is freed. Older stores (auto_vacuum NONE) cannot do it
 * without a full VACUUM (a copy of the whole file): that is said at open, never done at start. A
 * give-back that cannot run (another process holds the write lock) is skipped: never a failed open.
 */
import type Database from 'better-sqlite3';
import { WAL_POLICY } from './wal.js';

/** open.ts's Db, named here from the library (open.ts imports this file: no import cycle). */
type Db = Database.Database;

/** Less free space than this is left for SQLite to reuse (not worth a write at every start). */
export const GIVE_BACK_MIN_BYTES = 8 * 1024 * 1024;

export interface GiveBack {
  /** Bytes the file shrank by. */
  freed_bytes: number;
  /** Free bytes left inside the file (an old store's, or less than the minimum). */
  free_bytes_left: number;
}

export function giveBackFreePages(db: Db, log: (line: string) => void = () => {}): GiveBack {
  const page = db.pragma('page_size', { simple: true }) as number;
  const freeBytes = () => (db.pragma('freelist_count', { simple: true }) as number) * page;
  const sizeBytes = () => (db.pragma('page_count', { simple: true }) as number) * page;
  const before = sizeBytes();
  if (freeBytes() < GIVE_BACK_MIN_BYTES) return { freed_bytes: 0, free_bytes_left: freeBytes() };
  if (db.pragma('auto_vacuum', { simple: true }) !== 2) {
    log(`${Math.round(freeBytes() / 1024 / 1024)} MiB of ${Math.round(before / 1024 / 1024)} MiB in ${db.name} are free pages SQLite reuses; this store predates incremental vacuum, so the file keeps its size (a VACUUM of the stopped store gives them back)`);
    return { freed_bytes: 0, free_bytes_left: freeBytes() };
  }
  const chunk = Math.max(1, Math.floor(WAL_POLICY.checkpointBytes / page));
  try {
    while (freeBytes() > 0) {
      const left = freeBytes();
      db.pragma(`incremental_vacuum(${chunk})`);
      db.pragma('wal_checkpoint(TRUNCATE)');
      if (freeBytes() >= left) break; // nothing moved (cannot happen on a sound file; never loop on it)
    }
  } catch (e) {
    log(`free pages in ${db.name} not given back this time: ${(e as Error).message}`);
  }
  const freed = before - sizeBytes();
  log(`gave ${Math.round(freed / 1024 / 1024)} MiB of free pages in ${db.name} back to the disk`);
  return { freed_bytes: freed, free_bytes_left: freeBytes() };
}
