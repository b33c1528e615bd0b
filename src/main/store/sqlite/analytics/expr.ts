/**
 * Compiles a parsed `$expr` tree (domain/expr.ts) to parameterized SQL over `spans s`. The tree is
 * already validated and typed by the service; this only writes SQL. Every literal is a bound
 * parameter (booleans as 1/0, times as integer nanoseconds).
 */
import { isBoolExpr, type BoolExpr, type ValueExpr } from '../../../domain/expr.js';
import { fieldSql, type Sql } from './columns.js';
import { searchSql } from '../fts.js';
import { spanScoreSql } from '../scores.js';

export type { Sql };

const OP = { eq: '=', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

const bind = (v: string | number | bigint | boolean | null): unknown => (typeof v === 'boolean' ? (v ? 1 : 0) : v);


export function compileBool(e: BoolExpr): Sql {
  switch (e.kind) {
    case 'const':
      return { sql: e.value ? '1' : '0', params: [] };
    case 'and':
    case 'or': {
      const parts = e.args.map(compileBool);
      return { sql: `(${parts.map((p) => p.sql).join(e.kind === 'and' ? ' AND ' : ' OR ')})`, params: parts.flatMap((p) => p.params) };
    }
    case 'not': {
      const p = compileBool(e.arg);
      return { sql: `(NOT IFNULL(${p.sql}, 0))`, params: p.params };
    }
    case 'compare': {
      const a = compileValue(e.left);
      const b = compileValue(e.right);
      return { sql: `(${a.sql} ${OP[e.op]} ${b.sql})`, params: [...a.params, ...b.params] };
    }
    case 'is_null': {
      const x = compileValue(e.arg);
      return { sql: `(${x.sql} IS NULL)`, params: x.params };
    }
    case 'in': {
      const x = compileValue(e.arg);
      const parts: string[] = [];
      const params: unknown[] = [];
      if (e.values.length) {
        parts.push(`${x.sql} IN (${e.values.map(() => '?').join(', ')})`);
        params.push(...x.params, ...e.values.map((v) => bind(v.value)));
      }
      if (e.or_null) {
        parts.push(`${x.sql} IS NULL`);
        params.push(...x.params);
      }
      return { sql: parts.length ? `(${parts.join(' OR ')})` : '0', params };
    }
    case 'contains': {
      const x = compileValue(e.input);
      const s = compileValue(e.substr);
      // instr() matches the substring literally (LIKE would treat % and _ as wildcards).
      return e.case_insensitive
        ? { sql: `(instr(lower(CAST(${x.sql} AS TEXT)), lower(${s.sql})) > 0)`, params: [...x.params, ...s.params] }
        : { sql: `(instr(CAST(${x.sql} AS TEXT), ${s.sql}) > 0)`, params: [...x.params, ...s.params] };
    }
    case 'search':
      // The full-text index narrows to candidate traces (3+ characters), then the span's own texts
      // are checked (fts.ts): exact, and fast for rare words.
      return searchSql(e.text);
    case 'score':
      return spanScoreSql(e.project_id, e.cond);
  }
}

export function compileValue(e: ValueExpr): Sql {
  if (isBoolExpr(e)) return compileBool(e);
  switch (e.kind) {
    case 'literal':
      return { sql: '?', params: [bind(e.value)] };
    case 'convert': {
      const x = compileValue(e.input);
      switch (e.to) {
        case 'int': return { sql: `CAST(${x.sql} AS INTEGER)`, params: x.params };
        case 'double': return { sql: `CAST(${x.sql} AS REAL)`, params: x.params };
        case 'string': return { sql: `CAST(${x.sql} AS TEXT)`, params: x.params };
        case 'bool': return { sql: `(CASE WHEN ${x.sql} IS NULL THEN NULL WHEN ${x.sql} IN ('false', '0', 0, '') THEN 0 ELSE 1 END)`, params: [...x.params, ...x.params] };
        case 'exists': return { sql: `(${x.sql} IS NOT NULL)`, params: x.params };
      }
      break;
    }
    default:
      return fieldSql(e);
  }
  throw new Error(`unreachable: ${JSON.stringify(e)}`);
}
