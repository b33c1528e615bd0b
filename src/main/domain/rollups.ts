/**
 * Which group-by plans the span rollups answer exactly (decisions 0012, 0020 and 0021), the same rule
 * for every adapter. A rollup row holds the spans of one unit (a conversation, or the
 * conversation-less spans of a trace) that share the key columns below, so:
 *  - every group key is one of the key columns (any number of them, in any order);
 *  - the condition reads only key columns and the flags that follow from them (is_error,
 *    is_invocation): it holds for all of a row's spans or for none, whatever its shape (comparisons,
 *    IN, null tests, substring tests, conversions, AND/OR/NOT) — never `$search`, a custom
 *    attribute, a time or a measure value; with the name layer (`names`, SQLite's migration 0031), also
 *    span_name and duration bounds (readsOnlyNameKeys);
 *  - a time window is answered from the rows wholly inside it plus the spans of the units with a row
 *    across one of its edges (each adapter reads those spans);
 *  - no distributions or previews;
 *  - every measure (and group filter) is `count`, or an aggregation the rollups keep — sum, avg, min,
 *    max, count over duration_ms, total_tokens, total_cost_usd, and the is_error / is_invocation
 *    flags — with, if any, a filter that reads only key columns as the condition above.
 * Each adapter maps these to its own SQL (sqlite/analytics/rollups.ts, clickhouse/reads/spans-rollup.ts)
 * and declares what its rollups hold (`RollupCapability`: SQLite KEYED_ROLLUPS, ClickHouse AGENT_ROLLUPS —
 * its keyed read was taken back, docs/clickhouse.md); a plan the rule refuses for that capability is
 * answered by a scan, never narrowed.
 */
import type { BoolExpr, ValueExpr } from './expr.js';
import type { MeasurePlan, SpanScope, SpansGroupPlan } from './plans.js';

/** The span columns every rollup row has one value of. */
export const ROLLUP_KEYS = ['agent_name', 'operation_name', 'status_code', 'request_model', 'provider_name', 'span_kind', 'response_model'] as const;
/** Derived values that are functions of the key columns. */
const KEY_DERIVED: readonly string[] = ['is_error', 'is_invocation'];
/** Derived numeric values the rollups keep sum, non-null count, min and max of. */
export const ROLLUP_NUMERIC = ['duration_ms', 'total_tokens', 'total_cost_usd'] as const;
/** Derived flags (never null) the rollups count the spans of. */
export const ROLLUP_FLAGS = ['is_error', 'is_invocation'] as const;
/** Rollups keyed by agent_name alone, no condition, no window (decisions 0012 and 0020). */
export const AGENT_ROLLUPS: RollupCapability = { keys: ['agent_name'], conditions: false, windows: false };

const NUMERIC_AGGS: readonly MeasurePlan['aggregation'][] = ['sum', 'count', 'min', 'max', 'avg'];
const FLAG_AGGS: readonly MeasurePlan['aggregation'][] = ['count_true', 'sum', 'count_false', 'count', 'avg', 'min', 'max'];

const isKey = (column: string): boolean => (ROLLUP_KEYS as readonly string[]).includes(column);

/**
 * True when an expression reads only columns `column` accepts (and constants, and the derived flags that
 * follow from the keys); `atom`: sub-expressions accepted whole (the name layer's duration bounds).
 */
function readsOnly(e: ValueExpr, column: (name: string) => boolean, atom?: (e: ValueExpr) => boolean): boolean {
  if (atom?.(e)) return true;
  const only = (x: ValueExpr) => readsOnly(x, column, atom);
  switch (e.kind) {
    case 'const':
    case 'literal':
      return true;
    case 'and':
    case 'or':
      return e.args.every(only);
    case 'not':
      return only(e.arg);
    case 'compare':
      return only(e.left) && only(e.right);
    case 'is_null':
      return only(e.arg);
    case 'in':
      return only(e.arg);
    case 'contains':
      return only(e.input) && only(e.substr);
    case 'convert':
      return only(e.input);
    case 'column':
      return column(e.column);
    case 'derived':
      return KEY_DERIVED.includes(e.name);
    case 'custom':
    case 'search':
    case 'score': // a score is about a span, its turn or conversation: not a rollup key
      return false;
  }
}

/** True when an expression reads nothing but the rollups' key columns (so one row's spans all agree on it). */
export const readsOnlyKeys = (e: ValueExpr): boolean => readsOnly(e, isKey);

/**
 * A duration bound: `duration_ms` compared with a number by <, <=, >, >= (either side) — monotone, so it holds for
 * all of a row's spans when it holds for its least and greatest duration; never `=` — or its null test.
 */
function durationAtom(e: ValueExpr): boolean {
  const dur = (x: ValueExpr) => x.kind === 'derived' && x.name === 'duration_ms';
  const num = (x: ValueExpr) => x.kind === 'literal' && typeof x.value === 'number';
  if (e.kind === 'compare') return e.op !== 'eq' && ((dur(e.left) && num(e.right)) || (num(e.left) && dur(e.right)));
  return e.kind === 'is_null' && dur(e.arg);
}

/**
 * True when a condition reads nothing but the key columns, span_name and duration bounds (`duration_ms`
 * compared with a number): what the name layer (SQLite `span_name_days`, migration 0031) answers — a row's
 * spans share the keys and the span name, and a bound holds for all of them or none unless it falls inside
 * the row's durations (the adapter then scans: analytics/rollups.ts).
 */
export const readsOnlyNameKeys = (e: ValueExpr): boolean => readsOnly(e, (c) => c === 'span_name' || isKey(c), durationAtom);

/** The duration bounds of a condition the name layer answers (each `duration_ms` comparison), in tree order. */
export function durationBounds(e: ValueExpr): BoolExpr[] {
  if (durationAtom(e)) return e.kind === 'compare' ? [e] : [];
  switch (e.kind) {
    case 'and':
    case 'or':
      return e.args.flatMap(durationBounds);
    case 'not':
      return durationBounds(e.arg);
    default:
      return [];
  }
}

/**
 * What one adapter's rollups hold (the port's capability, declared by each adapter): which key
 * columns its rows are split by, and whether it answers conditions and time windows from them.
 */
export interface RollupCapability {
  keys: readonly (typeof ROLLUP_KEYS)[number][];
  conditions: boolean;
  windows: boolean;
  /** Conditions on span_name and duration bounds too (a layer keyed by them: SQLite's span_name_days). */
  names?: boolean;
}

/** Rollups keyed by all the key columns, conditions and windows answered (decision 0021; span_kind and response_model since 0030). */
export const KEYED_ROLLUPS: RollupCapability = { keys: ROLLUP_KEYS, conditions: true, windows: true, names: true };

/** True when rollups of this capability answer a scope's condition (`where`). */
const answersWhere = (where: SpanScope['where'], cap: RollupCapability): boolean =>
  where === null || (cap.conditions && (readsOnlyKeys(where) || (!!cap.names && readsOnlyNameKeys(where))));

/** True when the scope's condition reads span_name or a duration: answered from the name layer (migration 0031). */
export const needsNameLayer = (scope: SpanScope): boolean => scope.where !== null && !readsOnlyKeys(scope.where) && readsOnlyNameKeys(scope.where);

/** True when the rollups hold what this measure needs. */
export function rollupAnswersMeasure(m: MeasurePlan, cap: RollupCapability = KEYED_ROLLUPS): boolean {
  if (m.filter && !(cap.conditions && readsOnlyKeys(m.filter))) return false;
  if (!m.value) return true;
  if (m.value.kind !== 'derived') return false;
  const name = m.value.name;
  if ((ROLLUP_NUMERIC as readonly string[]).includes(name)) return NUMERIC_AGGS.includes(m.aggregation);
  if ((ROLLUP_FLAGS as readonly string[]).includes(name)) return FLAG_AGGS.includes(m.aggregation);
  return false;
}

/** True when the plan has a time window (answered from whole rows plus the spans of units across an edge). */
export const hasWindow = (req: SpanScope): boolean => req.started_after_ns !== null || req.started_before_ns !== null;

/**
 * True when rollups of this capability count a scope's spans exactly (the spans list's total, issue 19
 * item 2): its condition reads only key columns (every span of a row agrees on it) and its window, if
 * any, is one the rollups answer — the group-by rule above with one group and a count.
 */
export function rollupsCount(scope: SpanScope, cap: RollupCapability = KEYED_ROLLUPS): boolean {
  return answersWhere(scope.where, cap) && (!hasWindow(scope) || cap.windows);
}

/** True when rollups of this capability answer the plan exactly. */
export function rollupsAnswer(req: SpansGroupPlan, cap: RollupCapability = KEYED_ROLLUPS): boolean {
  const keyed = (column: string) => (cap.keys as readonly string[]).includes(column);
  return (
    req.keys.length > 0 && req.keys.every((k) => k.ref.kind === 'column' && keyed(k.ref.column)) &&
    answersWhere(req.where, cap) &&
    (!hasWindow(req) || cap.windows) &&
    !req.distributions.length && !req.previews &&
    req.measures.every((m) => rollupAnswersMeasure(m, cap)) && req.having.every((h) => rollupAnswersMeasure(h.measure, cap))
  );
}
