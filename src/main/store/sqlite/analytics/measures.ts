/** Measures of the grouped spans query (semantics §7): `agg(CASE WHEN filter THEN value END)`. */
import type { MeasurePlan } from '../../../domain/plans.js';
import { fieldSql, type Sql } from './columns.js';
import { compileBool } from './expr.js';

/** SQL of one measure's aggregate; all values and keys are parameters. */
export function measureSql(m: MeasurePlan): Sql {
  const f = m.filter ? compileBool(m.filter) : null;
  if (!m.value) return f ? { sql: `COUNT(CASE WHEN ${f.sql} THEN 1 END)`, params: f.params } : { sql: 'COUNT(*)', params: [] };
  const v = fieldSql(m.value);
  const x = f ? `CASE WHEN ${f.sql} THEN ${v.sql} END` : v.sql;
  const params = f ? [...f.params, ...v.params] : v.params;
  switch (m.aggregation) {
    case 'sum': return { sql: `SUM(${x})`, params };
    case 'avg': return { sql: `AVG(${x})`, params };
    case 'min': return { sql: `MIN(${x})`, params };
    case 'max': return { sql: `MAX(${x})`, params };
    case 'count': return { sql: `COUNT(${x})`, params };
    case 'count_distinct': return { sql: `COUNT(DISTINCT ${x})`, params };
    case 'count_true': return { sql: `COUNT(CASE WHEN (${x}) THEN 1 END)`, params };
    case 'count_false': return { sql: `COUNT(CASE WHEN NOT (${x}) THEN 1 END)`, params };
  }
}
