/**
 * Score groups (issue 20, the Clusters view): which score rows make a failure cluster, and the
 * summary both stores keep of them so the view never groups every score row of a project.
 *
 * A score row is in a group when it is a failure signature (a `failures` score with a label: the
 * group is the label) or a low score (any other score whose value is at most LOW_MAX: the group is
 * the score's name). A group counts turns, not rows: a turn (its trace, or its conversation for a
 * conversation score) is a member once, at the time and with the agent of its earliest row in the
 * group (ties by score id). So two reviewers on one turn, or a turn's score and its span's, count
 * it once, on one day.
 *
 * Both stores keep one member row per (group, turn) recomputed from the turn's score rows whenever
 * one of them is written, replaced or deleted; SQLite also sums members per (group, UTC day, agent)
 * in the same transaction (migration 0023), ClickHouse sums them at read. The rule below is written
 * out in both migrations (SQLite 0023, ClickHouse 0008): change it only with a new migration.
 */
import type { ScoreRecord } from './scores.js';

/** The score name of failure signatures (the label is the signature). */
export const FAILURES = 'failures';
/** A score at most this is low (numbers 0–1 by convention; false = 0): `value <= LOW_MAX`. */
export const LOW = 0.5;
export const LOW_MAX = 0.499999999;
export const DAY_NS = 86_400_000_000_000n;

export type GroupKind = 'signature' | 'low';

/** The group a score row belongs to, or null. */
export function groupOf(r: Pick<ScoreRecord, 'name' | 'label' | 'value'>): { kind: GroupKind; key: string } | null {
  if (r.name === FAILURES) return r.label != null ? { kind: 'signature', key: r.label } : null;
  return r.value != null && r.value <= LOW_MAX ? { kind: 'low', key: r.name } : null;
}

/** The turn a score row counts for: its trace, or its conversation (`c:` + key) for a conversation score. */
export const turnOf = (r: Pick<ScoreRecord, 'trace_id' | 'conv_key'>): string => r.trace_id ?? `c:${r.conv_key}`;

/** One turn in one group. */
export interface GroupMember {
  project_id: string;
  kind: GroupKind;
  key: string;
  turn: string;
  trace_id: string | null;
  conv_key: string;
  at_ns: bigint;
  agent_name: string;
}

export const memberId = (m: Pick<GroupMember, 'kind' | 'key' | 'turn'>): string => `${m.kind}\u0000${m.key}\u0000${m.turn}`;

/** The members score rows make: per (group, turn) the earliest row's time and agent. */
export function membersOf(rows: readonly ScoreRecord[]): GroupMember[] {
  const out = new Map<string, { m: GroupMember; score_id: string }>();
  for (const r of rows) {
    const g = groupOf(r);
    if (!g) continue;
    const m: GroupMember = { project_id: r.project_id, ...g, turn: turnOf(r), trace_id: r.trace_id, conv_key: r.conv_key, at_ns: r.created_at_ns, agent_name: r.agent_name ?? '' };
    const id = `${r.project_id}\u0000${memberId(m)}`;
    const was = out.get(id);
    if (!was || r.created_at_ns < was.m.at_ns || (r.created_at_ns === was.m.at_ns && r.score_id < was.score_id)) out.set(id, { m, score_id: r.score_id });
  }
  return [...out.values()].map((x) => x.m);
}

/** Members summed per (group, UTC day): what the Clusters view reads. */
export interface GroupBucket {
  kind: GroupKind;
  key: string;
  day: number;
  /** The members' agents ('' for none). */
  agents: readonly string[];
  turns: number;
  first_ns: bigint;
  last_ns: bigint;
}

/** Scores grouped for the Clusters view, within a window of member times. */
export interface ScoreGroupsQuery {
  project_id: string;
  since_ns: bigint | null;
  until_ns: bigint | null;
  /** Example trace ids per group (newest first). */
  examples: number;
}

export interface ScoreGroup {
  kind: GroupKind;
  key: string;
  count: number;
  first_ns: bigint;
  last_ns: bigint;
  agent_names: string[];
  trace_ids: string[];
  /** Per UTC day (YYYY-MM-DD), ascending. */
  days: { day: string; count: number }[];
}

export const groupId = (g: Pick<GroupBucket, 'kind' | 'key'>): string => `${g.kind}\u0000${g.key}`;

/** Folds day buckets into groups (examples added by the caller), largest first. */
export function foldGroups(buckets: readonly GroupBucket[]): Omit<ScoreGroup, 'trace_ids'>[] {
  const out = new Map<string, Omit<ScoreGroup, 'trace_ids'> & { agents: Set<string>; perDay: Map<number, number> }>();
  for (const b of buckets) {
    if (b.turns <= 0) continue;
    const id = groupId(b);
    let g = out.get(id);
    if (!g) out.set(id, (g = { kind: b.kind, key: b.key, count: 0, first_ns: b.first_ns, last_ns: b.last_ns, agent_names: [], days: [], agents: new Set(), perDay: new Map() }));
    g.count += b.turns;
    if (b.first_ns < g.first_ns) g.first_ns = b.first_ns;
    if (b.last_ns > g.last_ns) g.last_ns = b.last_ns;
    for (const a of b.agents) if (a !== '') g.agents.add(a);
    g.perDay.set(b.day, (g.perDay.get(b.day) ?? 0) + b.turns);
  }
  return [...out.values()]
    .map(({ agents, perDay, ...g }) => ({
      ...g,
      agent_names: [...agents].sort(),
      days: [...perDay].sort((a, b) => a[0] - b[0]).map(([d, count]) => ({ day: new Date(d * 86_400_000).toISOString().slice(0, 10), count })),
    }))
    .sort((a, b) => b.count - a.count || a.kind.localeCompare(b.kind) || a.key.localeCompare(b.key));
}

/**
 * A window `[since, until)` as whole UTC days (`[from, to)` day numbers, read from the day sums) and
 * the partial days at its ends (time ranges, each within one day, read from the members).
 */
export function windowParts(since: bigint | null, until: bigint | null): { days: [number, number]; edges: [bigint, bigint][] } {
  const floor = (t: bigint) => (t >= 0n ? t / DAY_NS : -((-t + DAY_NS - 1n) / DAY_NS));
  if (since != null && until != null && since >= until) return { days: [0, 0], edges: [] };
  const edges: [bigint, bigint][] = [];
  const sinceDay = since == null ? null : floor(since);
  const untilDay = until == null ? null : floor(until);
  if (since != null && until != null && sinceDay === untilDay) return { days: [0, 0], edges: [[since, until]] };
  if (since != null && since % DAY_NS !== 0n) edges.push([since, (sinceDay! + 1n) * DAY_NS]);
  if (until != null && until % DAY_NS !== 0n) edges.push([untilDay! * DAY_NS, until]);
  const from = since == null ? -1e9 : Number(since % DAY_NS === 0n ? sinceDay! : sinceDay! + 1n);
  const to = until == null ? 1e9 : Number(untilDay!);
  return { days: from < to ? [from, to] : [0, 0], edges };
}
