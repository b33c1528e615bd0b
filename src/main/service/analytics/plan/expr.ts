/**
 * `$expr` JSON → the typed tree of domain/expr.ts (semantics §7). Every field is resolved against the
 * column catalog, every literal typed and converted to what it meets, and every malformed or
 * unresolvable node answered with a 422 naming its place. Trees deeper than MAX_DEPTH or larger
 * than MAX_NODES are refused as they are walked, so hostile input cannot exhaust the stack.
 */
import { invalid } from '../../../../shared/errors.js';
import { nsFromIso } from '../../../domain/time.js';
import { SCORE_SOURCES, type ScoreCond, type ScoreSource } from '../../../domain/scores.js';
import {
  COLUMN_TYPES, CUSTOM_SOURCES, CUSTOM_TYPE, DERIVED_TYPES, SEMANTIC, isAddressableKey, isColumn, isCustomSource, isDerived, type CustomSource, type ValType,
} from '../../../domain/catalog.js';
import {
  MAX_DEPTH, MAX_IN_ITEMS, MAX_NODES, MAX_SEARCH_CHARS, type BoolExpr, type CompareOp, type FieldRef, type Literal, type ValueExpr,
} from '../../../domain/expr.js';

export type Loc = (string | number)[];
type Lit = string | number | boolean | null;
/** An operand before its type is known: a literal and a bare name take the type of what they meet. */
type Operand = { kind: 'lit'; value: Lit } | { kind: 'bare'; name: string } | { kind: 'typed'; expr: ValueExpr; type: ValType };
type Counter = { nodes: number };

const COMPARE: Record<string, CompareOp> = { $eq: 'eq', $gt: 'gt', $gte: 'gte', $lt: 'lt', $lte: 'lte' };
const OPS = new Set(['$and', '$or', '$not', '$eq', '$gt', '$gte', '$lt', '$lte', '$in', '$contains', '$search', '$score']);
const KEY_MSG = 'custom attribute key must not contain quotes, backslashes or control characters';

/** A custom attribute of one named map; 422 at `loc` for an unknown map or an unaddressable key. */
export function customRef(source: string, key: string, loc: Loc): FieldRef & { kind: 'custom' } {
  if (!isCustomSource(source)) throw invalid(loc, `unknown source '${source}'`, source);
  if (!isAddressableKey(key)) throw invalid(loc, KEY_MSG, key);
  return { kind: 'custom', key, sources: [source], type: CUSTOM_TYPE[source] };
}

/** A field name (semantic name, derived value, column, custom_attrs_<type>.<key>); null when unknown. */
export function resolveField(name: string, loc: Loc): FieldRef | null {
  const col = SEMANTIC[name] ?? name;
  // total_cost_usd is also a column; read as one (same value).
  if (isDerived(col) && col !== 'total_cost_usd') return { kind: 'derived', name: col, type: DERIVED_TYPES[col] };
  if (isColumn(col)) return { kind: 'column', column: col, type: COLUMN_TYPES[col] };
  const m = /^(custom_attrs_(?:string|int|float|bool))\.(.+)$/s.exec(name);
  if (m) return customRef(m[1]!, m[2]!, loc);
  return null;
}

export function parseExpr(expr: { $expr: Record<string, unknown> }, loc: Loc): BoolExpr {
  return parseBool(expr.$expr, [...loc, '$expr'], 0, { nodes: 0 });
}

function count(st: Counter, depth: number, loc: Loc) {
  if (depth > MAX_DEPTH) throw invalid(loc, `expression is nested deeper than ${MAX_DEPTH} levels`, undefined, 'expression_too_deep');
  if (++st.nodes > MAX_NODES) throw invalid(loc, `expression has more than ${MAX_NODES} nodes`, undefined, 'expression_too_large');
}

function single(node: unknown, loc: Loc): [string, unknown] {
  if (!node || typeof node !== 'object' || Array.isArray(node)) throw invalid(loc, 'expected an operator object such as {"$eq": [...]}', node);
  const keys = Object.keys(node);
  if (keys.length !== 1) throw invalid(loc, `an operator object has exactly one key, got ${keys.length} (${keys.slice(0, 5).join(', ')})`, node);
  return [keys[0]!, (node as Record<string, unknown>)[keys[0]!]];
}

function parseBool(node: unknown, loc: Loc, depth: number, st: Counter): BoolExpr {
  count(st, depth, loc);
  const [op, arg] = single(node, loc);
  const at = [...loc, op];
  switch (op) {
    case '$and':
    case '$or': {
      if (!Array.isArray(arg)) throw invalid(at, `${op} takes an array of expressions`, arg);
      if (!arg.length) return { kind: 'const', value: op === '$and' };
      return { kind: op === '$and' ? 'and' : 'or', args: arg.map((a, i) => parseBool(a, [...at, i], depth + 1, st)) };
    }
    case '$not': {
      const inner = Array.isArray(arg) ? (arg.length === 1 ? arg[0] : undefined) : arg;
      if (inner === undefined) throw invalid(at, '$not takes one expression', arg);
      return { kind: 'not', arg: parseBool(inner, Array.isArray(arg) ? [...at, 0] : at, depth + 1, st) };
    }
    case '$eq':
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte':
      return parseCompare(op, arg, at, depth, st);
    case '$in':
      return parseIn(arg, at, depth, st);
    case '$contains':
      return parseContains(arg, at, depth, st);
    case '$search':
      return parseSearch(arg, at);
    case '$score':
      return { kind: 'score', project_id: '', cond: parseScoreCond(arg, at) };
    default:
      throw invalid(at, `unknown operator '${op}'; allowed: ${[...OPS].join(', ')}`, op);
  }
}

function operand(node: unknown, loc: Loc, depth: number, st: Counter): Operand {
  count(st, depth, loc);
  const [op, arg] = single(node, loc);
  const at = [...loc, op];
  if (op === '$literal') {
    if (arg !== null && !['string', 'number', 'boolean'].includes(typeof arg)) throw invalid(at, '$literal holds a string, number, boolean or null', arg);
    if (typeof arg === 'number' && !Number.isFinite(arg)) throw invalid(at, '$literal number must be finite', arg);
    return { kind: 'lit', value: arg as Lit };
  }
  if (op === '$getField') {
    if (typeof arg !== 'string' || !arg || arg.length > 300) throw invalid(at, '$getField takes a field name', arg);
    const f = resolveField(arg, at);
    return f ? { kind: 'typed', expr: f, type: f.type } : { kind: 'bare', name: arg };
  }
  if (op === '$convert') {
    if (!arg || typeof arg !== 'object' || Array.isArray(arg)) throw invalid(at, '$convert takes {input, to}', arg);
    const { input, to, ...rest } = arg as Record<string, unknown>;
    if (Object.keys(rest).length) throw invalid([...at, Object.keys(rest)[0]!], 'Extra inputs are not permitted', undefined, 'extra_forbidden');
    const inner = operand(input, [...at, 'input'], depth + 1, st);
    const x = inner.kind === 'bare' ? bare(inner.name, to === 'string' ? 'string' : to === 'bool' ? 'bool' : 'float', [...at, 'input']) : typed(inner, 'string').expr;
    const type: Record<string, ValType> = { int: 'int', double: 'float', string: 'string', bool: 'bool', exists: 'bool' };
    if (typeof to !== 'string' || !Object.prototype.hasOwnProperty.call(type, to)) throw invalid([...at, 'to'], "to must be one of 'int', 'double', 'string', 'bool', 'exists'", to);
    return { kind: 'typed', expr: { kind: 'convert', to: to as 'int', input: x, type: type[to]! }, type: type[to]! };
  }
  if (OPS.has(op)) return { kind: 'typed', expr: parseBool(node, loc, depth, st), type: 'bool' };
  throw invalid(at, `unknown operand '${op}'; allowed: $literal, $getField, $convert or a nested operator`, op);
}

/** Maps a bare (unknown) name reads, chosen by the type of the value it meets. */
const BARE_SOURCES: Partial<Record<ValType, { sources: CustomSource[]; type: ValType }>> = {
  string: { sources: ['custom_attrs_string'], type: 'string' },
  bool: { sources: ['custom_attrs_bool'], type: 'bool' },
  int: { sources: ['custom_attrs_int', 'custom_attrs_float'], type: 'float' },
  float: { sources: ['custom_attrs_float', 'custom_attrs_int'], type: 'float' },
};

/** A bare unknown name is a custom attribute; the map is chosen by the type of the value it meets. */
function bare(name: string, hint: ValType | null, loc: Loc): FieldRef {
  if (!isAddressableKey(name)) throw invalid(loc, KEY_MSG, name);
  const by = hint ? BARE_SOURCES[hint] : undefined;
  if (!by) throw invalid(loc, `unknown field '${name}': compare it with a literal so its type is known, or name it as custom_attrs_<type>.${name}`, name);
  return { kind: 'custom', key: name, sources: by.sources, type: by.type };
}

const litType = (v: Lit): ValType | null =>
  v === null ? null : typeof v === 'string' ? 'string' : typeof v === 'boolean' ? 'bool' : Number.isInteger(v) ? 'int' : 'float';

/** A literal converted for comparison with a value of type `target` (ISO strings for times). */
function bindLit(v: Lit, target: ValType, loc: Loc): Literal['value'] {
  if (v === null) return null;
  if (target === 'time') {
    if (typeof v !== 'string') throw invalid(loc, 'a time is compared with an ISO 8601 date-time string', v);
    const ns = nsFromIso(v);
    if (ns === null) throw invalid(loc, 'Input should be a valid datetime', v, 'datetime_parsing');
    return ns;
  }
  if (target === 'bool') {
    if (typeof v === 'boolean' || typeof v === 'number') return Boolean(v);
    throw invalid(loc, `a boolean value cannot be compared with ${JSON.stringify(v)}`, v);
  }
  if (target === 'string') return typeof v === 'string' ? v : String(v);
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n)) throw invalid(loc, `a number cannot be compared with the string ${JSON.stringify(v).slice(0, 80)}`, v);
  return n;
}

const literal = (v: Lit, type: ValType, loc: Loc): Literal => ({ kind: 'literal', type, value: bindLit(v, type, loc) });

/** An operand with its type settled by `other` (the type of what it meets). */
function typed(o: Operand, other: ValType | null, loc: Loc = []): { expr: ValueExpr; type: ValType } {
  if (o.kind === 'typed') return o;
  if (o.kind === 'bare') {
    const f = bare(o.name, other, loc);
    return { expr: f, type: f.type };
  }
  const t = other ?? litType(o.value) ?? 'string';
  return { expr: literal(o.value, t, loc), type: t };
}

function parseCompare(op: string, arg: unknown, loc: Loc, depth: number, st: Counter): BoolExpr {
  if (!Array.isArray(arg) || arg.length !== 2) throw invalid(loc, `${op} takes an array of two operands`, arg);
  const a = operand(arg[0], [...loc, 0], depth + 1, st);
  const b = operand(arg[1], [...loc, 1], depth + 1, st);
  const isNull = (o: Operand) => o.kind === 'lit' && o.value === null;
  if (isNull(a) || isNull(b)) {
    if (op !== '$eq') throw invalid(loc, `${op} cannot compare with null; use $eq with null for "is null"`, arg);
    const x = isNull(a) ? b : a;
    if (isNull(x)) return { kind: 'const', value: true };
    const arg0 = x.kind === 'bare' ? anyCustom(x.name, [...loc, isNull(a) ? 1 : 0]) : typed(x, null).expr;
    return { kind: 'is_null', arg: arg0 };
  }
  const ta = a.kind === 'typed' ? a.type : a.kind === 'lit' ? litType(a.value) : null;
  const tb = b.kind === 'typed' ? b.type : b.kind === 'lit' ? litType(b.value) : null;
  const sa = typed(a, tb, [...loc, 0]);
  const sb = typed(b, sa.type ?? ta, [...loc, 1]);
  return { kind: 'compare', op: COMPARE[op]!, left: sa.expr, right: sb.expr };
}

/** `$eq [x, null]` on a bare name: the attribute is absent from every custom map. */
function anyCustom(name: string, loc: Loc): FieldRef {
  if (!isAddressableKey(name)) throw invalid(loc, KEY_MSG, name);
  return { kind: 'custom', key: name, sources: [...CUSTOM_SOURCES], type: 'string' };
}

function parseIn(arg: unknown, loc: Loc, depth: number, st: Counter): BoolExpr {
  if (!Array.isArray(arg) || arg.length !== 2) throw invalid(loc, '$in takes [operand, [values...]]', arg);
  const x = operand(arg[0], [...loc, 0], depth + 1, st);
  let values: Lit[];
  const list = arg[1];
  if (Array.isArray(list)) {
    values = list.map((item, i) => {
      const o = operand(item, [...loc, 1, i], depth + 2, st);
      if (o.kind !== 'lit') throw invalid([...loc, 1, i], '$in values must be literals', item);
      return o.value;
    });
  } else if (list && typeof list === 'object' && Array.isArray((list as { $literal?: unknown }).$literal)) {
    values = (list as { $literal: Lit[] }).$literal;
    values.forEach((v, i) => {
      if (v !== null && !['string', 'number', 'boolean'].includes(typeof v)) throw invalid([...loc, 1, '$literal', i], 'values are strings, numbers, booleans or null', v);
    });
  } else throw invalid([...loc, 1], '$in takes a list of literals', list);
  if (values.length > MAX_IN_ITEMS) throw invalid([...loc, 1], `$in takes at most ${MAX_IN_ITEMS} values`, undefined, 'too_long');
  const nonNull = values.filter((v) => v !== null);
  const hint = nonNull.length ? litType(nonNull[0]!) : 'string';
  const xs = typed(x, x.kind === 'bare' ? hint : null, [...loc, 0]);
  const or_null = nonNull.length !== values.length;
  if (!nonNull.length && !or_null) return { kind: 'const', value: false };
  return { kind: 'in', arg: xs.expr, values: nonNull.map((v, i) => literal(v, xs.type, [...loc, 1, i])), or_null };
}

function parseContains(arg: unknown, loc: Loc, depth: number, st: Counter): BoolExpr {
  if (!arg || typeof arg !== 'object' || Array.isArray(arg)) throw invalid(loc, '$contains takes {input, substr, case_insensitive}', arg);
  const { input, substr, case_insensitive, ...rest } = arg as Record<string, unknown>;
  if (Object.keys(rest).length) throw invalid([...loc, Object.keys(rest)[0]!], 'Extra inputs are not permitted', undefined, 'extra_forbidden');
  if (case_insensitive !== undefined && typeof case_insensitive !== 'boolean') throw invalid([...loc, 'case_insensitive'], 'Input should be a valid boolean', case_insensitive);
  const x = operand(input, [...loc, 'input'], depth + 1, st);
  const sub = operand(substr, [...loc, 'substr'], depth + 1, st);
  const xs = x.kind === 'bare' ? bare(x.name, 'string', [...loc, 'input']) : typed(x, 'string', [...loc, 'input']).expr;
  const ss = sub.kind === 'bare' ? bare(sub.name, 'string', [...loc, 'substr']) : typed(sub, 'string', [...loc, 'substr']).expr;
  return { kind: 'contains', input: xs, substr: ss, case_insensitive: case_insensitive === true };
}

/** `{"$search": "A-1187"}` or `{"$search": {"text": "A-1187"}}`: full-text search (domain/expr.ts). */
function parseSearch(arg: unknown, loc: Loc): BoolExpr {
  let text = arg;
  if (arg && typeof arg === 'object' && !Array.isArray(arg)) {
    const { text: t, ...rest } = arg as Record<string, unknown>;
    if (Object.keys(rest).length) throw invalid([...loc, Object.keys(rest)[0]!], 'Extra inputs are not permitted', undefined, 'extra_forbidden');
    text = t;
    loc = [...loc, 'text'];
  }
  if (typeof text !== 'string') throw invalid(loc, '$search takes the text to find (a string, or {"text": ...})', text);
  const t = text.trim();
  if (!t) throw invalid(loc, '$search needs a non-empty text', text);
  if (Array.from(t).length > MAX_SEARCH_CHARS) throw invalid(loc, `$search text is longer than ${MAX_SEARCH_CHARS} characters`, undefined, 'string_too_long');
  return { kind: 'search', text: t };
}

/**
 * A score condition (`$score`, the conversations list's `scores` filter): `{name, min?, max?, label?,
 * labels?, source?}`. 422 at `loc` for anything else.
 */
export function parseScoreCond(arg: unknown, loc: Loc): ScoreCond {
  if (!arg || typeof arg !== 'object' || Array.isArray(arg)) throw invalid(loc, 'a score condition is {name, min?, max?, label?, labels?, source?}', arg);
  const { name, min, max, label, labels, source, ...rest } = arg as Record<string, unknown>;
  const extra = Object.keys(rest)[0];
  if (extra !== undefined) throw invalid([...loc, extra], 'Extra inputs are not permitted', undefined, 'extra_forbidden');
  if (typeof name !== 'string' || !name || name.length > 200) throw invalid([...loc, 'name'], 'name is the score\'s name (1–200 characters)', name);
  const num = (v: unknown, k: string): number | null => {
    if (v === undefined || v === null) return null;
    if (typeof v === 'boolean') return v ? 1 : 0;
    if (typeof v !== 'number' || !Number.isFinite(v)) throw invalid([...loc, k], `${k} is a finite number (booleans count as 1 and 0)`, v);
    return v;
  };
  let list: string[] | null = null;
  if (label !== undefined) {
    if (typeof label !== 'string') throw invalid([...loc, 'label'], 'label is a string', label);
    list = [label];
  }
  if (labels !== undefined) {
    if (!Array.isArray(labels) || labels.length > MAX_IN_ITEMS || labels.some((l) => typeof l !== 'string')) throw invalid([...loc, 'labels'], `labels is a list of at most ${MAX_IN_ITEMS} strings`, labels);
    list = [...(list ?? []), ...(labels as string[])];
  }
  if (source !== undefined && !(SCORE_SOURCES as readonly unknown[]).includes(source)) throw invalid([...loc, 'source'], `source is one of ${SCORE_SOURCES.join(', ')}`, source);
  return { name, min: num(min, 'min'), max: num(max, 'max'), labels: list, source: (source as ScoreSource | undefined) ?? null };
}
