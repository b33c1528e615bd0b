/**
 * Per-group distributions of a custom attribute (semantics §7) from (value, count) pairs, the same for
 * every store adapter: equal-width numeric bins over the group's min..max (last bin inclusive, one
 * bin when min = max), or the top values by count (then value ascending) for strings and booleans,
 * with the rest counted in `other_count`.
 */
export interface Counted {
  v: string | number;
  n: number;
}

export function distribution(list: Counted[], spanCount: number, numeric: boolean, bool: boolean, bins: number, topN: number): Record<string, unknown> {
  const present = list.reduce((a, c) => a + c.n, 0);
  const base = { total_count: spanCount, present_count: present, missing_count: spanCount - present };
  return numeric
    ? { ...base, kind: 'numeric', ...binned(list as { v: number; n: number }[], bins) }
    : { ...base, kind: 'categorical', ...top(list, topN, bool) };
}

function binned(list: { v: number; n: number }[], count: number) {
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

function top(list: Counted[], n: number, bool: boolean) {
  const named = list.map(({ v, n: c }) => ({ value: bool ? (v ? 'true' : 'false') : String(v), count: c }));
  named.sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
  return { values: named.slice(0, n), other_count: named.slice(n).reduce((a, c) => a + c.count, 0) };
}
