/**
 * The `$expr` filter language of the spans query (semantics §7) compiled to parameterized SQL.
 * Identifiers come only from the column catalog; every literal and every custom-attribute key
 * (as a JSON path) is a bound parameter. Trees deeper than MAX_DEPTH or larger than MAX_NODES
 * are refused with a 422 before any SQL exists, so hostile input cannot exhaust the stack.
 */
import { invalid } from '../../../../shared/errors.js';
import { nsFromIso } from '../../../domain/time.js';
import { CUSTOM_TYPE, DERIVED, DIRECT_COLUMNS, SEMANTIC, isCustomSource, jsonPathOf, type ValType } from './columns.js';
import { dict } from '../../../../shared/dict.js';

export const MAX_DEPTH = 32;
export const MAX_NODES = 2000;
export const MAX_IN_ITEMS = 1000;

export interface Sql {
  sql: string;
  params: unknown[];
}
type Loc = (string | number)[];
type Lit = string | number | boolean | null;
type Operand =
  | { kind: 'lit'; value: Lit }
  | { kind: 'bare'; name: string }
  | { kind: 'sql'; sql: string; params: unknown[]; type: ValType };

const COMPARE: Record<string, string> = dict({ $eq: '=', $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' });
const OPS = new Set(['$and', '$or', '$not', '$eq', '$gt', '$gte', '$lt', '$lte', '$in', '$contains']);

/** A custom attribute read as SQL: json_extract of the map column with the key's path bound. */
export function customSql(source: string, key: string, loc: Loc): { sql: string; params: unknown[]; type: ValType } {
  if (!isCustomSource(source)) throw invalid(loc, `unknown source '${source}'`, source);
  const p = jsonPathOf(key);
  if (p === null) throw invalid(loc, 'custom attribute key must not contain quotes, backslashes or control characters', key);
  return { sql: `json_extract(s.${source}, ?)`, params: [p], type: CUSTOM_TYPE[source] };
}

/** Resolves a field name (semantic name, derived, direct column, custom_attrs_<type>.<key>); null if unknown. */
export function resolveField(name: string, loc: Loc): { sql: string; params: unknown[]; type: ValType } | null {
  const col = SEMANTIC[name] ?? name;
  if (DERIVED[col] && col !== 'total_cost_usd') return { ...DERIVED[col]!, params: [] };
  if (DIRECT_COLUMNS[col]) return { ...DIRECT_COLUMNS[col]!, params: [] };
  const m = /^(custom_attrs_(?:string|int|float|bool))\.(.+)$/s.exec(name);
  if (m) return customSql(m[1]!, m[2]!, loc);
  return null;
}

export function compileExpr(expr: { $expr: Record<string, unknown> }, loc: Loc): Sql {
  const state = { nodes: 0 };
  return compileBool(expr.$expr, [...loc, '$expr'], 0, state);
}

function count(state: { nodes: number }, depth: number, loc: Loc) {
  if (depth > MAX_DEPTH) throw invalid(loc, `expression is nested deeper than ${MAX_DEPTH} levels`, undefined, 'expression_too_deep');
  if (++state.nodes > MAX_NODES) throw invalid(loc, `expression has more than ${MAX_NODES} nodes`, undefined, 'expression_too_large');
}

function single(node: unknown, loc: Loc): [string, unknown] {
  if (!node || typeof node !== 'object' || Array.isArray(node)) throw invalid(loc, 'expected an operator object such as {"$eq": [...]}', node);
  const keys = Object.keys(node);
  if (keys.length !== 1) throw invalid(loc, `an operator object has exactly one key, got ${keys.length} (${keys.slice(0, 5).join(', ')})`, node);
  return [keys[0]!, (node as Record<string, unknown>)[keys[0]!]];
}

function compileBool(node: unknown, loc: Loc, depth: number, st: { nodes: number }): Sql {
  count(st, depth, loc);
  const [op, arg] = single(node, loc);
  const at = [...loc, op];
  switch (op) {
    case '$and':
    case '$or': {
      if (!Array.isArray(arg)) throw invalid(at, `${op} takes an array of expressions`, arg);
      if (!arg.length) return { sql: op === '$and' ? '1' : '0', params: [] };
      const parts = arg.map((a, i) => compileBool(a, [...at, i], depth + 1, st));
      return { sql: `(${parts.map((p) => p.sql).join(op === '$and' ? ' AND ' : ' OR ')})`, params: parts.flatMap((p) => p.params) };
    }
    case '$not': {
      const inner = Array.isArray(arg) ? (arg.length === 1 ? arg[0] : undefined) : arg;
      if (inner === undefined) throw invalid(at, '$not takes one expression', arg);
      const p = compileBool(inner, Array.isArray(arg) ? [...at, 0] : at, depth + 1, st);
      return { sql: `(NOT IFNULL(${p.sql}, 0))`, params: p.params };
    }
    case '$eq':
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte':
      return compileCompare(op, arg, at, depth, st);
    case '$in':
      return compileIn(arg, at, depth, st);
    case '$contains':
      return compileContains(arg, at, depth, st);
    default:
      throw invalid(at, `unknown operator '${op}'; allowed: ${[...OPS].join(', ')}`, op);
  }
}

function operand(node: unknown, loc: Loc, depth: number, st: { nodes: number }): Operand {
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
    return f ? { kind: 'sql', ...f } : { kind: 'bare', name: arg };
  }
  if (op === '$convert') {
    if (!arg || typeof arg !== 'object' || Array.isArray(arg)) throw invalid(at, '$convert takes {input, to}', arg);
    const { input, to, ...rest } = arg as Record<string, unknown>;
    if (Object.keys(rest).length) throw invalid([...at, Object.keys(rest)[0]!], 'Extra inputs are not permitted', undefined, 'extra_forbidden');
    const inner = operand(input, [...at, 'input'], depth + 1, st);
    const x = inner.kind === 'bare' ? bare(inner.name, to === 'string' ? 'string' : to === 'bool' ? 'bool' : 'float', [...at, 'input']) : asSql(inner, 'string');
    switch (to) {
      case 'int': return { kind: 'sql', sql: `CAST(${x.sql} AS INTEGER)`, params: x.params, type: 'int' };
      case 'double': return { kind: 'sql', sql: `CAST(${x.sql} AS REAL)`, params: x.params, type: 'float' };
      case 'string': return { kind: 'sql', sql: `CAST(${x.sql} AS TEXT)`, params: x.params, type: 'string' };
      case 'bool': return { kind: 'sql', sql: `(CASE WHEN ${x.sql} IS NULL THEN NULL WHEN ${x.sql} IN ('false', '0', 0, '') THEN 0 ELSE 1 END)`, params: [...x.params, ...x.params], type: 'bool' };
      case 'exists': return { kind: 'sql', sql: `(${x.sql} IS NOT NULL)`, params: x.params, type: 'bool' };
      default: throw invalid([...at, 'to'], "to must be one of 'int', 'double', 'string', 'bool', 'exists'", to);
    }
  }
  if (OPS.has(op)) {
    const b = compileBool(node, loc, depth, st);
    return { kind: 'sql', sql: b.sql, params: b.params, type: 'bool' };
  }
  throw invalid(at, `unknown operand '${op}'; allowed: $literal, $getField, $convert or a nested operator`, op);
}

/** A bare unknown name is a custom attribute; the map is chosen by the type of the value it meets. */
function bare(name: string, hint: ValType | null, loc: Loc): { sql: string; params: unknown[]; type: ValType } {
  const p = jsonPathOf(name);
  if (p === null) throw invalid(loc, 'custom attribute key must not contain quotes, backslashes or control characters', name);
  switch (hint) {
    case 'string': return { sql: 'json_extract(s.custom_attrs_string, ?)', params: [p], type: 'string' };
    case 'bool': return { sql: 'json_extract(s.custom_attrs_bool, ?)', params: [p], type: 'bool' };
    case 'int': return { sql: 'COALESCE(json_extract(s.custom_attrs_int, ?), json_extract(s.custom_attrs_float, ?))', params: [p, p], type: 'float' };
    case 'float': return { sql: 'COALESCE(json_extract(s.custom_attrs_float, ?), json_extract(s.custom_attrs_int, ?))', params: [p, p], type: 'float' };
    default: throw invalid(loc, `unknown field '${name}': compare it with a literal so its type is known, or name it as custom_attrs_<type>.${name}`, name);
  }
}

const litType = (v: Lit): ValType | null =>
  v === null ? null : typeof v === 'string' ? 'string' : typeof v === 'boolean' ? 'bool' : Number.isInteger(v) ? 'int' : 'float';

/** Binds a literal for comparison with a value of type `target` (ISO strings for times). */
function bindLit(v: Lit, target: ValType, loc: Loc): unknown {
  if (v === null) return null;
  if (target === 'time') {
    if (typeof v !== 'string') throw invalid(loc, 'a time is compared with an ISO 8601 date-time string', v);
    const ns = nsFromIso(v);
    if (ns === null) throw invalid(loc, 'Input should be a valid datetime', v, 'datetime_parsing');
    return ns;
  }
  if (target === 'bool') {
    if (typeof v === 'boolean') return v ? 1 : 0;
    if (typeof v === 'number') return v ? 1 : 0;
    throw invalid(loc, `a boolean value cannot be compared with ${JSON.stringify(v)}`, v);
  }
  if (target === 'string') return typeof v === 'string' ? v : String(v);
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n)) throw invalid(loc, `a number cannot be compared with the string ${JSON.stringify(v).slice(0, 80)}`, v);
  return n;
}

function asSql(o: Operand, other: ValType | null, loc: Loc = []): { sql: string; params: unknown[]; type: ValType } {
  if (o.kind === 'sql') return o;
  if (o.kind === 'bare') return bare(o.name, other, loc);
  const t = other ?? litType(o.value) ?? 'string';
  return { sql: '?', params: [bindLit(o.value, t, loc)], type: t };
}

function compileCompare(op: string, arg: unknown, loc: Loc, depth: number, st: { nodes: number }): Sql {
  if (!Array.isArray(arg) || arg.length !== 2) throw invalid(loc, `${op} takes an array of two operands`, arg);
  const a = operand(arg[0], [...loc, 0], depth + 1, st);
  const b = operand(arg[1], [...loc, 1], depth + 1, st);
  const isNull = (o: Operand) => o.kind === 'lit' && o.value === null;
  if (isNull(a) || isNull(b)) {
    if (op !== '$eq') throw invalid(loc, `${op} cannot compare with null; use $eq with null for "is null"`, arg);
    const x = isNull(a) ? b : a;
    if (isNull(x)) return { sql: '1', params: [] };
    const xs = x.kind === 'bare' ? anyCustom(x.name, [...loc, isNull(a) ? 1 : 0]) : asSql(x, null);
    return { sql: `(${xs.sql} IS NULL)`, params: xs.params };
  }
  const ta = a.kind === 'sql' ? a.type : a.kind === 'lit' ? litType(a.value) : null;
  const tb = b.kind === 'sql' ? b.type : b.kind === 'lit' ? litType(b.value) : null;
  const sa = asSql(a, tb, [...loc, 0]);
  const sb = asSql(b, sa.type ?? ta, [...loc, 1]);
  return { sql: `(${sa.sql} ${COMPARE[op]} ${sb.sql})`, params: [...sa.params, ...sb.params] };
}

/** `$eq [x, null]` on a bare name: the attribute is absent from every custom map. */
function anyCustom(name: string, loc: Loc): { sql: string; params: unknown[]; type: ValType } {
  const p = jsonPathOf(name);
  if (p === null) throw invalid(loc, 'custom attribute key must not contain quotes, backslashes or control characters', name);
  return {
    sql: 'COALESCE(json_extract(s.custom_attrs_string, ?), json_extract(s.custom_attrs_int, ?), json_extract(s.custom_attrs_float, ?), json_extract(s.custom_attrs_bool, ?))',
    params: [p, p, p, p],
    type: 'string',
  };
}

function compileIn(arg: unknown, loc: Loc, depth: number, st: { nodes: number }): Sql {
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
  const xs = x.kind === 'bare' ? bare(x.name, hint, [...loc, 0]) : asSql(x, null, [...loc, 0]);
  const parts: string[] = [];
  const params: unknown[] = [];
  if (nonNull.length) {
    parts.push(`${xs.sql} IN (${nonNull.map(() => '?').join(', ')})`);
    params.push(...xs.params, ...nonNull.map((v, i) => bindLit(v, xs.type, [...loc, 1, i])));
  }
  if (nonNull.length !== values.length) {
    parts.push(`${xs.sql} IS NULL`);
    params.push(...xs.params);
  }
  return { sql: parts.length ? `(${parts.join(' OR ')})` : '0', params };
}

function compileContains(arg: unknown, loc: Loc, depth: number, st: { nodes: number }): Sql {
  if (!arg || typeof arg !== 'object' || Array.isArray(arg)) throw invalid(loc, '$contains takes {input, substr, case_insensitive}', arg);
  const { input, substr, case_insensitive, ...rest } = arg as Record<string, unknown>;
  if (Object.keys(rest).length) throw invalid([...loc, Object.keys(rest)[0]!], 'Extra inputs are not permitted', undefined, 'extra_forbidden');
  if (case_insensitive !== undefined && typeof case_insensitive !== 'boolean') throw invalid([...loc, 'case_insensitive'], 'Input should be a valid boolean', case_insensitive);
  const x = operand(input, [...loc, 'input'], depth + 1, st);
  const sub = operand(substr, [...loc, 'substr'], depth + 1, st);
  const xs = x.kind === 'bare' ? bare(x.name, 'string', [...loc, 'input']) : asSql(x, 'string', [...loc, 'input']);
  const ss = sub.kind === 'bare' ? bare(sub.name, 'string', [...loc, 'substr']) : asSql(sub, 'string', [...loc, 'substr']);
  // instr() matches the substring literally (LIKE would treat % and _ as wildcards).
  return case_insensitive
    ? { sql: `(instr(lower(CAST(${xs.sql} AS TEXT)), lower(${ss.sql})) > 0)`, params: [...xs.params, ...ss.params] }
    : { sql: `(instr(CAST(${xs.sql} AS TEXT), ${ss.sql}) > 0)`, params: [...xs.params, ...ss.params] };
}
