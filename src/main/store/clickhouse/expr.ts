/**
 * Column catalog entries and `$expr` trees (domain/catalog.ts, domain/expr.ts) as ClickHouse SQL over
 * the narrow `spans` table. The tree is validated and typed by the service; this only writes SQL,
 * with every value a parameter (sql.ts).
 *
 * NULL semantics follow the SQLite adapter (SQL three-valued logic, `$not` counting unknown as false).
 * ClickHouse's own AND/OR are not three-valued (`NULL AND 0` is NULL there, `NULL OR 0` is 0), so:
 *  - where a condition only filters (WHERE, a measure's filter, HAVING), every comparison is
 *    coalesced to false and plain AND/OR/NOT are used — equivalent, because `$not` coalesces too;
 *  - where a condition is a value (compared with a literal, converted, aggregated), AND/OR are
 *    written as multiIf over the three cases.
 */
import { searchCondition } from './search-sql.js';
import type { Column, CustomSource, Derived } from '../../domain/catalog.js';
import { isBoolExpr, type BoolExpr, type FieldRef, type Literal, type ValueExpr } from '../../domain/expr.js';
import { bool, f64, i64, ident, join, raw, sql, str, type Param, type Sql } from './sql.js';
import { spanScoreSql } from './scores.js';

let scopeProject: string | null = null;
const currentProject = (): string => {
  if (scopeProject === null) throw new Error('$search compiled outside withProject()');
  return scopeProject;
};

/**
 * Compiles within one project's scope: `$search` reads the payload table, whose semi-join must be
 * restricted to the query's project. Compilation is synchronous, so a module-level scope is safe.
 */
export function withProject<T>(projectId: string, compile: () => T): T {
  const before = scopeProject;
  scopeProject = projectId;
  try {
    return compile();
  } finally {
    scopeProject = before;
  }
}

/** Catalog names whose stored column is named differently. */
const RENAMED: Partial<Record<Column, string>> = { started_at: 'start_ns', ended_at: 'end_ns' };

export const columnSql = (c: Column): Sql => ident(RENAMED[c] ?? c);

export const DERIVED_SQL: Readonly<Record<Derived, Sql>> = {
  duration_ms: raw('if(end_ns >= start_ns, intDiv(end_ns - start_ns, 1000000), NULL)'),
  // What the span adds to totals by the one counting rule (spans.counted, bit 1 tokens / bit 2 cost):
  // NULL for a span whose usage or cost repeats its descendants' (docs/analytics.md).
  total_tokens: raw('if(bitAnd(counted, 1) != 0, ifNull(input_tokens, 0) + ifNull(output_tokens, 0), NULL)'),
  is_error: raw("(status_code = 'ERROR')"),
  is_invocation: raw("ifNull(operation_name = 'invoke_agent', 0)"),
  total_cost_usd: raw('if(bitAnd(counted, 2) != 0, total_cost_usd, NULL)'),
};

/** Key and value arrays of each custom map (parallel arrays in `spans`). */
const MAP: Readonly<Record<CustomSource, [string, string]>> = {
  custom_attrs_string: ['str_keys', 'str_values'],
  custom_attrs_int: ['int_keys', 'int_values'],
  custom_attrs_float: ['float_keys', 'float_values'],
  custom_attrs_bool: ['bool_keys', 'bool_values'],
};

export const mapColumns = (source: CustomSource): [Sql, Sql] => [ident(MAP[source][0]), ident(MAP[source][1])];

/** The value under `key` in one map, NULL when the span has no such key. */
export function customSql(source: CustomSource, key: string): Sql {
  const [k, v] = mapColumns(source);
  return sql`if(has(${k}, ${str(key)}), ${v}[indexOf(${k}, ${str(key)})], NULL)`;
}

/** The first map holding `key`, converted to the reference's type (ClickHouse has no supertype of Int64 and Float64). */
function customFirst(sources: readonly CustomSource[], key: string, type: string): Sql {
  if (sources.length === 1) return customSql(sources[0]!, key);
  const cast = type === 'string' ? 'toString' : 'toFloat64';
  const branches = sources.map((s) => {
    const [k, v] = mapColumns(s);
    return sql`has(${k}, ${str(key)}), ${ident(cast)}(${v}[indexOf(${k}, ${str(key)})])`;
  });
  return sql`multiIf(${join(branches, ', ')}, NULL)`;
}

export function fieldSql(f: FieldRef): Sql {
  switch (f.kind) {
    case 'column':
      return columnSql(f.column);
    case 'derived':
      return DERIVED_SQL[f.name];
    case 'custom':
      return customFirst(f.sources, f.key, f.type);
  }
}

/** A literal as a typed parameter (time → Int64 ns, bool → UInt8, int that is not whole → Float64). */
export function literalParam(l: Pick<Literal, 'type' | 'value'>): Param {
  const v = l.value;
  if (v === null) return l.type === 'string' ? str(null) : l.type === 'bool' ? bool(null) : f64(null);
  if (typeof v === 'boolean') return bool(v);
  if (typeof v === 'bigint') return i64(v);
  if (typeof v === 'string') return str(v);
  return Number.isInteger(v) && l.type !== 'float' ? i64(v) : f64(v);
}

const OP = { eq: '=', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

/** A condition used as a filter: NULL counts as false (see the file comment). */
export function predicate(e: BoolExpr): Sql {
  switch (e.kind) {
    case 'const':
      return sql`${bool(e.value)}`;
    case 'and':
    case 'or':
      return sql`(${join(e.args.map(predicate), e.kind === 'and' ? ' AND ' : ' OR ')})`;
    case 'not':
      return sql`(NOT ${predicate(e.arg)})`;
    default:
      return sql`ifNull(${boolValue(e)}, 0)`;
  }
}

/** A condition as a three-valued value (1, 0 or NULL). */
export function boolValue(e: BoolExpr): Sql {
  switch (e.kind) {
    case 'const':
      return sql`${bool(e.value)}`;
    case 'and':
    case 'or': {
      const args = e.args.map(boolValue);
      if (args.length === 1) return args[0]!;
      // AND: any false → 0, else any unknown → NULL, else 1. OR: any true → 1, else any unknown → NULL, else 0.
      const decisive = e.kind === 'and' ? '0' : '1';
      const other = e.kind === 'and' ? '1' : '0';
      const hit = join(args.map((a) => sql`ifNull(${a}, ${raw(other)}) = ${raw(decisive)}`), ' OR ');
      const unknown = join(args.map((a) => sql`isNull(${a})`), ' OR ');
      return sql`multiIf(${hit}, ${raw(decisive)}, ${unknown}, NULL, ${raw(other)})`;
    }
    case 'not':
      return sql`(NOT ifNull(${boolValue(e.arg)}, 0))`;
    case 'compare':
      return sql`(${value(e.left)} ${raw(OP[e.op])} ${value(e.right)})`;
    case 'is_null':
      if (e.arg.kind === 'custom' && e.arg.sources.length > 1) {
        // Absent from every map named (a bare name compared with null reads all four).
        return sql`NOT (${join(e.arg.sources.map((s) => sql`has(${mapColumns(s)[0]}, ${str(e.arg.kind === 'custom' ? e.arg.key : '')})`), ' OR ')})`;
      }
      return sql`isNull(${value(e.arg)})`;
    case 'in': {
      const x = value(e.arg);
      const parts: Sql[] = [];
      // `NULL IN (…)` is 0 in ClickHouse, NULL in SQL: keep the unknown.
      if (e.values.length) parts.push(sql`if(isNull(${x}), NULL, ${x} IN (${join(items(e.values), ', ')}))`);
      if (!e.values.length) return e.or_null ? sql`isNull(${x})` : raw('0');
      // `x IN (…) OR x IS NULL`: true for NULL, else the membership (never unknown).
      return e.or_null ? sql`multiIf(isNull(${x}), 1, ${x} IN (${join(items(e.values), ', ')}))` : parts[0]!;
    }
    case 'contains': {
      const x = textOf(e.input);
      const s = value(e.substr);
      // Literal substring (no wildcards). Case folding is ASCII-only, as SQLite's lower() is.
      return e.case_insensitive ? sql`(positionCaseInsensitive(${x}, ${s}) > 0)` : sql`(position(${x}, ${s}) > 0)`;
    }
    case 'search':
      return searchSql(e.text);
    case 'score':
      return spanScoreSql(e.project_id, e.cond);
  }
}

/** `$in` values as parameters of one type (all Float64 when one of them is not whole). */
function items(values: Literal[]): Sql[] {
  const anyFloat = values.some((v) => typeof v.value === 'number' && !Number.isInteger(v.value));
  return values.map((v) => sql`${literalParam(anyFloat && typeof v.value === 'number' ? { type: 'float', value: v.value } : v)}`);
}

/** A value as text for `$contains` (numbers as ClickHouse prints them). */
function textOf(e: ValueExpr): Sql {
  const t = typeOf(e);
  const v = value(e);
  return t === 'string' ? v : sql`toString(${v})`;
}

export function typeOf(e: ValueExpr): string {
  if (isBoolExpr(e)) return 'bool';
  return e.type;
}

/** An operand's value. */
export function value(e: ValueExpr): Sql {
  if (isBoolExpr(e)) return boolValue(e);
  switch (e.kind) {
    case 'literal':
      return sql`${literalParam(e)}`;
    case 'convert': {
      const x = value(e.input);
      const from = typeOf(e.input);
      switch (e.to) {
        case 'int':
          return from === 'string' ? sql`toInt64OrZero(${x})` : sql`toInt64(${x})`;
        case 'double':
          return from === 'string' ? sql`toFloat64OrZero(${x})` : sql`toFloat64(${x})`;
        case 'string':
          return from === 'string' ? x : sql`toString(${x})`;
        case 'bool':
          return from === 'string'
            ? sql`if(isNull(${x}), NULL, ${x} NOT IN ('false', '0', ''))`
            : sql`if(isNull(${x}), NULL, ${x} != 0)`;
        case 'exists':
          return sql`isNotNull(${x})`;
      }
      break;
    }
    default:
      return fieldSql(e);
  }
  throw new Error(`unreachable: ${JSON.stringify(e)}`);
}

/** `$search` (search-sql.ts): a superset of the rule for messages, exact for the rest. */
export function searchSql(text: string): Sql {
  return searchCondition(currentProject(), text);
}
