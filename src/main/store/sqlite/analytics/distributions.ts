/**
 * Per-group distributions of a custom attribute (semantics §7): equal-width numeric bins over the
 * group's min..max (last bin inclusive, one bin when min = max), or the top values by count for
 * strings and booleans with the rest counted in `other_count`. One SQL pass counts (group, value)
 * pairs for the groups of the page; binning happens here on those counts.
 */
import type { Statement } from 'better-sqlite3';
import type { DistributionPlan } from '../../../domain/plans.js';
import { customSql, type Sql } from './columns.js';
import { distribution } from '../../../domain/distribution.js';

const keyOf = (v: unknown) => JSON.stringify(v ?? null);

export function distributions(
  prep: (sql: string) => Statement,
  specs: DistributionPlan[],
  key: Sql,
  where: Sql,
  rows: Record<string, unknown>[],
  groups: { span_count: number; distributions: Record<string, unknown> }[],
): void {
  const values = rows.map((r) => r.k0);
  const nonNull = values.filter((v) => v != null);
  const inList = nonNull.length ? `${key.sql} IN (${nonNull.map(() => '?').join(', ')})` : '0';
  const groupFilter = values.some((v) => v == null) ? `(${inList} OR ${key.sql} IS NULL)` : inList;
  const groupParams = values.some((v) => v == null) ? [...key.params, ...nonNull, ...key.params] : [...key.params, ...nonNull];
  const index = new Map(values.map((v, i) => [keyOf(v), i]));

  for (const spec of specs) {
    const v = customSql(spec.source, spec.key);
    const counted = prep(
      `SELECT ${key.sql} AS k, ${v.sql} AS v, COUNT(*) AS n FROM spans s WHERE ${where.sql} AND ${groupFilter} AND ${v.sql} IS NOT NULL GROUP BY k, v`,
    ).all(...key.params, ...v.params, ...where.params, ...groupParams, ...v.params) as { k: unknown; v: string | number; n: number }[];
    const perGroup = groups.map(() => [] as { v: string | number; n: number }[]);
    for (const c of counted) {
      const i = index.get(keyOf(c.k));
      if (i !== undefined) perGroup[i]!.push({ v: c.v, n: c.n });
    }
    const numeric = spec.type === 'int' || spec.type === 'float';
    groups.forEach((g, i) => {
      g.distributions[spec.alias] = distribution(perGroup[i]!, g.span_count, numeric, spec.type === 'bool', spec.bins, spec.top_n);
    });
  }
}
