/**
 * Per-group distributions of a custom attribute (semantics §7): equal-width numeric bins over the
 * group's min..max (last bin inclusive, one bin when min = max), or the top values by count for
 * strings and booleans with the rest counted in `other_count`. One SQL pass counts (group, value)
 * pairs for the groups of the page; binning happens here on those counts.
 */
import type { Statement } from 'better-sqlite3';
import type { DistributionPlan } from '../../../domain/plans.js';
import { customSql, type Sql } from './columns.js';

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
    groups.forEach((g, i) => {
      const list = perGroup[i]!;
      const present = list.reduce((a, c) => a + c.n, 0);
      const base = { total_count: g.span_count, present_count: present, missing_count: g.span_count - present };
      g.distributions[spec.alias] =
        spec.type === 'int' || spec.type === 'float'
          ? { ...base, kind: 'numeric', ...bins(list as { v: number; n: number }[], spec.bins) }
          : { ...base, kind: 'categorical', ...topN(list, spec.top_n, spec.type === 'bool') };
    });
  }
}

function bins(list: { v: number; n: number }[], count: number) {
  if (!list.length) return { min: null, max: null, bins: [] };
  let min = Infinity;
  let max = -Infinity;
  for (const { v } of list) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const n = min === max ? 1 : count;
  const width = (max - min) / n;
  const out = Array.from({ length: n }, (_, i) => ({ lower: min + i * width, upper: i === n - 1 ? max : min + (i + 1) * width, count: 0 }));
  for (const { v, n: c } of list) out[width === 0 ? 0 : Math.min(n - 1, Math.floor((v - min) / width))]!.count += c;
  return { min, max, bins: out };
}

function topN(list: { v: string | number; n: number }[], n: number, bool: boolean) {
  const named = list.map(({ v, n: c }) => ({ value: bool ? (v ? 'true' : 'false') : String(v), count: c }));
  named.sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
  const top = named.slice(0, n);
  return { values: top, other_count: named.slice(n).reduce((a, c) => a + c.count, 0) };
}
