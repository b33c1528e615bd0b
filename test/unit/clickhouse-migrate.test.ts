/** The ClickHouse migrator on a real server: applied once, hash-checked, safe with two migrators at once. */
import { afterAll, describe, expect, it } from 'vitest';
import { ClickHouse, parseStoreUrl } from '../../src/main/store/clickhouse/connection.js';
import { ChMigrationError, migrateClickHouse, migrationHash } from '../../src/main/store/clickhouse/migrate.js';
import { chMigrations } from '../../src/main/store/clickhouse/migrations/index.js';
import { raw, sql, str } from '../../src/main/store/clickhouse/sql.js';
import { freshClickHouseStore } from '../helpers/clickhouse.js';

const open: ClickHouse[] = [];
afterAll(() => Promise.all(open.map((c) => c.close())));
async function fresh(): Promise<ClickHouse> {
  const { url } = await freshClickHouseStore('mig');
  const ch = await ClickHouse.connect(parseStoreUrl(url));
  open.push(ch);
  return ch;
}
const history = (ch: ClickHouse) => ch.rows<{ version: number; name: string; sha256: string }>(raw('SELECT version, name, sha256 FROM schema_migrations FINAL ORDER BY version'));

describe('ClickHouse migrations', () => {
  it('applies every migration once, records its hash, and is idempotent', async () => {
    const ch = await fresh();
    await migrateClickHouse(ch);
    const expected = chMigrations.map((m) => ({ version: m.version, name: m.name, sha256: migrationHash(m) }));
    expect(await history(ch)).toEqual(expected);
    await migrateClickHouse(ch);
    expect(await history(ch)).toEqual(expected);
    const tables = await ch.rows<{ name: string }>(sql`SELECT name FROM system.tables WHERE database = ${str(ch.config.database)} ORDER BY name`);
    expect(tables.map((t) => t.name)).toEqual(
      [
        'agent_trace_stats', 'conversation_keys', 'conversation_keys_feed', 'conversation_rows', 'conversation_rows_feed', 'conversation_summaries', 'conversation_turns', 'day_writes', 'dirty_days',
        'project_days', 'resources', 'rollup_days', 'rollup_days_fill', 'schema_migrations',
        'score_group_turns', 'scores', 'search_backfill', 'search_docs', 'search_input', 'search_input_docs', 'search_input_terms', 'search_terms',
        'span_payloads', 'span_rollups', 'spans', 'thread_ends', 'thread_ends_feed', 'thread_turns', 'thread_turns_feed', 'trace_days', 'trace_keys', 'trace_keys_feed', 'trace_summaries', 'unit_days', 'write_journal',
      ],
    );
  });

  it('lets two Loupe instances migrate one new database at once', async () => {
    const ch = await fresh();
    const other = await ClickHouse.connect(ch.config);
    open.push(other);
    await Promise.all([migrateClickHouse(ch), migrateClickHouse(other)]);
    expect((await history(ch)).map((r) => r.version)).toEqual(chMigrations.map((m) => m.version));
  });

  it('refuses a database whose applied migration was edited, or that knows a migration this build does not', async () => {
    const ch = await fresh();
    await migrateClickHouse(ch);
    const edited = chMigrations.map((m, i) => (i === 0 ? { ...m, statements: [...m.statements, 'SELECT 1'] } : m));
    await expect(migrateClickHouse(ch, edited)).rejects.toThrow(ChMigrationError);
    await expect(migrateClickHouse(ch, edited)).rejects.toThrow(/edited after it was applied/);
    await expect(migrateClickHouse(ch, chMigrations.slice(0, 1))).rejects.toThrow(/does not know/);
  });

  it('refuses a registered list with a gap', async () => {
    const ch = await fresh();
    await expect(migrateClickHouse(ch, [{ ...chMigrations[1]!, version: 2 }])).rejects.toThrow(/gap/);
  });
});
