/**
 * SQL text of the ClickHouse adapter. Statements are built with the `sql` tag: fixed text from this
 * adapter's code, identifiers from its catalogs (`ident`), and values as typed parameters (`str`,
 * `i64`, …). Values reach the server in one of two ways, chosen per server:
 *
 *  - query parameters (`{p0:String}` + `param_p0=…`), where the server has them (19.x and later);
 *  - literals written by `literal()` below — ClickHouse 18.16 has no server-side parameters.
 *
 * `literal()` is the ONLY place in the adapter where a value becomes SQL text; it is fuzzed against
 * injection on a real server (test/unit/clickhouse-literal.test.ts).
 */

/** The ClickHouse types a parameter may carry (the subset the adapter binds). */
export type ParamType =
  | 'String' | 'Int64' | 'UInt64' | 'Float64' | 'UInt8' | 'Date'
  | 'Array(String)' | 'Array(Int64)' | 'Array(Float64)' | 'Array(UInt8)';

export type ParamValue = string | number | bigint | boolean | null | readonly (string | number | bigint | boolean)[];

export interface Param {
  readonly type: ParamType;
  /** null only for Nullable uses (rendered as NULL / a Nullable parameter). */
  readonly value: ParamValue;
}

/** A piece of SQL: text parts interleaved with parameters (parts.length = params.length + 1). */
export class Sql {
  constructor(
    readonly parts: readonly string[],
    readonly params: readonly Param[],
  ) {}
}

const isParam = (v: unknown): v is Param => typeof v === 'object' && v !== null && !(v instanceof Sql) && 'type' in v && 'value' in v;

/** Tagged template: interpolations are Sql fragments (spliced) or Params (bound). Nothing else. */
export function sql(strings: TemplateStringsArray, ...values: (Sql | Param)[]): Sql {
  const parts: string[] = [strings[0]!];
  const params: Param[] = [];
  values.forEach((v, i) => {
    if (v instanceof Sql) {
      parts[parts.length - 1] += v.parts[0]!;
      for (let j = 0; j < v.params.length; j++) {
        params.push(v.params[j]!);
        parts.push(v.parts[j + 1]!);
      }
    } else if (isParam(v)) {
      params.push(v);
      parts.push('');
    } else {
      throw new TypeError(`sql: interpolation ${i} is neither an Sql fragment nor a parameter`);
    }
    parts[parts.length - 1] += strings[i + 1]!;
  });
  return new Sql(parts, params);
}

/** Joins fragments with a separator (itself fixed text). */
export function join(items: readonly Sql[], sep: string): Sql {
  if (!items.length) return new Sql([''], []);
  const parts: string[] = [''];
  const params: Param[] = [];
  items.forEach((it, i) => {
    if (i) parts[parts.length - 1] += sep;
    parts[parts.length - 1] += it.parts[0]!;
    it.params.forEach((p, j) => {
      params.push(p);
      parts.push(it.parts[j + 1]!);
    });
  });
  return new Sql(parts, params);
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/;

/**
 * Fixed SQL text from the adapter's own catalogs (column names, function names, operators).
 * Refuses anything that is not a plain (optionally dotted) identifier, so a value can never pass
 * through here by mistake.
 */
export function ident(name: string): Sql {
  if (!IDENT.test(name)) throw new TypeError(`not an identifier: ${JSON.stringify(name).slice(0, 80)}`);
  return new Sql([name], []);
}

/**
 * Fixed text written in this adapter (never derived from input). Typed to take only text known when
 * compiling (a string literal, or a union of them): a string computed at run time does not compile
 * here, and test/unit/clickhouse-literal.test.ts refuses `raw` with `${…}` holes in the sources.
 * Identifiers computed from the adapter's catalogs go through `ident`, values through parameters.
 */
export const raw = <T extends string>(text: string extends T ? never : T): Sql => new Sql([text], []);

/** A statement of a numbered migration (fixed DDL in migrations/*.ts, hash-checked at every open): migrate.ts only. */
export const ddl = (statement: string): Sql => new Sql([statement], []);

export const str = (value: string | null): Param => ({ type: 'String', value });
export const i64 = (value: number | bigint | null): Param => ({ type: 'Int64', value });
export const u64 = (value: number | bigint | null): Param => ({ type: 'UInt64', value });
export const f64 = (value: number | null): Param => ({ type: 'Float64', value });
export const bool = (value: boolean | null): Param => ({ type: 'UInt8', value });
export const strs = (value: readonly string[]): Param => ({ type: 'Array(String)', value });
export const i64s = (value: readonly (number | bigint)[]): Param => ({ type: 'Array(Int64)', value });
export const f64s = (value: readonly number[]): Param => ({ type: 'Array(Float64)', value });
/** A date as 'YYYY-MM-DD' (UTC). */
export const date = (value: string): Param => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) throw new TypeError(`not a date: ${value}`);
  return { type: 'Date', value };
};

/** Escapes of a ClickHouse string literal: backslash, quote and every control character. */
function quoteString(s: string): string {
  let out = "'";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x5c) out += '\\\\';
    else if (c === 0x27) out += "\\'";
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else out += s[i];
  }
  return `${out}'`;
}

/** 2^-537: a normal double whose square is 2^-1074, the smallest subnormal. */
const TINY = 2 ** -537;
const MIN_NORMAL = 2 ** -1022;

function number(v: number | bigint, integer: boolean, type: string): string {
  if (typeof v === 'bigint') return v < 0n ? `(${v})` : String(v);
  if (!Number.isFinite(v)) throw new TypeError(`${type} parameter must be finite, got ${v}`);
  if (integer) {
    if (!Number.isInteger(v)) throw new TypeError(`${type} parameter must be an integer, got ${v}`);
    const text = BigInt(v).toString();
    return v < 0 ? `(${text})` : text;
  }
  // The server's lexer refuses subnormal literals (and its text parser flushes them to 0): write
  // one as an exact product of normal numbers, m × 2^-537 × 2^-537 with m = v / 2^-1074 an integer.
  if (v !== 0 && Math.abs(v) < MIN_NORMAL) return `(toFloat64(${number(v / TINY / TINY, true, type)}) * ${TINY} * ${TINY})`;
  // Unary minus on a literal, in parentheses so it binds; toFloat64 keeps a float a float
  // (`1` alone would be a UInt8 and change integer/float semantics).
  return v < 0 || Object.is(v, -0) ? `(-toFloat64(${String(-v)}))` : `toFloat64(${String(v)})`;
}

function scalar(type: string, v: string | number | bigint | boolean): string {
  switch (type) {
    case 'String':
      if (typeof v !== 'string') throw new TypeError(`String parameter must be a string, got ${typeof v}`);
      return quoteString(v);
    case 'Date':
      if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(v)) throw new TypeError(`Date parameter must be YYYY-MM-DD, got ${String(v)}`);
      return `toDate('${v}')`;
    case 'UInt8':
      if (typeof v === 'boolean') return v ? '1' : '0';
      return number(v as number, true, type);
    case 'Int64':
    case 'UInt64':
      if (typeof v !== 'number' && typeof v !== 'bigint') throw new TypeError(`${type} parameter must be a number, got ${typeof v}`);
      if (type === 'UInt64' && v < 0) throw new TypeError(`UInt64 parameter must not be negative, got ${v}`);
      return number(v, true, type);
    case 'Float64':
      if (typeof v !== 'number') throw new TypeError(`Float64 parameter must be a number, got ${typeof v}`);
      return number(v, false, type);
    default:
      throw new TypeError(`unsupported parameter type ${type}`);
  }
}

const EMPTY: Record<string, string> = {
  'Array(String)': 'emptyArrayString()',
  'Array(Int64)': 'emptyArrayInt64()',
  'Array(Float64)': 'emptyArrayFloat64()',
  'Array(UInt8)': 'emptyArrayUInt8()',
};

/** The one literal formatter: a typed value as ClickHouse SQL text that parses back to exactly that value. */
export function literal(p: Param): string {
  if (p.value === null) return 'NULL';
  const arr = /^Array\((.+)\)$/.exec(p.type);
  if (arr) {
    if (!Array.isArray(p.value)) throw new TypeError(`${p.type} parameter must be an array`);
    const items = p.value as readonly (string | number | bigint | boolean)[];
    if (!items.length) return EMPTY[p.type]!;
    return `[${items.map((x) => scalar(arr[1]!, x)).join(', ')}]`;
  }
  if (Array.isArray(p.value)) throw new TypeError(`${p.type} parameter must not be an array`);
  return scalar(p.type, p.value as string | number | bigint | boolean);
}

/**
 * `LIMIT offset, count`: always literal text (servers accept parameters in LIMIT only from recent
 * versions), through the one formatter like every other value.
 */
export function limit(offset: number, count: number): Sql {
  return new Sql([` LIMIT ${literal({ type: 'UInt64', value: offset })}, ${literal({ type: 'UInt64', value: count })}`], []);
}

/** A sort direction: SQLite orders NULL lowest; ClickHouse puts NULLs last unless told. Same order in both adapters. */
export const dir = (d: 'asc' | 'desc'): Sql => raw(d === 'asc' ? ' ASC NULLS FIRST' : ' DESC NULLS LAST');

/** How values reach the server (see the file comment). */
export type ParamMode = 'literal' | 'server';

export interface Rendered {
  query: string;
  /** Set in 'server' mode: the values of `{pN:Type}` placeholders, as @clickhouse/client sends them. */
  query_params?: Record<string, unknown>;
}

/** Final SQL text for the server. */
export function render(q: Sql, mode: ParamMode): Rendered {
  let text = q.parts[0]!;
  if (mode === 'literal') {
    q.params.forEach((p, i) => (text += literal(p) + q.parts[i + 1]!));
    return { query: text };
  }
  const params: Record<string, unknown> = {};
  q.params.forEach((p, i) => {
    const name = `p${i}`;
    const nullable = p.value === null && !p.type.startsWith('Array');
    text += `{${name}:${nullable ? `Nullable(${p.type})` : p.type}}${q.parts[i + 1]!}`;
    params[name] = typeof p.value === 'bigint' ? p.value.toString() : p.value;
  });
  return { query: text, query_params: params };
}
