/**
 * Which group-by plans the span rollups answer exactly (decisions 0012 and 0020), the same rule for
 * every adapter: the only key is the agent_name column, no condition and no time window, no
 * distributions or previews, and every measure (and group filter) is `count` or an aggregation the
 * rollups keep — sum, avg, min, max, count over duration_ms, total_tokens, total_cost_usd, and the
 * is_error / is_invocation flags — without a measure filter. Each adapter maps these measures to its
 * own SQL (sqlite/analytics/rollups.ts, clickhouse/reads/spans-rollup.ts).
 */
import type { MeasurePlan, SpansGroupPlan } from './plans.js';

/** Derived numeric values the rollups keep sum, non-null count, min and max of. */
export const ROLLUP_NUMERIC = ['duration_ms', 'total_tokens', 'total_cost_usd'] as const;
/** Derived flags (never null) the rollups count the spans of. */
export const ROLLUP_FLAGS = ['is_error', 'is_invocation'] as const;

const NUMERIC_AGGS: readonly MeasurePlan['aggregation'][] = ['sum', 'count', 'min', 'max', 'avg'];
const FLAG_AGGS: readonly MeasurePlan['aggregation'][] = ['count_true', 'sum', 'count_false', 'count', 'avg', 'min', 'max'];

/** True when the rollups hold what this measure needs. */
export function rollupAnswersMeasure(m: MeasurePlan): boolean {
  if (m.filter) return false;
  if (!m.value) return true;
  if (m.value.kind !== 'derived') return false;
  const name = m.value.name;
  if ((ROLLUP_NUMERIC as readonly string[]).includes(name)) return NUMERIC_AGGS.includes(m.aggregation);
  if ((ROLLUP_FLAGS as readonly string[]).includes(name)) return FLAG_AGGS.includes(m.aggregation);
  return false;
}

/** True when the rollups answer this plan exactly. */
export function rollupsAnswer(req: SpansGroupPlan): boolean {
  const k = req.keys[0];
  return (
    req.keys.length === 1 && k!.ref.kind === 'column' && k!.ref.column === 'agent_name' &&
    req.where === null && req.started_after_ns === null && req.started_before_ns === null &&
    !req.distributions.length && !req.previews &&
    req.measures.every(rollupAnswersMeasure) && req.having.every((h) => rollupAnswersMeasure(h.measure))
  );
}
