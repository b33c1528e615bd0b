/** Store-wide reads: projects, storage size, the health ping. */
import { isoFromNs } from '../../../domain/time.js';
import type { ProjectRow, ReadOptions, StorageStats } from '../../ports.js';
import type { ClickHouse } from '../connection.js';
import { raw, sql, str } from '../sql.js';
import { FINAL_SETTINGS } from './scope.js';

/**
 * Projects with span counts, most recently active first: from the kept day rows (project-days.ts, one per
 * project and day), not a row per trace.
 */
export async function projects(ch: ClickHouse, opts: ReadOptions): Promise<ProjectRow[]> {
  const rows = await ch.rows<{ project_id: string; spans: string; last: string | null }>(
    sql`SELECT project_id, sum(span_count) AS spans, max(last_start_ns) AS last FROM project_days FINAL
        GROUP BY project_id HAVING spans > 0 ORDER BY last DESC NULLS LAST, project_id ASC${FINAL_SETTINGS}`,
    opts,
  );
  return rows.map((r) => ({ project_id: r.project_id, span_count: Number(r.spans), last_activity: r.last == null ? null : isoFromNs(BigInt(r.last)) }));
}

/** Bytes of the database's active parts (what the server keeps on disk), shared out by span count. */
export async function storageStats(ch: ClickHouse, opts: ReadOptions): Promise<StorageStats> {
  const [size, per] = await Promise.all([
    ch.rows<{ b: string }>(sql`SELECT sum(bytes_on_disk) AS b FROM system.parts WHERE database = ${str(ch.config.database)} AND active`, opts),
    projects(ch, opts),
  ]);
  const total = Number(size[0]?.b ?? 0);
  const spans = per.reduce((a, p) => a + p.span_count, 0);
  return {
    total_bytes: total,
    projects: per.map((p) => ({ project_id: p.project_id, span_count: p.span_count, bytes: spans ? Math.round((total * p.span_count) / spans) : 0 })),
  };
}

export async function ping(ch: ClickHouse, opts: ReadOptions): Promise<boolean> {
  const r = await ch.rows<{ ok: number }>(raw('SELECT 1 AS ok'), opts);
  return r[0]?.ok === 1;
}
