/**
 * Writes of the scores table on ClickHouse (issue 20): versioned rows, deletes as tombstones (scores.ts
 * reads). Each write or delete then recomputes the score-group members (migration 0008) of the
 * (group, turn)s its old and new rows are in, from those turns' current scores.
 */
import type { ClickHouse } from './connection.js';
import { join, sql, str, strs } from './sql.js';
import { nextStamp, jsonRows } from './writer.js';
import type { ScoreRecord } from '../../domain/scores.js';
import { groupOf, memberId, membersOf, turnOf } from '../../domain/score-groups.js';
import { rowOf, toRecord, type Row } from './scores.js';

const KEYS_PER_READ = 1000;

async function currentScores(ch: ClickHouse, projectId: string, ids: readonly string[]): Promise<ScoreRecord[]> {
  const out: ScoreRecord[] = [];
  for (let i = 0; i < ids.length; i += KEYS_PER_READ) {
    const part = ids.slice(i, i + KEYS_PER_READ);
    const rows = await ch.rows<Row>(sql`SELECT * FROM scores FINAL WHERE project_id = ${str(projectId)} AND score_id IN (${join(part.map((id) => sql`${str(id)}`), ', ')}) AND deleted = 0`);
    out.push(...rows.map(toRecord));
  }
  return out;
}

/** Rewrites the members of every (group, turn) that `touched` rows (old or new versions) are in. */
async function regroup(ch: ClickHouse, projectId: string, touched: readonly ScoreRecord[]): Promise<void> {
  const pairs = new Map<string, { kind: string; key: string; turn: string; trace_id: string | null }>();
  const convKeys = new Set<string>();
  for (const r of touched) {
    const g = groupOf(r);
    if (!g) continue;
    const p = { ...g, turn: turnOf(r), trace_id: r.trace_id };
    pairs.set(memberId(p), p);
    convKeys.add(r.conv_key);
  }
  if (!pairs.size) return;
  const keys = [...convKeys];
  const rows: ScoreRecord[] = [];
  for (let i = 0; i < keys.length; i += KEYS_PER_READ) {
    const part = await ch.rows<Row>(
      sql`SELECT * FROM scores FINAL WHERE project_id = ${str(projectId)} AND has(${strs(keys.slice(i, i + KEYS_PER_READ))}, conv_key) AND deleted = 0`,
    );
    rows.push(...part.map(toRecord));
  }
  const members = new Map(membersOf(rows).map((m) => [memberId(m), m]));
  const live: object[] = [];
  const gone: object[] = [];
  for (const [id, p] of pairs) {
    const m = members.get(id);
    if (m) live.push({ project_id: projectId, kind: m.kind, key: m.key, turn: m.turn, trace_id: m.trace_id ?? '', at_ns: m.at_ns, agent_name: m.agent_name });
    else gone.push({ project_id: projectId, kind: p.kind, key: p.key, turn: p.turn, trace_id: p.trace_id ?? '', at_ns: 0n, agent_name: '' });
  }
  const stamp = nextStamp();
  if (live.length) await ch.insertJsonEachRow('score_group_turns', jsonRows(live, stamp));
  if (gone.length) await ch.insertJsonEachRow('score_group_turns', jsonRows(gone, stamp, 1));
}

const byProject = (rows: readonly ScoreRecord[]) => {
  const m = new Map<string, ScoreRecord[]>();
  for (const r of rows) m.set(r.project_id, [...(m.get(r.project_id) ?? []), r]);
  return m;
};

export async function writeScores(ch: ClickHouse, scores: readonly ScoreRecord[]): Promise<void> {
  if (!scores.length) return;
  const projects = byProject(scores);
  const old = new Map<string, ScoreRecord[]>();
  for (const [p, rows] of projects) old.set(p, await currentScores(ch, p, rows.map((r) => r.score_id)));
  await ch.insertJsonEachRow('scores', jsonRows(scores.map(rowOf), nextStamp()));
  for (const [p, rows] of projects) await regroup(ch, p, [...old.get(p)!, ...rows]);
}

export async function deleteScores(ch: ClickHouse, projectId: string, ids: readonly string[]): Promise<number> {
  if (!ids.length) return 0;
  const rows = await currentScores(ch, projectId, ids);
  if (!rows.length) return 0;
  await ch.insertJsonEachRow('scores', jsonRows(rows.map(rowOf), nextStamp(), 1));
  await regroup(ch, projectId, rows);
  return rows.length;
}
