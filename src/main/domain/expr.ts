/**
 * The `$expr` filter language of the spans query (semantics §7) as a typed tree. The service parses
 * a request's `$expr` JSON into this tree (service/analytics/plan/expr.ts): every field reference is
 * resolved against the column catalog (domain/catalog.ts), every literal is typed and converted to
 * the type it is compared with (ISO times → nanoseconds as bigint, booleans as booleans, numbers
 * from numeric strings), and every 422 is raised there. An adapter compiles the tree to its query
 * language and never validates anything: whatever reaches it is well-formed.
 */
import type { Column, CustomSource, Derived, ValType } from './catalog.js';
import type { ScoreCond } from './scores.js';

/** A value read from a span. */
export type FieldRef =
  | { kind: 'column'; column: Column; type: ValType }
  | { kind: 'derived'; name: Derived; type: ValType }
  /**
   * A custom attribute: the value under `key` in the first of `sources` holding it (COALESCE order).
   * One source when the request named the map (`custom_attrs_int.retries`); several when it used a
   * bare name and the map was chosen by the type of what it meets: a number reads the int and the
   * float maps (`type` float), a null test reads all four (`type` string).
   */
  | { kind: 'custom'; key: string; sources: readonly CustomSource[]; type: ValType };

/**
 * A constant, already converted to the type of what it is compared with:
 * time → bigint nanoseconds, bool → boolean, int/float → number, string → string. null only where a
 * null constant is meaningful (a `$convert` of null).
 */
export interface Literal {
  kind: 'literal';
  type: ValType;
  value: string | number | bigint | boolean | null;
}

/** `$convert`: int/double/string casts; bool (null stays null; 'false', '0', 0, '' are false); exists (is not null). */
export interface Convert {
  kind: 'convert';
  to: 'int' | 'double' | 'string' | 'bool' | 'exists';
  input: ValueExpr;
  type: ValType;
}

export type CompareOp = 'eq' | 'gt' | 'gte' | 'lt' | 'lte';

/** A condition. Adapters evaluate with SQL three-valued logic except where a node says otherwise. */
export type BoolExpr =
  /** `$and: []` is true, `$or: []` is false, `$in` with no values is false, null = null is true. */
  | { kind: 'const'; value: boolean }
  /** At least one argument (an empty list is a const). */
  | { kind: 'and' | 'or'; args: BoolExpr[] }
  /** Negation where an unknown (null) argument counts as false, so `$not` of it is true. */
  | { kind: 'not'; arg: BoolExpr }
  | { kind: 'compare'; op: CompareOp; left: ValueExpr; right: ValueExpr }
  /** `$eq` with a null literal. */
  | { kind: 'is_null'; arg: ValueExpr }
  /** `arg` equals one of `values` (typed like arg), or is null when `or_null`. `values` may be empty when `or_null`. */
  | { kind: 'in'; arg: ValueExpr; values: Literal[]; or_null: boolean }
  /** Literal substring test (no wildcards) of `input` as text; case-insensitive compares lower-cased texts. */
  | { kind: 'contains'; input: ValueExpr; substr: ValueExpr; case_insensitive: boolean }
  /**
   * Full-text search (`{"$search": "A-1187"}`): the span's message texts (input and output), tool
   * arguments and results, or any string attribute value contain `text` as a case-insensitive
   * substring. `text` is trimmed and non-empty. The SQLite adapter answers it from its FTS index;
   * how short texts (under 3 characters, below a trigram) are matched is the adapter's choice as
   * long as the meaning stays "contains".
   */
  | { kind: 'search'; text: string }
  /**
   * `{"$score": {"name": "helpful", "max": 0.5}}` (issue 20): the span, its trace (a turn score) or its
   * conversation carries a score meeting `cond` in `project_id` (the plan's project, set by the parser's
   * caller through `scopeScores`).
   */
  | { kind: 'score'; project_id: string; cond: ScoreCond };

/** An operand: a field, a constant, a conversion, or a condition used as a boolean value. */
export type ValueExpr = FieldRef | Literal | Convert | BoolExpr;

export const isBoolExpr = (e: ValueExpr): e is BoolExpr =>
  e.kind === 'const' || e.kind === 'and' || e.kind === 'or' || e.kind === 'not' || e.kind === 'compare' ||
  e.kind === 'is_null' || e.kind === 'in' || e.kind === 'contains' || e.kind === 'search' || e.kind === 'score';

/** Limits of a parsed tree (422 beyond them, before anything runs). */
export const MAX_DEPTH = 32;
export const MAX_NODES = 2000;
export const MAX_IN_ITEMS = 1000;
export const MAX_SEARCH_CHARS = 256;

/** True when a plan (or any tree or value in it) holds a `$search` condition anywhere: its filter, a measure's filter, … */
export function usesSearch(x: unknown): boolean {
  if (Array.isArray(x)) return x.some(usesSearch);
  if (x === null || typeof x !== 'object') return false;
  if ((x as { kind?: unknown }).kind === 'search') return true;
  return Object.values(x).some(usesSearch);
}

/** Sets the project of every `$score` node of a tree (the plan's project; the parser does not know it). */
export function scopeScores(e: BoolExpr | null, projectId: string): BoolExpr | null {
  if (!e) return e;
  const walk = (x: ValueExpr): void => {
    if (!isBoolExpr(x)) {
      if (x.kind === 'convert') walk(x.input);
      return;
    }
    switch (x.kind) {
      case 'score': x.project_id = projectId; break;
      case 'and': case 'or': x.args.forEach(walk); break;
      case 'not': walk(x.arg); break;
      case 'compare': walk(x.left); walk(x.right); break;
      case 'is_null': walk(x.arg); break;
      case 'in': walk(x.arg); break;
      case 'contains': walk(x.input); walk(x.substr); break;
      default: break;
    }
  };
  walk(e);
  return e;
}
