/**
 * Table scan or project index, for counts and group-by scans whose filter reads columns no index holds (custom
 * attributes, span_name, …) and no index can narrow. Without ANALYZE statistics SQLite takes `project_id = ?` as
 * selective and walks a project index, visiting the table in index order: on a store where the
 * project holds most spans that is ~3× the CPU of reading the table front to back (1M spans: 1.2 s vs
 * 0.4 s for a custom-attribute count). Only the plan changes, never the rows counted.
 */
import type { Statement } from 'better-sqlite3';

/** Columns some spans index leads with after project_id: a filter reading them is left to the planner. */
const INDEXED = /\bs\.(trace_id|span_id|start_ns|conversation_id)\b/;

/** A project holding at least this share of the table's rowid range is counted by a table scan. */
const SCAN_SHARE = 0.25;

export function countSource(prep: (sql: string) => Statement, projectId: string, whereSql: string): string {
  const rest = whereSql.replace('s.project_id = ?', '');
  // No column read but the project: counted from a project index, narrower than the table.
  if (!/\bs\.[a-z_]+\b/.test(rest)) return 'spans s';
  return rowSource(prep, projectId, whereSql);
}

/** For reads that visit every matching row (group-by scans): no index holds their columns. */
export function rowSource(prep: (sql: string) => Statement, projectId: string, whereSql: string): string {
  const rest = whereSql.replace('s.project_id = ?', '');
  if (INDEXED.test(rest)) return 'spans s';
  return tableSource(prep, 'spans', projectId, SCAN_SHARE);
}

/**
 * `table s NOT INDEXED` when the project holds at least `share` of the table's rowid range (read front
 * to back), else `table s` (its project index). Counts at most that many entries of the project
 * index: cheap next to the read it decides.
 */
export function tableSource(prep: (sql: string) => Statement, table: 'spans' | 'span_rollups' | 'span_rollup_days' | 'span_name_days', projectId: string, share: number): string {
  const maxId = (prep(`SELECT MAX(rowid) FROM ${table}`).pluck().get() as number | null) ?? 0;
  const probe = Math.max(1, Math.floor(maxId * share));
  const seen = prep(`SELECT COUNT(*) FROM (SELECT 1 FROM ${table} WHERE project_id = ? LIMIT ?)`).pluck().get(projectId, probe) as number;
  return seen >= probe ? `${table} s NOT INDEXED` : `${table} s`;
}
