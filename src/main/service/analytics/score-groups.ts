/**
 * Group-by on a score (issue 20): `group_by: [{source: 'score', key: 'helpful'}]`. The store groups
 * spans by columns; a score is not one. So the service asks one group query per value the score
 * takes (at most MAX_SCORE_VALUES), each with the request's filter and `$score {name, value}`, and
 * merges the groups in the request's order. Works the same on every adapter; the spans of a group
 * are those of the scored span, turn or conversation (the `$score` rule). Spans without the score
 * are in no group.
 */
import type { OpParsedInput } from '../../../shared/contract/index.js';
import type { ServiceContext } from '../context.js';
import type { CallOptions } from '../handler-types.js';
import { invalid } from '../../../shared/errors.js';
import { defaultGroupAlias } from '../../../shared/group-alias.js';
import { parseSpansQuery } from './plan/spans.js';
import type { GroupRowOut } from '../../store/ports.js';

export const MAX_SCORE_VALUES = 50;
type SpansInput = OpParsedInput<'spans.query'>;
type GroupRef = NonNullable<SpansInput['group_by']>[number];

/** A key no span carries: one group holding every span of the sub-query (when the score is the only key). */
const ONE_GROUP: GroupRef = { key: '__loupe_score_group__', source: 'custom_attrs_string', alias: '__loupe_score_group__' };

export const hasScoreKey = (q: SpansInput): boolean => !!q.group_by?.some((g) => g.source === 'score');

export async function groupByScore(q: SpansInput, ctx: ServiceContext, call: CallOptions) {
  const at = q.group_by!.findIndex((g) => g.source === 'score');
  if (q.group_by!.filter((g) => g.source === 'score').length > 1) throw invalid(['group_by', at], 'group by one score at a time');
  if (q.group_distributions?.length) throw invalid(['group_distributions'], 'distributions are not computed when grouping by a score');
  const key = q.group_by![at]!;
  const alias = key.alias ?? defaultGroupAlias(key.key);
  const values = await ctx.traces.scoreValues(q.project_id, key.key, MAX_SCORE_VALUES + 1, call);
  if (values.length > MAX_SCORE_VALUES) {
    throw invalid(['group_by', at, 'key'], `score '${key.key}' takes more than ${MAX_SCORE_VALUES} values: filter on it with $score {min, max} instead`, key.key);
  }
  const rest = q.group_by!.filter((_, i) => i !== at);
  const keys = rest.length ? rest : [ONE_GROUP];
  const page = q.offset + q.limit;
  const parts = await Promise.all(
    values.map(async (v) => {
      const cond = v.label != null ? { name: key.key, label: v.label } : { name: key.key, min: v.value, max: v.value };
      const query = { $expr: q.query ? { $and: [q.query.$expr, { $score: cond }] } : { $score: cond } };
      const sub = parseSpansQuery({ ...q, group_by: keys, query, offset: 0, limit: page, sort_by: q.sort_by?.filter((s) => s.field !== alias) });
      if (sub.mode !== 'group') throw new Error('unreachable: a score group query has keys');
      const r = await ctx.traces.groupSpans(sub.plan, call);
      const value = v.label ?? v.value;
      const groups = r.groups.map((g): GroupRowOut => {
        const group_keys: Record<string, unknown> = {};
        for (const k of q.group_by!) {
          const a = k.alias ?? defaultGroupAlias(k.key);
          group_keys[a] = a === alias ? value : g.group_keys[a];
        }
        return { ...g, group_keys };
      });
      return { groups, total: r.total_count };
    }),
  );
  const all = parts.flatMap((p) => p.groups);
  all.sort(compareBy(q));
  return { groups: all.slice(q.offset, q.offset + q.limit), spans: [], total_count: parts.reduce((n, p) => n + p.total, 0) };
}

/** The request's order over merged groups: its sort_by (default: first measure desc, else last_seen desc), then keys ascending. */
function compareBy(q: SpansInput) {
  const keyAliases = q.group_by!.map((k) => k.alias ?? defaultGroupAlias(k.key));
  const measures = new Set((q.measures ?? []).map((m) => m.alias));
  const sort = q.sort_by?.length
    ? q.sort_by
    : [{ field: q.measures?.length ? q.measures[0]!.alias : 'last_seen', direction: 'desc' as const }];
  const valueOf = (g: GroupRowOut, field: string): unknown => {
    if (keyAliases.includes(field)) return g.group_keys[field];
    if (measures.has(field)) return g.metrics[field];
    return (g as Record<string, unknown>)[field];
  };
  const cmp = (a: unknown, b: unknown): number => {
    if (a === b) return 0;
    if (a == null) return -1;
    if (b == null) return 1;
    if (typeof a === 'number' && typeof b === 'number') return a - b;
    return JSON.stringify(a) < JSON.stringify(b) ? -1 : 1;
  };
  const order = [...sort.map((s) => ({ field: s.field, dir: s.direction === 'asc' ? 1 : -1 })), ...keyAliases.map((k) => ({ field: k, dir: 1 }))];
  return (a: GroupRowOut, b: GroupRowOut) => {
    for (const o of order) {
      const c = cmp(valueOf(a, o.field), valueOf(b, o.field));
      if (c) return c * o.dir;
    }
    return 0;
  };
}
