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
    // Writing sqlite_schema needs SQLite's defensive mode off (better-sqlite3 turns it on), for this migration only.
    if (m.editsSchema) db.unsafeMode(true);
    try {
      db.transaction(() => {
        const version = db.pragma('schema_version', { simple: true }) as number;
        db.exec(m.sql);
        // The documented procedure's last step: a new schema version makes every connection (this
        // one included) read the edited definitions again.
        if (m.editsSchema) db.pragma(`schema_version = ${Math.max(version, db.pragma('schema_version', { simple: true }) as number) + 1}`);
        const problem = m.check ? (db.prepare(m.check).pluck().get() as string | null) : null;
        if (problem) throw new MigrationError(`migration ${m.version} (${m.name}) did not apply: ${problem}`);
        insert.run(m.version, m.name, sha256(m.sql), new Date().toISOString());
      })();
    } finally {
      if (m.editsSchema) db.unsafeMode(false);
    }
  }
}
