/** Measures of the grouped spans query (semantics §7): `agg(CASE WHEN filter THEN value END)`. */
import { invalid } from '../../../../shared/errors.js';
import { CUSTOM_TYPE, DERIVED, DIRECT_COLUMNS, isCustomSource, type ValType } from './columns.js';
import { compileExpr, customSql, type Sql } from './expr.js';

export interface MeasureSpec {
  alias?: string;
  aggregation?: 'sum' | 'avg' | 'min' | 'max' | 'count' | 'count_distinct' | 'count_true' | 'count_false';
  value?: { key: string; source: string };
  filter?: { $expr: Record<string, unknown> };
}

type Loc = (string | number)[];

export function valueSql(v: { key: string; source: string }, loc: Loc): Sql & { type: ValType } {
  if (v.source === 'derived') {
    const d = DERIVED[v.key];
    if (!d) throw invalid([...loc, 'key'], `unknown derived value '${v.key}'; allowed: ${Object.keys(DERIVED).join(', ')}`, v.key);
    return { sql: d.sql, params: [], type: d.type };
  }
  if (v.source === 'field') {
    const c = DIRECT_COLUMNS[v.key];
    if (!c) throw invalid([...loc, 'key'], `unknown field '${v.key}'`, v.key);
    return { sql: c.sql, params: [], type: c.type };
  }
  if (isCustomSource(v.source)) return { ...customSql(v.source, v.key, [...loc, 'key']), type: CUSTOM_TYPE[v.source] };
  throw invalid([...loc, 'source'], `source must be field, derived or custom_attrs_<type>`, v.source);
}

/** SQL of one measure's aggregate; all values and keys are parameters. */
export function measureSql(m: MeasureSpec, loc: Loc): Sql & { integer: boolean } {
  const agg = m.aggregation ?? (m.value ? 'sum' : 'count');
  const f = m.filter ? compileExpr(m.filter, [...loc, 'filter']) : null;
  if (!m.value) {
    if (agg !== 'count') throw invalid([...loc, 'value'], `aggregation '${agg}' needs a value; only count may omit it`);
    return f ? { sql: `COUNT(CASE WHEN ${f.sql} THEN 1 END)`, params: f.params, integer: true } : { sql: 'COUNT(*)', params: [], integer: true };
  }
  const v = valueSql(m.value, [...loc, 'value']);
  if ((agg === 'sum' || agg === 'avg') && v.type === 'string') throw invalid([...loc, 'aggregation'], `cannot ${agg} the text value '${m.value.key}'`, agg);
  const x = f ? `CASE WHEN ${f.sql} THEN ${v.sql} END` : v.sql;
  const params = f ? [...f.params, ...v.params] : v.params;
  switch (agg) {
    case 'sum': return { sql: `SUM(${x})`, params, integer: v.type === 'int' || v.type === 'bool' };
    case 'avg': return { sql: `AVG(${x})`, params, integer: false };
    case 'min': return { sql: `MIN(${x})`, params, integer: false };
    case 'max': return { sql: `MAX(${x})`, params, integer: false };
    case 'count': return { sql: `COUNT(${x})`, params, integer: true };
    case 'count_distinct': return { sql: `COUNT(DISTINCT ${x})`, params, integer: true };
    case 'count_true': return { sql: `COUNT(CASE WHEN (${x}) THEN 1 END)`, params, integer: true };
    case 'count_false': return { sql: `COUNT(CASE WHEN NOT (${x}) THEN 1 END)`, params, integer: true };
  }
}
