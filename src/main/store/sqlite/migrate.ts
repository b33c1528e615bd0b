import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { migrations as registered, type Migration } from '../migrations/index.js';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

export class MigrationError extends Error {}

/**
 * Applies pending migrations in order, each in one transaction. Refuses to run when an applied
 * migration's text changed (hash mismatch), when the database knows a migration this build does
 * not, or when the registered list has a gap: failing at boot beats a half-understood schema.
 */
export function migrate(db: Database.Database, list: Migration[] = registered): void {
  list.forEach((m, i) => {
    if (m.version !== i + 1) throw new MigrationError(`migration list has a gap: expected ${i + 1}, found ${m.version} (${m.name})`);
  });
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, sha256 TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const applied = db.prepare('SELECT version, name, sha256 FROM schema_migrations ORDER BY version').all() as {
    version: number; name: string; sha256: string;
  }[];
  for (const a of applied) {
    const m = list[a.version - 1];
    if (!m) throw new MigrationError(`database has migration ${a.version} (${a.name}) that this build does not know; refusing to open it`);
    if (sha256(m.sql) !== a.sha256) {
      throw new MigrationError(`migration ${a.version} (${a.name}) was edited after it was applied; add a new migration instead`);
    }
  }
  const insert = db.prepare('INSERT INTO schema_migrations (version, name, sha256, applied_at) VALUES (?, ?, ?, ?)');
  for (const m of list.slice(applied.length)) {
    db.transaction(() => {
      db.exec(m.sql);
      insert.run(m.version, m.name, sha256(m.sql), new Date().toISOString());
    })();
  }
}
