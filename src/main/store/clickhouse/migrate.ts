import { createHash } from 'node:crypto';
import type { ClickHouse } from './connection.js';
import { chMigrations, type ChMigration } from './migrations/index.js';
import { ddl, raw, sql, str, u64 } from './sql.js';

export class ChMigrationError extends Error {}

const ADD_COLUMN = /^\s*ALTER TABLE \w+ ADD COLUMN /i;

/** The recorded hash of a migration: its statements in order, separated so that no split point is ambiguous. */
export const migrationHash = (m: ChMigration): string => createHash('sha256').update(m.statements.join('\n;\n')).digest('hex');

/**
 * Applies pending migrations in order, like the SQLite migrator (sqlite/migrate.ts): refuses a
 * database whose applied migrations were edited, that knows a migration this build does not, or a
 * registered list with a gap. Several Loupe instances may open one database at once: every statement
 * is idempotent and the history table keeps one row per version, so racing migrators agree.
 */
export async function migrateClickHouse(ch: ClickHouse, list: ChMigration[] = chMigrations): Promise<void> {
  list.forEach((m, i) => {
    if (m.version !== i + 1) throw new ChMigrationError(`ClickHouse migration list has a gap: expected ${i + 1}, found ${m.version} (${m.name})`);
  });
  await ch.command(raw(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version UInt32, name String, sha256 String, applied_at DateTime
  ) ENGINE = ReplacingMergeTree ORDER BY version`));
  const applied = await ch.rows<{ version: number; name: string; sha256: string }>(
    raw('SELECT version, name, sha256 FROM schema_migrations FINAL ORDER BY version'),
  );
  const where = `${ch.config.url}/${ch.config.database}`;
  applied.forEach((a, i) => {
    if (a.version !== i + 1) throw new ChMigrationError(`ClickHouse database ${where} has a gap in its migration history before ${a.version} (${a.name})`);
  });
  for (const a of applied) {
    const m = list[a.version - 1];
    if (!m) throw new ChMigrationError(`ClickHouse database ${where} has migration ${a.version} (${a.name}) that this build does not know; refusing to open it`);
    if (migrationHash(m) !== a.sha256) {
      throw new ChMigrationError(`ClickHouse migration ${a.version} (${a.name}) was edited after it was applied to ${where}; add a new migration instead`);
    }
  }
  for (const m of list.slice(applied.length)) {
    for (const st of m.statements) {
      try {
        await ch.command(ddl(st));
      } catch (e) {
        // 18.16 has no ADD COLUMN IF NOT EXISTS: a column a racing or interrupted run added is done.
        if (!(ADD_COLUMN.test(st) && /already exists/i.test(String((e as Error).message)))) throw e;
      }
    }
    await ch.command(sql`INSERT INTO schema_migrations (version, name, sha256, applied_at) VALUES (${u64(m.version)}, ${str(m.name)}, ${str(migrationHash(m))}, now())`);
  }
}
