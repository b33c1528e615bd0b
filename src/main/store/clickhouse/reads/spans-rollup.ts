/**
 * Group-by agent_name answered from the span rollups (migration 0003, rollups.ts) for the plans
 * domain/rollups.ts `rollupsAnswer` accepts (the rule both adapters share, decision 0012). The
 * query has the scan's output columns (spans-group.ts), so sorting, group filters and paging are the
 * same SQL around it. One row per unit holds all its agents (parallel arrays): FINAL picks each
 * unit's newest row, ARRAY JOIN spreads it into one row per (unit, agent).
 */
import type { MeasurePlan, SpansGroupPlan } from '../../../domain/plans.js';
import { ident, raw, sql, str, type Sql } from '../sql.js';
import { ROLLUP_ARRAY_COLUMNS, ROLLUP_ARRAY_JOIN } from '../rollups.js';

/** Rollup columns (after ARRAY JOIN) of a numeric derived value: sum, count of non-null values, min, max. */
const NUMERIC: Record<string, { sum: Sql; n: Sql; min: Sql; max: Sql }> = {
  duration_ms: { sum: raw('sum(r_dms_sum)'), n: raw('sum(r_dms_n)'), min: raw('min(r_dms_min)'), max: raw('max(r_dms_max)') },
  total_tokens: { sum: raw('sum(r_tok_sum)'), n: raw('sum(r_tok_n)'), min: raw('min(r_tok_min)'), max: raw('max(r_tok_max)') },
  total_cost_usd: { sum: raw('sum(r_cost)'), n: raw('sum(r_cost_n)'), min: raw('min(r_cost_min)'), max: raw('max(r_cost_max)') },
};
/** Sum of the spans for which a derived flag holds (the flags are never NULL). */
const FLAG: Record<string, Sql> = { is_error: raw('sum(r_errors)'), is_invocation: raw('sum(r_invocations)') };
const SPANS = raw('sum(r_spans)');

/** A measure over the rollup rows, or null when the rollups cannot answer it exactly. */
export function rollupMeasureSql(m: MeasurePlan): Sql | null {
  if (m.filter) return null;
  if (!m.value) return SPANS;
  if (m.value.kind !== 'derived') return null;
  const num = NUMERIC[m.value.name];
  if (num) {
    switch (m.aggregation) {
      case 'sum': return num.sum;
      case 'count': return num.n;
      case 'min': return num.min;
      case 'max': return num.max;
      // The spans' average: the exact sum over the count (NULL without values, as avg gives it).
      case 'avg': return sql`(${num.sum} / nullIf(${num.n}, 0))`;
      default: return null;
    }
  }
  const flag = FLAG[m.value.name];
  if (flag) {
    switch (m.aggregation) {
      case 'count_true':
      case 'sum': return flag;
      case 'count_false': return sql`(${SPANS} - ${flag})`;
      case 'count': return SPANS;
      case 'avg': return sql`(${flag} / ${SPANS})`;
      case 'min': return sql`if(${flag} = ${SPANS}, 1, 0)`;
      case 'max': return sql`if(${flag} > 0, 1, 0)`;
      default: return null;
    }
  }
  return null;
}


const R_ARRAY_JOIN = raw(ROLLUP_ARRAY_JOIN);
const R_COLUMNS = raw(ROLLUP_ARRAY_COLUMNS);

/** The rollup rows of one project, one per (unit, agent), with the `r_` names the columns below read. */
export function rollupRows(projectId: string): Sql {
  return sql`(SELECT unit_kind, unit_id, ${R_COLUMNS}
    FROM span_rollups FINAL
    ARRAY JOIN ${R_ARRAY_JOIN}
    WHERE project_id = ${str(projectId)})`;
}

/**
 * The day layer's rows of one project (migration 0015, rollup-days.ts), one per (day, agent), with the same `r_` names
 * and `r_convs`, the agent's conversation ids of the day: a row per day is read, not a row per unit.
 */
export function rollupDayRows(projectId: string): Sql {
  return sql`(SELECT ${R_COLUMNS}, r_convs
    FROM rollup_days FINAL
    ARRAY JOIN ${R_ARRAY_JOIN}, conversations AS r_convs
    WHERE project_id = ${str(projectId)})`;
}

/**
 * The scan's output columns (spans-group.ts) computed from rollupRows (or, `days`, from rollupDayRows: the distinct
 * conversations are the union of the days' ids), key first (k0).
 */
export function rollupColumns(plan: SpansGroupPlan, measures: Sql[], days = false): Sql[] {
  const cost = (c: Sql) => (plan.include_costs ? c : raw('CAST(NULL AS Nullable(Float64))'));
  return [
    raw('r_agent AS k0'),
    raw('sum(r_spans) AS span_count'),
    raw('sum(r_invocations) AS invocation_count'),
    days ? raw('uniqExactArray(r_convs) AS conversation_count') : raw("uniqExactIf(unit_id, unit_kind = 'conversation') AS conversation_count"),
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
    raw('[any(r_agent)] AS d_agent_name'),
    raw('groupUniqArrayArray(r_versions) AS d_agent_version'),
    raw('groupUniqArrayArray(r_providers) AS d_provider_name'),
    raw('groupUniqArrayArray(r_models) AS d_request_model'),
    raw('groupUniqArrayArray(r_names) AS d_conversation_name'),
    ...measures.map((m, i) => sql`${m} AS ${ident(`m${i}`)}`),
    raw('sum(r_tok_n) AS usage_spans'),
    raw('greatest(0, intDiv(max(r_last_end) - min(r_first), 1000000)) AS wall_ms'),
  ];
}
