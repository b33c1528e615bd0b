/**
 * Where a cluster leads (issue 20 item 4: "opening one is a filter everywhere else"): its `filter`
 * (a score condition) as the conversations list's `?score=` and as a Spans filter row on
 * `$score.<name>`; the time windows the view offers.
 */
import type { OpOutput } from '../../../../shared/contract/index';
import { scoreField, type FilterRow } from '../spans/expr';

export type Cluster = OpOutput<'clusters.list'>['clusters'][number];

export const WINDOWS = [
  { id: '24h', label: 'Last 24 hours', ms: 24 * 3600_000 },
  { id: '7d', label: 'Last 7 days', ms: 7 * 24 * 3600_000 },
  { id: '30d', label: 'Last 30 days', ms: 30 * 24 * 3600_000 },
  { id: 'all', label: 'All time', ms: null },
] as const;
export type WindowId = (typeof WINDOWS)[number]['id'];

export const windowOf = (id: string | null): WindowId => (WINDOWS.some((w) => w.id === id) ? (id as WindowId) : 'all');

/** `since` for a window, rounded down to the minute so the query key (and cache) holds for a minute. */
export function sinceOf(id: WindowId, now = Date.now()): string | undefined {
  const ms = WINDOWS.find((w) => w.id === id)?.ms;
  return ms ? new Date(Math.floor((now - ms) / 60_000) * 60_000).toISOString() : undefined;
}

/** The query string of the conversations list showing the cluster's conversations. */
export const conversationsQuery = (c: Cluster): string => `score=${encodeURIComponent(JSON.stringify(c.filter))}`;

/** The cluster's filter as Spans filter rows (`f` of the Spans link). */
export function spanRows(c: Cluster): FilterRow[] {
  const f = c.filter;
  const field = scoreField(f.name);
  if (f.label !== undefined) return [{ field, op: 'eq', value: f.label }];
  if (f.labels) return [{ field, op: 'in', value: f.labels.join(', ') }];
  const rows: FilterRow[] = [];
  if (f.min !== undefined) rows.push({ field, op: 'gte', value: String(f.min) });
  if (f.max !== undefined) rows.push({ field, op: 'lte', value: String(f.max) });
  return rows.length ? rows : [{ field, op: 'not_null', value: '' }];
}

/**
 * The trend as one count per UTC day up to today (days without turns are 0): from the first day
 * with turns, but at least the last 14 days (so a new cluster is one bar at the right end, not a
 * block) and at most the last 90.
 */
export function dailyCounts(trend: Cluster['trend'], now = Date.now()): { day: string; count: number }[] {
  if (!trend.length) return [];
  const DAY = 86_400_000;
  const by = new Map(trend.map((t) => [t.day, t.count]));
  const first = Date.parse(`${[...by.keys()].sort()[0]}T00:00:00Z`);
  const end = Math.max(Math.floor(now / DAY) * DAY, Date.parse(`${[...by.keys()].sort().at(-1)}T00:00:00Z`));
  const start = Math.max(Math.min(first, end - 13 * DAY), end - 89 * DAY);
  const out: { day: string; count: number }[] = [];
  for (let d = start; d <= end; d += DAY) {
    const day = new Date(d).toISOString().slice(0, 10);
    out.push({ day, count: by.get(day) ?? 0 });
  }
  return out;
}
