/**
 * Group-by agent_name answered from the span rollups (migration 0012, summaries/rollups.ts) when the
 * plan allows it (domain/rollups.ts `rollupsAnswer`, the rule every adapter shares). The query has the
 * same output columns as the scan (spans-group.ts), so paging, sorting and group filters are the same
 * SQL around it.
 */
import type { Statement } from 'better-sqlite3';
import type { MeasurePlan, SpansGroupPlan } from '../../../domain/plans.js';
import type { Sql } from './columns.js';

type Agg = MeasurePlan['aggregation'];

/** Rollup columns of a numeric derived value: sum, count of non-null values, min, max. */
const NUMERIC: Record<string, { sum: string; n: string; min: string; max: string }> = {
  duration_ms: { sum: 'dur_ms_sum', n: 'dur_ms_n', min: 'dur_ms_min', max: 'dur_ms_max' },
  total_tokens: { sum: 'tok_sum', n: 'tok_n', min: 'tok_min', max: 'tok_max' },
  total_cost_usd: { sum: 'cost', n: 'cost_n', min: 'cost_min', max: 'cost_max' },
};
/** Rollup column counting the spans for which a derived flag holds (the flags are never null). */
const FLAG: Record<string, string> = { is_error: 'errors', is_invocation: 'invocations' };

/** SQL of a measure over rollup rows `r`, or null when the rollups cannot answer it exactly. */
export function rollupMeasureSql(m: MeasurePlan): string | null {
  if (m.filter) return null;
  if (!m.value) return 'SUM(r.span_count)';
  if (m.value.kind !== 'derived') return null;
  const a: Agg = m.aggregation;
  const num = NUMERIC[m.value.name];
  if (num) {
    switch (a) {
      case 'sum': return `SUM(r.${num.sum})`;
      case 'count': return `SUM(r.${num.n})`;
      case 'min': return `MIN(r.${num.min})`;
      case 'max': return `MAX(r.${num.max})`;
      // AVG over the spans: the exact sum over the count (REAL, as SQLite's AVG gives it).
      case 'avg': return `(CAST(SUM(r.${num.sum}) AS REAL) / NULLIF(SUM(r.${num.n}), 0))`;
      default: return null;
    }
  }
  const flag = FLAG[m.value.name];
  if (flag) {
    switch (a) {
      case 'count_true':
      case 'sum': return `SUM(r.${flag})`;
      case 'count_false': return `(SUM(r.span_count) - SUM(r.${flag}))`;
      case 'count': return 'SUM(r.span_count)';
      case 'avg': return `(CAST(SUM(r.${flag}) AS REAL) / SUM(r.span_count))`;
      case 'min': return `(CASE WHEN SUM(r.${flag}) = SUM(r.span_count) THEN 1 ELSE 0 END)`;
      case 'max': return `(CASE WHEN SUM(r.${flag}) > 0 THEN 1 ELSE 0 END)`;
      default: return null;
    }
  }
  return null;
}

/**
 * The FROM/WHERE and select list of a rollup group query, with the scan's column names (k0,
 * span_count, …, m0 …). The distinct lists (d_*) are read afterwards for the page's groups only
 * (`rollupLists`): json_each over every row of the project would cost more than the sums.
 */
export function rollupGroupSelect(req: SpansGroupPlan): { from: Sql; cols: string[]; measure: (m: MeasurePlan) => string } {
  const cost = (c: string) => (req.include_costs ? `SUM(r.${c})` : 'NULL');
  const cols = [
    'r.agent_name AS k0',
    'SUM(r.span_count) AS span_count',
    'SUM(r.invocations) AS invocation_count',
    'COUNT(DISTINCT r.conversation_id) AS conversation_count',
    'SUM(r.errors) AS error_count',
    'MIN(r.first_ns) / 1000 AS first_us',
    'MAX(r.last_ns) / 1000 AS last_us',
    'IFNULL(SUM(r.dur_ns), 0) / 1000000 AS total_duration_ms',
    'IFNULL(SUM(r.in_tok), 0) AS total_input_tokens',
    'IFNULL(SUM(r.out_tok), 0) AS total_output_tokens',
    'IFNULL(SUM(r.reasoning_tok), 0) AS total_reasoning_tokens',
    'IFNULL(SUM(r.cache_creation_tok), 0) AS total_cache_creation_input_tokens',
    'IFNULL(SUM(r.cache_read_tok), 0) AS total_cache_read_input_tokens',
    `${cost('cost')} AS total_cost_usd`,
    `${cost('in_cost')} AS total_input_cost_usd`,
    `${cost('out_cost')} AS total_output_cost_usd`,
    'json_array(r.agent_name) AS d_agent_name',
    'SUM(r.tok_n) AS usage_spans',
    'MAX(0, (MAX(r.last_end_ns) - MIN(r.first_ns)) / 1000000) AS wall_ms',
  ];
  return { from: { sql: 'span_rollups r WHERE r.project_id = ?', params: [req.project_id] }, cols, measure: (m) => rollupMeasureSql(m)! };
}

const LISTS_SQL = {
  // Rows of one unit usually share their lists: DISTINCT leaves few texts to parse.
  few: `SELECT DISTINCT r.agent_name AS k, r.agent_versions AS a, r.provider_names AS p, r.request_models AS m FROM span_rollups r WHERE r.project_id = ?`,
  names: `SELECT DISTINCT r.agent_name AS k, r.conversation_names AS c FROM span_rollups r WHERE r.project_id = ?`,
} as const;

/**
 * Sets the distinct lists (d_agent_version, d_provider_name, d_request_model, d_conversation_name) of
 * the page's group rows from the rollup rows, as JSON arrays like the scan's json_group_array.
 */
export function rollupLists(prep: (sql: string) => Statement, projectId: string, rows: Record<string, unknown>[]): void {
  if (!rows.length) return;
  const byKey = new Map<unknown, Record<string, Set<unknown>>>(
    rows.map((r) => [r.k0, { d_agent_version: new Set(), d_provider_name: new Set(), d_request_model: new Set(), d_conversation_name: new Set() }]),
  );
  const add = (k: unknown, col: string, json: string) => {
    const sets = byKey.get(k);
    if (sets) for (const v of JSON.parse(json) as unknown[]) sets[col]!.add(v);
  };
  for (const r of prep(LISTS_SQL.few).all(projectId) as { k: unknown; a: string; p: string; m: string }[]) {
    add(r.k, 'd_agent_version', r.a);
    add(r.k, 'd_provider_name', r.p);
    add(r.k, 'd_request_model', r.m);
  }
  for (const r of prep(LISTS_SQL.names).all(projectId) as { k: unknown; c: string }[]) add(r.k, 'd_conversation_name', r.c);
  for (const r of rows) for (const [col, set] of Object.entries(byKey.get(r.k0)!)) r[col] = JSON.stringify([...set]);
}
