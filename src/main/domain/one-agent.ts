/**
 * "The spans of one agent": the Spans list filtered by `agent_name = 'x'` alone (or as the one row of an AND,
 * the filter bar's form) and no time window. Both adapters count that list from a kept row instead of the
 * spans (SQLite: agent_summaries; ClickHouse: the kept day rows), so the rule that recognises it is one.
 */
import type { BoolExpr } from './expr.js';
import type { SpanScope } from './plans.js';

/** The string a condition compares `column` equal to (`column = 'x'` either way round), else null. */
export function equalsString(w: BoolExpr | null | undefined, column: string): string | null {
  if (w?.kind !== 'compare' || w.op !== 'eq') return null;
  const [col, lit] = w.left.kind === 'column' ? [w.left, w.right] : [w.right, w.left];
  return col.kind === 'column' && col.column === column && lit.kind === 'literal' && typeof lit.value === 'string' ? lit.value : null;
}

/**
 * The agent name when the scope is "the spans of one agent" (above), else null: its count is the spans whose
 * stored (credited) agent_name is that name.
 */
export function oneAgent(scope: SpanScope): string | null {
  if (scope.started_after_ns !== null || scope.started_before_ns !== null) return null;
  // The filter bar sends its rows as an AND, of one row here.
  const w = scope.where?.kind === 'and' && scope.where.args.length === 1 ? scope.where.args[0] : scope.where;
  return equalsString(w, 'agent_name');
}
