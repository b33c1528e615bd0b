/**
 * The ClickHouse store's own consistency check (TraceStore.verify). ClickHouse checks its parts as it
 * reads and merges them; what can drift is Loupe's: the summaries the writer derives from spans. The
 * quick check (at start) sees that the server answers and the database holds every migration of
 * this build. The full check (on request) counts, per project, the stored spans against the trace
 * summaries' span counts, and the conversations' turn counts against their turn rows: a write that
 * failed after its insert and was never retried leaves exactly such a difference.
 */
import type { ClickHouse } from './connection.js';
import { chMigrations } from './migrations/index.js';
import { limit, sql } from './sql.js';
import { FINAL_SETTINGS } from './reads/scope.js';

const MAX_PROBLEMS = 100;

export async function verifyStore(ch: ClickHouse, full: boolean): Promise<string[]> {
  const problems: string[] = [];
  const applied = await ch.rows<{ n: string }>(sql`SELECT count() AS n FROM schema_migrations FINAL${FINAL_SETTINGS}`);
  if (Number(applied[0]?.n ?? 0) !== chMigrations.length) {
    problems.push(`the database records ${applied[0]?.n ?? 0} migrations; this build has ${chMigrations.length}`);
  }
  if (!full) return problems;
  const spans = await ch.rows<{ project_id: string; stored: string; summarized: string }>(sql`
    SELECT project_id, sum(stored) AS stored, sum(summarized) AS summarized FROM (
      SELECT project_id, count() AS stored, toUInt64(0) AS summarized FROM spans FINAL WHERE deleted = 0 GROUP BY project_id
      UNION ALL
      SELECT project_id, toUInt64(0) AS stored, sum(span_count) AS summarized FROM trace_summaries FINAL WHERE deleted = 0 GROUP BY project_id
    ) GROUP BY project_id HAVING stored != summarized ORDER BY project_id${FINAL_SETTINGS}`);
  for (const r of spans) problems.push(`project ${r.project_id}: ${r.stored} spans stored, the trace summaries count ${r.summarized}`);
  const turns = await ch.rows<{ project_id: string; conversation_id: string; rows: string; counted: string }>(sql`
    SELECT project_id, conversation_id, sum(rows) AS rows, sum(counted) AS counted FROM (
      SELECT project_id, conversation_id, count() AS rows, toUInt64(0) AS counted FROM conversation_turns FINAL WHERE deleted = 0 GROUP BY project_id, conversation_id
      UNION ALL
      SELECT project_id, conversation_id, toUInt64(0) AS rows, toUInt64(turn_count) AS counted FROM conversation_summaries FINAL WHERE deleted = 0 AND kind = 'conversation'
    ) GROUP BY project_id, conversation_id HAVING rows != counted ORDER BY project_id, conversation_id${limit(0, MAX_PROBLEMS)}${FINAL_SETTINGS}`);
  for (const r of turns) problems.push(`project ${r.project_id}, conversation ${r.conversation_id}: ${r.rows} turns stored, its summary counts ${r.counted}`);
  return problems.slice(0, MAX_PROBLEMS);
}
