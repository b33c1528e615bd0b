/**
 * Scores on ClickHouse (issue 20, decision 0024): the `scores` table (migration 0007), shared by every
 * Loupe on the database. Writes are versioned rows (ReplacingMergeTree); reads take the newest
 * version (FINAL) that is not deleted. Conditions for `$score` and the conversations list's score
 * filter are uncorrelated IN sets, as in the SQLite adapter.
 */
import type { ClickHouse } from './connection.js';
import { f64, join, limit, raw, sql, str, strs, i64, type Sql } from './sql.js';
import { foldStats, type ScoreGroup, type ScoreGroupsQuery, type ScoreCond, type ScoreRecord, type ScoresQuery, type ScoreStat, type ScoreStatRow, type ScoreStatsBy } from '../../domain/scores.js';
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

/** A score's turn (its trace, or its conversation for a conversation score): groups count turns, not score rows. */
const TURN = raw("if(trace_id = '', concat('c:', conv_key), trace_id)");

export async function scoreGroups(ch: ClickHouse, q: ScoreGroupsQuery, opts: ReadOptions = {}): Promise<ScoreGroup[]> {
  const and: Sql[] = [sql`project_id = ${str(q.project_id)}`, raw('deleted = 0')];
  if (q.name != null) and.push(sql`name = ${str(q.name)}`);
  if (q.exclude_name != null) and.push(sql`name != ${str(q.exclude_name)}`);
  if (q.max_value != null) and.push(sql`ifNull(value <= ${f64(q.max_value)}, 0)`);
  if (q.by === 'label') and.push(raw('isNotNull(label)'));
  if (q.since_ns != null) and.push(sql`created_at_ns >= ${i64(q.since_ns)}`);
  if (q.until_ns != null) and.push(sql`created_at_ns < ${i64(q.until_ns)}`);
  const where = join(and, ' AND ');
  const key = q.by === 'label' ? raw('assumeNotNull(label)') : raw('name');
  const n = raw(String(Math.max(1, Math.min(100, Math.trunc(q.examples)))) as '20');
  const rows = await ch.rows<{ key: string; n: string; first_ns: string; last_ns: string; agents: string[]; traces: string[] }>(
    sql`SELECT ${key} AS key, uniqExact(${TURN}) AS n, toString(min(created_at_ns)) AS first_ns, toString(max(created_at_ns)) AS last_ns,
        groupUniqArray(agent_name) AS agents, groupArray(${n})(trace_id) AS traces
      FROM scores FINAL WHERE ${where} GROUP BY key`,
    opts,
  );
  const days = await ch.rows<{ key: string; d: string; n: string }>(
    sql`SELECT ${key} AS key, toString(intDiv(created_at_ns, 86400000000000)) AS d, uniqExact(${TURN}) AS n FROM scores FINAL WHERE ${where} GROUP BY key, d ORDER BY d`,
    opts,
  );
  return rows.map((g) => ({
    key: g.key,
    count: Number(g.n),
    first_ns: BigInt(g.first_ns),
    last_ns: BigInt(g.last_ns),
    agent_names: g.agents.filter((a) => a !== '').sort(),
    trace_ids: g.traces.filter((t) => t !== ''),
    days: days.filter((d) => d.key === g.key).map((d) => ({ day: new Date(Number(d.d) * 86_400_000).toISOString().slice(0, 10), count: Number(d.n) })),
  }));
}
