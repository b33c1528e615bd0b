/**
 * Table scan or project index, for counts whose filter reads columns no index holds (custom
 * attributes, span_name, …) and no index can narrow. Without ANALYZE statistics SQLite takes `project_id = ?` as
 * selective and walks a project index, visiting the table in index order: on a store where the
 * project holds most spans that is ~3× the CPU of reading the table front to back (1M spans: 1.2 s vs
 * 0.4 s for a custom-attribute count). Only the plan changes, never the rows counted.
 */
import type { Statement } from 'better-sqlite3';

/** Columns some spans index leads with after project_id: a filter reading them is left to the planner. */
const INDEXED = /\bs\.(trace_id|span_id|start_ns|conversation_id|agent_name|operation_name)\b/;

/** Columns of spans_group_cover (migration 0005): a filter reading only these is counted from that index. */
const COVERED = new Set([
  'id', 'project_id', 'agent_name', 'conversation_id', 'start_ns', 'end_ns', 'status_code', 'operation_name', 'input_tokens',
  'output_tokens', 'reasoning_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens', 'agent_version', 'provider_name',
  'request_model', 'conversation_name', 'total_cost_usd', 'input_cost_usd', 'output_cost_usd',
]);

/** A project holding at least this share of the table's rowid range is counted by a table scan. */
const SCAN_SHARE = 0.25;

export function countSource(prep: (sql: string) => Statement, projectId: string, whereSql: string): string {
  const rest = whereSql.replace('s.project_id = ?', '');
  if (INDEXED.test(rest)) return 'spans s';
  // Only index columns read: SQLite counts from the covering index, already the cheapest plan.
  if ([...rest.matchAll(/\bs\.([a-z_]+)\b/g)].every((m) => COVERED.has(m[1]!))) return 'spans s';
  const maxId = (prep('SELECT MAX(id) FROM spans').pluck().get() as number | null) ?? 0;
  const probe = Math.max(1, Math.floor(maxId * SCAN_SHARE));
  // Counts at most `probe` entries of a project index: cheap next to the count it decides.
  const seen = prep('SELECT COUNT(*) FROM (SELECT 1 FROM spans WHERE project_id = ? LIMIT ?)').pluck().get(projectId, probe) as number;
  return seen >= probe ? 'spans s NOT INDEXED' : 'spans s';
}
