import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate, MigrationError } from '../../src/main/store/sqlite/migrate.js';
import { migrations } from '../../src/main/store/migrations/index.js';
import { openStores } from '../../src/main/store/index.js';

const tmp = () => join(mkdtempSync(join(tmpdir(), 'loupe-mig-')), 'loupe.db');

describe('migrations', () => {
  it('applies every migration once and records it; WAL is on', async () => {
    const file = tmp();
    await (await openStores(file)).close();
    const db = new Database(file);
    const rows = db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all();
    expect(rows).toEqual(migrations.map((m) => ({ version: m.version, name: m.name })));
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    migrate(db); // idempotent
    expect(db.prepare('SELECT COUNT(*) c FROM schema_migrations').get()).toEqual({ c: migrations.length });
    db.close();
  });

  it('refuses a database whose applied migration was edited', async () => {
    const file = tmp();
    await (await openStores(file)).close();
    const db = new Database(file);
    const edited = migrations.map((m, i) => (i === 0 ? { ...m, sql: `${m.sql}\n-- edited` } : m));
    expect(() => migrate(db, edited)).toThrow(MigrationError);
    expect(() => migrate(db, edited)).toThrow(/edited after it was applied/);
    db.close();
  });

  it('refuses a database that knows a migration this build does not', async () => {
    const file = tmp();
    await (await openStores(file)).close();
    const db = new Database(file);
    db.prepare("INSERT INTO schema_migrations VALUES (999, 'future', 'x', 'now')").run();
    expect(() => migrate(db)).toThrow(/does not know/);
    db.close();
  });
});
