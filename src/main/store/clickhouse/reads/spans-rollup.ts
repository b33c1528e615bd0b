/**
 * Group-by answered from the span rollups (migrations 0003, 0006; rollups.ts) for the plans
 * domain/rollups.ts `rollupsAnswer` accepts under this adapter's capability (CLICKHOUSE_ROLLUPS: keys
 * and conditions over the five key columns, no time window). The query has the scan's output columns
 * (spans-group.ts), so sorting, group filters and paging are the same SQL around it. One row per unit
 * holds all its (agent, operation, status, model, provider) elements as parallel arrays: FINAL picks
 * each unit's newest row, ARRAY JOIN spreads it into one row per element, with the five key arrays
 * joined under their own names — so the plan's condition, measure filters and keys compile to the
 * scan's own SQL (expr.ts) and read the elements.
 */
import type { MeasurePlan, SpansGroupPlan } from '../../../domain/plans.js';
import type { RollupCapability } from '../../../domain/rollups.js';
import { ROLLUP_KEYS } from '../../../domain/rollups.js';
import { columnSql, predicate } from '../expr.js';
import { ident, raw, sql, str, type Sql } from '../sql.js';

/** What this adapter's rollups answer: any of the five keys, conditions over them, no time window. */
export const CLICKHOUSE_ROLLUPS: RollupCapability = { keys: ROLLUP_KEYS, conditions: true, windows: false };

/** Rollup columns (after ARRAY JOIN) of a numeric derived value: sum, count of non-null values, min, max. */
const NUMERIC: Record<string, { sum: string; n: string; min: string; max: string }> = {
  duration_ms: { sum: 'r_dms_sum', n: 'r_dms_n', min: 'r_dms_min', max: 'r_dms_max' },
  total_tokens: { sum: 'r_tok_sum', n: 'r_tok_n', min: 'r_tok_min', max: 'r_tok_max' },
  total_cost_usd: { sum: 'r_cost', n: 'r_cost_n', min: 'r_cost_min', max: 'r_cost_max' },
};
/** Count of the spans for which a derived flag holds (the flags follow from the keys). */
const FLAG: Record<string, string> = { is_error: 'r_errors', is_invocation: 'r_invocations' };

/**
 * A measure over the rollup elements: the scan's `agg(if(filter, value, NULL))` from the elements'
 * sums, counts and bounds, with the same NULLs (no span passes the filter: NULL sums, 0 counts).
 */
export function rollupMeasureSql(m: MeasurePlan): Sql | null {
  const f = m.filter ? predicate(m.filter) : null;
  // An element's column where the filter holds, else NULL (sums, bounds) or 0 (counts).
  const w = (c: string) => (f ? sql`if(${f}, ${ident(c)}, NULL)` : ident(c));
  const n = (c: string) => (f ? sql`sum(if(${f}, ${ident(c)}, 0))` : sql`sum(${ident(c)})`);
  const spans = n('r_spans');
  if (!m.value) return spans;
  if (m.value.kind !== 'derived') return null;
  const num = NUMERIC[m.value.name];
  if (num) {
    switch (m.aggregation) {
      case 'sum': return sql`sum(${w(num.sum)})`;
      case 'count': return n(num.n);
      case 'min': return sql`min(${w(num.min)})`;
      case 'max': return sql`max(${w(num.max)})`;
      // The spans' average: the exact sum over the count (NULL without values, as avg gives it).
      case 'avg': return sql`(sum(${w(num.sum)}) / nullIf(${n(num.n)}, 0))`;
      default: return null;
    }
  }
  const flag = FLAG[m.value.name];
  if (flag) {
    const t = n(flag);
    // NULL where no span of the group passes the filter (never without a filter: a group has spans).
    const some = (x: Sql) => (f ? sql`if(${spans} = 0, NULL, ${x})` : x);
    switch (m.aggregation) {
      case 'count_true': return t;
      case 'sum': return some(t);
      case 'count_false': return sql`(${spans} - ${t})`;
      case 'count': return spans;
      case 'avg': return sql`(${t} / nullIf(${spans}, 0))`;
      case 'min': return some(sql`if(${t} = ${spans}, 1, 0)`);
      case 'max': return some(sql`if(${t} > 0, 1, 0)`);
      default: return null;
    }
  }
  return null;
}

/**
 * The rollup elements of the plan's project that meet its condition, one per (unit, key values),
 * with the key columns under their own names and the `r_` names the columns below read.
 */
export function rollupRows(plan: SpansGroupPlan): Sql {
  const cond = plan.where ? sql` AND ${predicate(plan.where)}` : raw('');
  return sql`(SELECT unit_kind, unit_id, agent_name, operation_name, status_code, request_model, provider_name, r_spans, r_invocations,
      r_errors, r_first, r_last, r_dur, r_in_tok, r_out_tok, r_reasoning_tok, r_cache_creation_tok, r_cache_read_tok, r_cost, r_in_cost,
      r_out_cost, r_cost_n, r_cost_min, r_cost_max, r_dms_sum, r_dms_n, r_dms_min, r_dms_max, r_tok_sum, r_tok_n, r_tok_min, r_tok_max,
      r_versions, r_names, r_last_end
    FROM span_rollups FINAL
    ARRAY JOIN agent_name, operation_name, status_code, request_model, provider_name, span_count AS r_spans, invocations AS r_invocations,
      errors AS r_errors, first_ns AS r_first, last_ns AS r_last, dur_ns AS r_dur, in_tok AS r_in_tok, out_tok AS r_out_tok,
      reasoning_tok AS r_reasoning_tok, cache_creation_tok AS r_cache_creation_tok, cache_read_tok AS r_cache_read_tok, cost AS r_cost,
      in_cost AS r_in_cost, out_cost AS r_out_cost, cost_n AS r_cost_n, cost_min AS r_cost_min, cost_max AS r_cost_max,
      dur_ms_sum AS r_dms_sum, dur_ms_n AS r_dms_n, dur_ms_min AS r_dms_min, dur_ms_max AS r_dms_max, tok_sum AS r_tok_sum,
      tok_n AS r_tok_n, tok_min AS r_tok_min, tok_max AS r_tok_max, agent_versions AS r_versions, conversation_names AS r_names,
      last_end AS r_last_end
    WHERE project_id = ${str(plan.project_id)}${cond})`;
}

/** The scan's output columns (spans-group.ts) computed from rollupRows, keys first (k0, k1, …). */
export function rollupColumns(plan: SpansGroupPlan, measures: Sql[]): Sql[] {
  const cost = (c: Sql) => (plan.include_costs ? c : raw('CAST(NULL AS Nullable(Float64))'));
  const keyed = (column: string) => plan.keys.some((k) => k.ref.kind === 'column' && k.ref.column === column);
  // A key column has one value per group; the others list the distinct values of the group's elements.
  const listed = (column: 'agent_name' | 'provider_name' | 'request_model') =>
    keyed(column) ? sql`[any(${ident(column)})] AS ${ident(`d_${column}`)}` : sql`groupUniqArray(${ident(column)}) AS ${ident(`d_${column}`)}`;
  return [
    ...plan.keys.map((k, i) => sql`${columnSql(k.ref.kind === 'column' ? k.ref.column : 'agent_name')} AS ${ident(`k${i}`)}`),
    raw('sum(r_spans) AS span_count'),
    raw('sum(r_invocations) AS invocation_count'),
    raw("uniqExactIf(unit_id, unit_kind = 'conversation') AS conversation_count"),
    raw('sum(r_errors) AS error_count'),
    raw('min(r_first) AS first_ns'),
    raw('max(r_last) AS last_ns'),
    raw('intDiv(sum(r_dur), 1000000) AS total_duration_ms'),
    raw('ifNull(sum(r_in_tok), 0) AS total_input_tokens'),
    raw('ifNull(sum(r_out_tok), 0) AS total_output_tokens'),
    raw('ifNull(sum(r_reasoning_tok), 0) AS total_reasoning_tokens'),
    raw('ifNull(sum(r_cache_creation_tok), 0) AS total_cache_creation_input_tokens'),
    raw('ifNull(sum(r_cache_read_tok), 0) AS total_cache_read_input_tokens'),
    sql`${cost(raw('sum(r_cost)'))} AS sum_cost_usd`,
    sql`${cost(raw('sum(r_in_cost)'))} AS sum_input_cost_usd`,
    sql`${cost(raw('sum(r_out_cost)'))} AS sum_output_cost_usd`,
    listed('agent_name'),
    raw('groupUniqArrayArray(r_versions) AS d_agent_version'),
    listed('provider_name'),
    listed('request_model'),
    raw('groupUniqArrayArray(r_names) AS d_conversation_name'),
    ...measures.map((m, i) => sql`${m} AS ${ident(`m${i}`)}`),
    raw('sum(r_tok_n) AS usage_spans'),
    raw('greatest(0, intDiv(max(r_last_end) - min(r_first), 1000000)) AS wall_ms'),
  ];
}
