/**
 * SQL of the scores domain on SQLite (issue 20, decision 0024): writes on the writer connection,
 * reads on the read pool, and the conditions `$score` and the conversations list's score filter
 * compile to. Every value is a bound parameter.
 */
import type { Statement } from 'better-sqlite3';
import type { Db } from './open.js';
import type { ScoreCond, ScoreGroup, ScoreGroupsQuery, ScoreRecord, ScoresQuery, ScoreStat, ScoreStatRow, ScoreStatsBy } from '../../domain/scores.js';
import { foldStats } from '../../domain/scores.js';

export interface Sql {
  sql: string;
  params: unknown[];
}

/**
 * A WHERE built condition by condition, each with its parameters; `when` leaves a condition out
 * when its value is null or undefined (an unset filter).
 */
class Where implements Sql {
  private readonly and: string[] = [];
  readonly params: unknown[] = [];
  constructor(first: string, ...params: unknown[]) {
    this.add(first, ...params);
  }
  add(condition: string, ...params: unknown[]): this {
    this.and.push(condition);
    this.params.push(...params);
    return this;
  }
  when(value: unknown, condition: string, ...params: unknown[]): this {
    return value == null ? this : this.add(condition, ...params);
  }
  get sql(): string {
    return this.and.join(' AND ');
  }
}

const COLUMNS = [
  'project_id', 'score_id', 'target', 'trace_id', 'span_id', 'conversation_id', 'conv_key', 'agent_name', 'name', 'value', 'label',
  'value_type', 'explanation', 'source', 'scorer', 'scorer_version', 'creator', 'correction', 'created_at_ns',
] as const;

export const SCORES_SQL = {
  upsert: `INSERT OR REPLACE INTO scores (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((c) => `@${c}`).join(', ')})`,
  remove: `DELETE FROM scores WHERE project_id = ? AND score_id IN (SELECT value FROM json_each(?))`,
  removeProject: `DELETE FROM scores WHERE project_id = ?`,
} as const;

/** The rows of one score name meeting a condition (a WHERE over `scores` without alias). */
export function scoreCondSql(projectId: string, c: ScoreCond): Sql {
  const w = new Where('project_id = ? AND name = ?', projectId, c.name)
    .when(c.source || null, 'source = ?', c.source)
    .when(c.min, 'value >= ?', c.min)
    .when(c.max, 'value <= ?', c.max);
  if (c.labels) w.add(c.labels.length ? `label IN (${c.labels.map(() => '?').join(', ')})` : '0', ...c.labels);
  return { sql: w.sql, params: w.params };
}

/**
 * `$score` over `spans s`: the span carries a matching score, or its trace (a turn score), or its
 * conversation. Three uncorrelated sets, each read once through the name index.
 */
export function spanScoreSql(projectId: string, c: ScoreCond): Sql {
  const w = scoreCondSql(projectId, c);
  return {
    sql:
      `((s.trace_id, s.span_id) IN (SELECT trace_id, span_id FROM scores WHERE ${w.sql} AND target = 'span')` +
      ` OR s.trace_id IN (SELECT trace_id FROM scores WHERE ${w.sql} AND target = 'turn')` +
      ` OR s.conversation_id IN (SELECT conversation_id FROM scores WHERE ${w.sql} AND target = 'conversation'))`,
    params: [...w.params, ...w.params, ...w.params],
  };
}

/** The conversations list's score filter over `conversation_summaries c`: some score of the row meets each condition. */
export function conversationScoreSql(projectId: string, conds: readonly ScoreCond[]): Sql {
  const parts = conds.map((c) => scoreCondSql(projectId, c));
  return {
    sql: parts.map((w) => `c.conversation_id IN (SELECT conv_key FROM scores WHERE ${w.sql})`).join(' AND '),
    params: parts.flatMap((w) => w.params),
  };
}

type Row = Omit<ScoreRecord, 'created_at_ns'> & { created_at_ns: number | bigint };

const toRecord = (r: Row): ScoreRecord => ({ ...r, value: r.value == null ? null : Number(r.value), created_at_ns: BigInt(r.created_at_ns) });

/** Writes of the scores domain (the writer connection). */
export function createScoresWriter(db: Db) {
  const upsert = db.prepare(SCORES_SQL.upsert);
  const remove = db.prepare(SCORES_SQL.remove);
  const many = db.transaction((rows: ScoreRecord[]) => {
    for (const r of rows) upsert.run({ ...r, created_at_ns: r.created_at_ns });
  });
  return {
    writeScores: (rows: ScoreRecord[]): void => many(rows),
    deleteScores: (projectId: string, ids: readonly string[]): number => remove.run(projectId, JSON.stringify(ids)).changes,
  };
}

/** Reads of the scores domain (a read connection). */
export function createScoresReader(db: Db) {
  const stmts = new Map<string, Statement<unknown[]>>();
  const prep = (sql: string): Statement<unknown[]> => {
    let s = stmts.get(sql);
    if (!s) stmts.set(sql, (s = db.prepare<unknown[]>(sql)));
    return s;
  };
  return {
    queryScores(q: ScoresQuery): ScoreRecord[] {
      const w = new Where('project_id = ?', q.project_id);
      for (const k of ['name', 'trace_id', 'conversation_id', 'span_id', 'source'] as const) w.when(q[k], `${k} = ?`, q[k]);
      w.when(q.conv_keys, 'conv_key IN (SELECT value FROM json_each(?))', JSON.stringify(q.conv_keys));
      w.when(q.with_correction || null, 'correction IS NOT NULL');
      if (q.after) w.add('(created_at_ns < ? OR (created_at_ns = ? AND score_id < ?))', q.after.created_at_ns, q.after.created_at_ns, q.after.score_id);
      // Some rows' scores (a scorer run's chunk, a page of badges): through the row index, whatever the planner
      // guesses without statistics (it took the newest-first index and walked the whole project's scores).
      const from = q.conv_keys ? 'scores INDEXED BY scores_conv' : 'scores';
      const sql = `SELECT * FROM ${from} WHERE ${w.sql} ORDER BY created_at_ns DESC, score_id DESC LIMIT ?`;
      return (prep(sql).safeIntegers(true).all(...w.params, q.limit) as Row[]).map(toRecord);
    },
    scoreStats(q: { project_id: string; by: ScoreStatsBy; keys: string[] | null; names: string[] | null }): ScoreStat[] {
      const w = new Where('project_id = ?', q.project_id)
        .when(q.keys, `${q.by} IN (SELECT value FROM json_each(?))`, JSON.stringify(q.keys))
        .when(q.names, 'name IN (SELECT value FROM json_each(?))', JSON.stringify(q.names));
      const sql = `SELECT ${q.by} AS key, name, label, COUNT(*) AS n, SUM(value) AS sum, COUNT(value) AS nums FROM scores
        WHERE ${w.sql} GROUP BY ${q.by}, name, label`;
      return foldStats(prep(sql).all(...w.params) as ScoreStatRow[]);
    },
    scoreGroups(q: ScoreGroupsQuery): ScoreGroup[] {
      const w = new Where('project_id = ?', q.project_id)
        .when(q.name, 'name = ?', q.name)
        .when(q.exclude_name, 'name != ?', q.exclude_name)
        .when(q.max_value, 'value <= ?', q.max_value)
        .when(q.by === 'label' || null, 'label IS NOT NULL')
        .when(q.since_ns, 'created_at_ns >= ?', q.since_ns)
        .when(q.until_ns, 'created_at_ns < ?', q.until_ns);
      const where = w.sql;
      const params = w.params;
      const key = q.by === 'label' ? 'label' : 'name';
      // Turns, not score rows: two reviewers' scores (or a turn's and its spans') on one turn count it once.
      const turn = `COALESCE(trace_id, 'c:' || conv_key)`;
      const groups = prep(`SELECT ${key} AS key, COUNT(DISTINCT ${turn}) AS n, MIN(created_at_ns) AS first_ns, MAX(created_at_ns) AS last_ns,
          json_group_array(DISTINCT agent_name) FILTER (WHERE agent_name IS NOT NULL) AS agents
        FROM scores WHERE ${where} GROUP BY ${key}`).safeIntegers(true).all(...params) as { key: string; n: bigint; first_ns: bigint; last_ns: bigint; agents: string }[];
      const examples = prep(`SELECT key, trace_id FROM (SELECT ${key} AS key, trace_id, ROW_NUMBER() OVER (PARTITION BY ${key} ORDER BY created_at_ns DESC, score_id) AS rn
        FROM scores WHERE ${where} AND trace_id IS NOT NULL) WHERE rn <= ?`).all(...params, q.examples) as { key: string; trace_id: string }[];
      const days = prep(`SELECT ${key} AS key, created_at_ns / 86400000000000 AS d, COUNT(DISTINCT ${turn}) AS n FROM scores WHERE ${where} GROUP BY ${key}, d ORDER BY d`).all(...params) as { key: string; d: number; n: number }[];
      return groups.map((g) => ({
        key: g.key,
        count: Number(g.n),
        first_ns: g.first_ns,
        last_ns: g.last_ns,
        agent_names: (JSON.parse(g.agents) as string[]).sort(),
        trace_ids: examples.filter((e) => e.key === g.key).map((e) => e.trace_id),
        days: days.filter((d) => d.key === g.key).map((d) => ({ day: new Date(Number(d.d) * 86_400_000).toISOString().slice(0, 10), count: Number(d.n) })),
      }));
    },
    scoreValues(projectId: string, name: string, limit: number): { value: number | null; label: string | null }[] {
      return prep(`SELECT DISTINCT value, label FROM scores WHERE project_id = ? AND name = ? ORDER BY value, label LIMIT ?`).all(projectId, name, limit) as {
        value: number | null;
        label: string | null;
      }[];
    },
  };
}
