/**
 * The filter builder's model and its translation to the spans query `$expr` language (semantics §7).
 * Pure functions so the builder and the JSON text box share one source of truth: the rows the user
 * builds become an expression, and the text box shows (and may replace) that expression.
 */

export type FilterOp = 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte' | 'contains' | 'icontains' | 'in' | 'is_null' | 'not_null';

export interface FilterRow {
  /**
   * A column name, a semantic name (gen_ai.agent.name), a derived key (duration_ms), `custom_attrs_<type>.<key>`,
   * or `$score.<name>` (a score of the span, its turn or its conversation, issue 20).
   */
  field: string;
  op: FilterOp;
  /** Raw text from the input box; converted by `literalOf`. Comma-separated for `in`. */
  value: string;
}

export const FILTER_OPS: { op: FilterOp; label: string }[] = [
  { op: 'eq', label: '=' },
  { op: 'neq', label: '≠' },
  { op: 'gt', label: '>' },
  { op: 'gte', label: '≥' },
  { op: 'lt', label: '<' },
  { op: 'lte', label: '≤' },
  { op: 'contains', label: 'contains' },
  { op: 'icontains', label: 'contains (any case)' },
  { op: 'in', label: 'in' },
  { op: 'is_null', label: 'is empty' },
  { op: 'not_null', label: 'is set' },
];

export type Expr = { $expr: Record<string, unknown> };

/**
 * A number when the text is a plain number, true/false for booleans, else the text itself. Typing
 * matters: a bare custom attribute name picks its map from the other operand's literal type (§7).
 */
export function literalOf(text: string): string | number | boolean {
  const t = text.trim();
  if (t === 'true') return true;
  if (t === 'false') return false;
  if (t !== '' && /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(t)) return Number(t);
  return text;
}

/** Filter-row fields naming a score: `$score.helpful`. */
export const SCORE_FIELD_PREFIX = '$score.';
export const scoreField = (name: string): string => `${SCORE_FIELD_PREFIX}${name}`;

/**
 * A condition on a score as `$score` (semantics of `{"$score": {name, min?, max?, label?, labels?}}`:
 * bounds are inclusive, so > and ≥ both mean "at least", < and ≤ "at most"; = on a number is both
 * bounds, on true/false 1/0, on text the label; "contains" has no score form and reads as the label).
 */
function scoreOperand(name: string, op: FilterOp, value: string): Record<string, unknown> {
  const lit = literalOf(value);
  const score = (cond: Record<string, unknown>) => ({ $score: { name, ...cond } });
  const eq = () => (typeof lit === 'number' ? score({ min: lit, max: lit }) : typeof lit === 'boolean' ? score({ min: +lit, max: +lit }) : score({ label: value.trim() }));
  const n = typeof lit === 'number' ? lit : typeof lit === 'boolean' ? +lit : NaN;
  switch (op) {
    case 'eq': case 'contains': case 'icontains': return eq();
    case 'neq': return { $not: [eq()] };
    case 'gt': case 'gte': return Number.isFinite(n) ? score({ min: n }) : score({});
    case 'lt': case 'lte': return Number.isFinite(n) ? score({ max: n }) : score({});
    case 'in': return score({ labels: value.split(',').map((v) => v.trim()).filter(Boolean) });
    case 'is_null': return { $not: [score({})] };
    case 'not_null': return score({});
  }
}

function operand(row: FilterRow): Record<string, unknown> {
  if (row.field.startsWith(SCORE_FIELD_PREFIX)) return scoreOperand(row.field.slice(SCORE_FIELD_PREFIX.length), row.op, row.value);
  const field = { $getField: row.field };
  const lit = { $literal: literalOf(row.value) };
  switch (row.op) {
    case 'eq': return { $eq: [field, lit] };
    case 'neq': return { $not: [{ $eq: [field, lit] }] };
    case 'gt': return { $gt: [field, lit] };
    case 'gte': return { $gte: [field, lit] };
    case 'lt': return { $lt: [field, lit] };
    case 'lte': return { $lte: [field, lit] };
    case 'contains': return { $contains: { input: field, substr: { $literal: row.value }, case_insensitive: false } };
    case 'icontains': return { $contains: { input: field, substr: { $literal: row.value }, case_insensitive: true } };
    case 'in': return { $in: [field, row.value.split(',').map((v) => v.trim()).filter(Boolean).map((v) => ({ $literal: literalOf(v) }))] };
    case 'is_null': return { $eq: [field, { $literal: null }] };
    case 'not_null': return { $not: [{ $eq: [field, { $literal: null }] }] };
  }
}

/** Rows that are complete enough to filter by (a field, and a value unless the op needs none). */
export function completeRows(rows: FilterRow[]): FilterRow[] {
  return rows.filter((r) => r.field.trim() && (r.op === 'is_null' || r.op === 'not_null' || r.value.trim() !== ''));
}

/** The `$expr` for the rows (all must hold), or undefined when there is nothing to filter by. */
export function exprFromRows(rows: FilterRow[]): Expr | undefined {
  const ops = completeRows(rows).map(operand);
  if (ops.length === 0) return undefined;
  return { $expr: { $and: ops } };
}

/**
 * Parses the text box. Empty → no filter. Anything else must be a JSON object with a `$expr` key;
 * the error message says what is wrong so the user can fix it (the server still validates it fully).
 */
export function parseExprText(text: string): { expr?: Expr; error?: string } {
  if (!text.trim()) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { error: `Not valid JSON: ${(e as Error).message}` };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value) || !('$expr' in value)) {
    return { error: 'The filter must be an object with a "$expr" key, e.g. {"$expr": {"$eq": [{"$getField": "agent_name"}, {"$literal": "triage"}]}}' };
  }
  return { expr: value as Expr };
}
