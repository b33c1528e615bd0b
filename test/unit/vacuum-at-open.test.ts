/**
 * Free pages go back to the disk at open (issue 23.3: "after a migration that frees space, the file
 * shrinks"), on a real SQLite file: a store whose dropped table (as a migration drops one) left
 * 24 MiB of free pages is smaller after the next open, its WAL within the policy, its rows intact.
 */
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/main/store/sqlite/open.js';
import { giveBackFreePages, GIVE_BACK_MIN_BYTES } from '../../src/main/store/sqlite/vacuum.js';
import { WAL_POLICY } from '../../src/main/store/sqlite/wal.js';

const MiB = 1024 * 1024;
const tempFile = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-vacuum-')), 'loupe.db');

/** 24 MiB in a table, then the table dropped: the pages are free, the file as large as before. */
function freeSomePages(db: Database.Database): void {
  db.exec('CREATE TABLE filler (b BLOB)');
  const add = db.prepare('INSERT INTO filler VALUES (randomblob(?))');
  db.transaction(() => {
    for (let i = 0; i < 48; i++) add.run(512 * 1024);
  })();
  db.exec('DROP TABLE filler');
}

const keptRows = (db: Database.Database) => db.prepare(`SELECT key, value FROM kept ORDER BY key`).all();

describe('free pages are given back at open (23.3)', () => {
  it('a store with 24 MiB of free pages shrinks at the next open; WAL within the policy; rows and integrity intact', () => {
    const file = tempFile();
    const db = openDatabase(file);
    expect(db.pragma('auto_vacuum', { simple: true })).toBe(2);
    db.exec('CREATE TABLE kept (key INTEGER PRIMARY KEY, value TEXT)');
    const put = db.prepare('INSERT INTO kept VALUES (?, ?)');
    db.transaction(() => {
      for (let i = 0; i < 5000; i++) put.run(i, `row ${i} `.repeat(20));
    })();
    freeSomePages(db);
    const rows = keptRows(db);
    const free = (db.pragma('freelist_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number);
    expect(free).toBeGreaterThan(23 * MiB);
    db.close();
    const before = fs.statSync(file).size;

    const again = openDatabase(file);
    try {
      const after = fs.statSync(file).size;
      expect(before - after).toBeGreaterThan(23 * MiB);
      expect(again.pragma('freelist_count', { simple: true })).toBe(0);
      expect(fs.statSync(`${file}-wal`).size).toBeLessThanOrEqual(WAL_POLICY.capBytes);
      expect(keptRows(again)).toEqual(rows);
      expect(again.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      again.close();
    }
  });

  it('an older store (auto_vacuum NONE) keeps its size and says why; a little free space is left for reuse', () => {
    const file = tempFile();
    const old = new Database(file);
    old.pragma('journal_mode = WAL');
    expect(old.pragma('auto_vacuum', { simple: true })).toBe(0);
    freeSomePages(old);
    const log: string[] = [];
    const result = giveBackFreePages(old, (l) => log.push(l));
    expect(result.freed_bytes).toBe(0);
    expect(result.free_bytes_left).toBeGreaterThan(23 * MiB);
    expect(log.join('\n')).toMatch(/MiB of \d+ MiB in .*loupe\.db are free pages SQLite reuses; this store predates incremental vacuum/);
    old.close();

    const small = new Database(tempFile());
    small.pragma('auto_vacuum = INCREMENTAL');
    small.exec('CREATE TABLE t (b BLOB); INSERT INTO t VALUES (randomblob(1048576)); DROP TABLE t');
    expect(giveBackFreePages(small)).toEqual({ freed_bytes: 0, free_bytes_left: expect.any(Number) });
    expect(giveBackFreePages(small).free_bytes_left).toBeLessThan(GIVE_BACK_MIN_BYTES);
    small.close();
  });
});
