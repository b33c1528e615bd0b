/**
 * Scores on ClickHouse (issue 20, decision 0024): the `scores` table (migration 0007), shared by every
 * Loupe on the database. Writes are versioned rows (ReplacingMergeTree); reads take the newest
 * version (FINAL) that is not deleted. Conditions for `$score` and the conversations list's score
 * filter are uncorrelated IN sets, as in the SQLite adapter.
 */
import type { ClickHouse } from './connection.js';
import { f64, join, limit, raw, sql, str, strs, i64, type Sql } from './sql.js';
import { foldGroups, groupId, type GroupKind, type ScoreGroup, type ScoreGroupsQuery } from '../../domain/score-groups.js';
import { foldStats, type ScoreCond, type ScoreRecord, type ScoresQuery, type ScoreStat, type ScoreStatRow, type ScoreStatsBy } from '../../domain/scores.js';
import type { ReadOptions } from '../ports.js';

/** Current scores of a project meeting a condition (an expression over `scores`). */
export function scoreCondSql(projectId: string, c: ScoreCond): Sql {
  const and: Sql[] = [sql`project_id = ${str(projectId)}`, sql`name = ${str(c.name)}`, raw('deleted = 0')];
  if (c.source) and.push(sql`source = ${str(c.source)}`);
  if (c.min != null) and.push(sql`ifNull(value >= ${f64(c.min)}, 0)`);
  if (c.max != null) and.push(sql`ifNull(value <= ${f64(c.max)}, 0)`);
  if (c.labels) and.push(c.labels.length ? sql`ifNull(label IN (${join(c.labels.map((l) => sql`${str(l)}`), ', ')}), 0)` : raw('0'));
  return join(and, ' AND ');
}

/** `$score` over `spans`: the span, its trace (turn score) or its conversation carries a matching score. */
export function spanScoreSql(projectId: string, c: ScoreCond): Sql {
  const w = scoreCondSql(projectId, c);
  return sql`((trace_id, span_id) IN (SELECT trace_id, span_id FROM scores FINAL WHERE ${w} AND target = 'span')
    OR trace_id IN (SELECT trace_id FROM scores FINAL WHERE ${w} AND target = 'turn')
    OR ifNull(conversation_id, '') IN (SELECT conversation_id FROM scores FINAL WHERE ${w} AND target = 'conversation'))`;
}

/** The conversations list's score filter over conversation_summaries: a score of the row meets each condition. */
export function conversationScoreSql(projectId: string, conds: readonly ScoreCond[]): Sql {
  return join(conds.map((c) => sql`conversation_id IN (SELECT conv_key FROM scores FINAL WHERE ${scoreCondSql(projectId, c)})`), ' AND ');
}

export const orEmpty = (v: string | null): string => v ?? '';
export const orNull = (v: string): string | null => (v === '' ? null : v);

export type Row = Record<keyof Omit<ScoreRecord, 'value' | 'created_at_ns'>, string> & { value: number | null; label: string | null; created_at_ns: string };

export function toRecord(r: Row): ScoreRecord {
  return {
    project_id: r.project_id,
    score_id: r.score_id,
    target: r.target as ScoreRecord['target'],
    trace_id: orNull(r.trace_id),
    span_id: orNull(r.span_id),
    conversation_id: orNull(r.conversation_id),
    conv_key: r.conv_key,
    agent_name: orNull(r.agent_name),
    name: r.name,
    value: r.value == null ? null : Number(r.value),
    label: r.label,
    value_type: r.value_type as ScoreRecord['value_type'],
    explanation: r.explanation,
    source: r.source as ScoreRecord['source'],
    scorer: orNull(r.scorer),
    scorer_version: orNull(r.scorer_version),
    creator: orNull(r.creator),
    correction: r.correction,
    created_at_ns: BigInt(r.created_at_ns),
  };
}

export const rowOf = (s: ScoreRecord) => ({
  ...s,
  trace_id: orEmpty(s.trace_id),
  span_id: orEmpty(s.span_id),
  conversation_id: orEmpty(s.conversation_id),
  agent_name: orEmpty(s.agent_name),
  scorer: orEmpty(s.scorer),
  scorer_version: orEmpty(s.scorer_version),
  creator: orEmpty(s.creator),
});

export async function queryScores(ch: ClickHouse, q: ScoresQuery, opts: ReadOptions = {}): Promise<ScoreRecord[]> {
  const and: Sql[] = [sql`project_id = ${str(q.project_id)}`, raw('deleted = 0')];
  if (q.name != null) and.push(sql`name = ${str(q.name)}`);
  if (q.trace_id != null) and.push(sql`trace_id = ${str(q.trace_id)}`);
  if (q.conversation_id != null) and.push(sql`conversation_id = ${str(q.conversation_id)}`);
  if (q.span_id != null) and.push(sql`span_id = ${str(q.span_id)}`);
  if (q.source != null) and.push(sql`source = ${str(q.source)}`);
  if (q.conv_keys) and.push(sql`has(${strs(q.conv_keys)}, conv_key)`);
  if (q.with_correction) and.push(raw('isNotNull(correction)'));
  if (q.score_ids) and.push(sql`has(${strs(q.score_ids)}, score_id)`);
  if (q.after) {
    const at = i64(q.after.created_at_ns);
    and.push(sql`(created_at_ns < ${at} OR (created_at_ns = ${at} AND score_id < ${str(q.after.score_id)}))`);
  }
  const rows = await ch.rows<Row>(
    sql`SELECT * FROM scores FINAL WHERE ${join(and, ' AND ')} ORDER BY created_at_ns DESC, score_id DESC${limit(0, q.limit)}`,
    opts,
  );
  return rows.map(toRecord);
}

const BY_COLUMN: Record<ScoreStatsBy, Sql> = { agent_name: raw('agent_name'), conv_key: raw('conv_key'), trace_id: raw('trace_id') };

export async function scoreStats(
  ch: ClickHouse,
  q: { project_id: string; by: ScoreStatsBy; keys: string[] | null; names: string[] | null },
  opts: ReadOptions = {},
): Promise<ScoreStat[]> {
  const by = BY_COLUMN[q.by];
  const and: Sql[] = [sql`project_id = ${str(q.project_id)}`, raw('deleted = 0')];
  if (q.keys) and.push(sql`has(${strs(q.keys)}, ${by})`);
  if (q.names) and.push(sql`has(${strs(q.names)}, name)`);
  const rows = await ch.rows<ScoreStatRow>(
    sql`SELECT ${by} AS key, name, label, count() AS n, sum(value) AS sum, count(value) AS nums FROM scores FINAL WHERE ${join(and, ' AND ')} GROUP BY key, name, label`,
    opts,
  );
  return foldStats(rows.map((r) => ({ ...r, key: q.by === 'conv_key' ? r.key : orNull(r.key ?? '') })));
}

export async function scoreValues(ch: ClickHouse, projectId: string, name: string, max: number, opts: ReadOptions = {}) {
  const rows = await ch.rows<{ value: number | null; label: string | null }>(
    sql`SELECT DISTINCT value, label FROM scores FINAL WHERE project_id = ${str(projectId)} AND name = ${str(name)} AND deleted = 0
      ORDER BY value, label${limit(0, max)}`,
    opts,
  );
  return rows.map((r) => ({ value: r.value == null ? null : Number(r.value), label: r.label }));
}

/**
 * The Clusters view: the score-group members (migration 0008) of the window summed per (group, day),
 * and each group's newest example traces.
 */
export async function scoreGroups(ch: ClickHouse, q: ScoreGroupsQuery, opts: ReadOptions = {}): Promise<ScoreGroup[]> {
  const and: Sql[] = [sql`project_id = ${str(q.project_id)}`, raw('deleted = 0')];
  if (q.since_ns != null) and.push(sql`at_ns >= ${i64(q.since_ns)}`);
  if (q.until_ns != null) and.push(sql`at_ns < ${i64(q.until_ns)}`);
  const where = join(and, ' AND ');
  const n = raw(String(Math.max(1, Math.min(100, Math.trunc(q.examples)))) as '20');
  const [buckets, examples] = await Promise.all([
    ch.rows<{ kind: GroupKind; key: string; day: string; agents: string[]; turns: string; first_ns: string; last_ns: string }>(
      sql`SELECT kind, key, toString(intDiv(at_ns, 86400000000000)) AS day, groupUniqArray(agent_name) AS agents, toString(count()) AS turns,
          toString(min(at_ns)) AS first_ns, toString(max(at_ns)) AS last_ns
        FROM score_group_turns FINAL WHERE ${where} GROUP BY kind, key, day`,
      opts,
    ),
    ch.rows<{ kind: GroupKind; key: string; trace_id: string }>(
      sql`SELECT kind, key, trace_id FROM score_group_turns FINAL WHERE ${where} AND trace_id != ''
        ORDER BY kind, key, at_ns DESC, turn DESC LIMIT ${n} BY kind, key`,
      opts,
    ),
  ]);
  const folded = foldGroups(buckets.map((b) => ({ ...b, day: Number(b.day), turns: Number(b.turns), first_ns: BigInt(b.first_ns), last_ns: BigInt(b.last_ns) })));
  const byGroup = new Map<string, string[]>();
  for (const e of examples) byGroup.set(groupId(e), [...(byGroup.get(groupId(e)) ?? []), e.trace_id]);
  return folded.map((g) => ({ ...g, trace_ids: byGroup.get(groupId(g)) ?? [] }));
}
