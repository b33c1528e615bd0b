/**
 * SQL of the scores domain on SQLite (issue 20, decision 0024): writes on the writer connection,
 * reads on the read pool, and the conditions `$score` and the conversations list's score filter
 * compile to. Every value is a bound parameter.
 */
import type { Statement } from 'better-sqlite3';
import type { Db } from './open.js';
import type { ScoreCond, ScoreRecord, ScoresQuery, ScoreStat, ScoreStatRow, ScoreStatsBy } from '../../domain/scores.js';
import { DAY_NS, foldGroups, windowParts, type GroupBucket, type ScoreGroup, type ScoreGroupsQuery } from '../../domain/score-groups.js';
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
  // An update, not a REPLACE: the score-group triggers (migration 0023) see the old row go.
  upsert: `INSERT INTO scores (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((c) => `@${c}`).join(', ')})
    ON CONFLICT (project_id, score_id) DO UPDATE SET ${COLUMNS.filter((c) => c !== 'project_id' && c !== 'score_id').map((c) => `${c} = excluded.${c}`).join(', ')}`,
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

/** A page of `POST /app/scores/query`, newest first (its own function so a test can read its plan). */
export function scoresPageSql(q: ScoresQuery): Sql {
  const w = new Where('project_id = ?', q.project_id);
  for (const k of ['name', 'trace_id', 'conversation_id', 'span_id', 'source'] as const) w.when(q[k], `${k} = ?`, q[k]);
  w.when(q.conv_keys, 'conv_key IN (SELECT value FROM json_each(?))', JSON.stringify(q.conv_keys));
  w.when(q.with_correction || null, 'correction IS NOT NULL');
  if (q.after) w.add('(created_at_ns < ? OR (created_at_ns = ? AND score_id < ?))', q.after.created_at_ns, q.after.created_at_ns, q.after.score_id);
  // Some rows' scores (a scorer run's chunk, a page of badges): through the row index, whatever the planner
  // guesses without statistics (it took the newest-first index and walked the whole project's scores).
  if (q.score_ids) {
    // A scorer's own scores of a chunk, by key: the ids drive (CROSS JOIN keeps that order), the few rows are sorted after.
    return {
      sql: `SELECT scores.* FROM json_each(?) ids CROSS JOIN scores ON scores.project_id = ? AND scores.score_id = ids.value
        WHERE ${w.sql} ORDER BY created_at_ns DESC, score_id DESC LIMIT ?`,
      params: [JSON.stringify(q.score_ids), q.project_id, ...w.params, q.limit],
    };
  }
  // One trace's scores (a turn's badges): its own rows, sorted after — the newest-first index walked the project's.
  const from = q.conv_keys ? 'scores INDEXED BY scores_conv' : q.trace_id != null ? 'scores INDEXED BY scores_trace' : 'scores';
  const sql = `SELECT * FROM ${from} WHERE ${w.sql} ORDER BY created_at_ns DESC, score_id DESC LIMIT ?`;
  return { sql, params: [...w.params, q.limit] };
}

const MIN_NS = -(2n ** 63n);
const MAX_NS = 2n ** 63n - 1n;

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
      const { sql, params } = scoresPageSql(q);
      return (prep(sql).safeIntegers(true).all(...params) as Row[]).map(toRecord);
    },
    scoreStats(q: { project_id: string; by: ScoreStatsBy; keys: string[] | null; names: string[] | null }): ScoreStat[] {
      const w = new Where('project_id = ?', q.project_id)
        .when(q.keys, `${q.by} IN (SELECT value FROM json_each(?))`, JSON.stringify(q.keys))
        .when(q.names, 'name IN (SELECT value FROM json_each(?))', JSON.stringify(q.names));
      const sql = `SELECT ${q.by} AS key, name, label, COUNT(*) AS n, SUM(value) AS sum, COUNT(value) AS nums FROM scores
        WHERE ${w.sql} GROUP BY ${q.by}, name, label`;
      return foldStats(prep(sql).all(...w.params) as ScoreStatRow[]);
    },
    /**
     * The Clusters view from the score-group summary (migration 0023): whole days of the window from
     * score_group_days, its partial days from the members by time, examples by the members' time index.
     */
    scoreGroups(q: ScoreGroupsQuery): ScoreGroup[] {
      const { days, edges } = windowParts(q.since_ns, q.until_ns);
      // Per (group, day) across agents: a few rows per group and day, whatever the number of agents.
      const bucket = (b: { kind: GroupBucket['kind']; key: string; day: bigint | number; turns: bigint; first_ns: bigint; last_ns: bigint; agents: string }): GroupBucket => ({
        ...b, day: Number(b.day), turns: Number(b.turns), agents: JSON.parse(b.agents) as string[],
      });
      const buckets = (prep(`SELECT kind, key, day, SUM(turns) AS turns, MIN(first_ns) AS first_ns, MAX(last_ns) AS last_ns, json_group_array(DISTINCT agent_name) AS agents
          FROM score_group_days WHERE project_id = ? AND day >= ? AND day < ? GROUP BY kind, key, day`)
        .safeIntegers(true)
        .all(q.project_id, days[0], days[1]) as Parameters<typeof bucket>[0][]).map(bucket);
      if (edges.length) {
        const groups = prep(`SELECT DISTINCT kind, key FROM score_group_days WHERE project_id = ?`).all(q.project_id) as Pick<GroupBucket, 'kind' | 'key'>[];
        const edge = prep(`SELECT COUNT(*) AS turns, MIN(at_ns) AS first_ns, MAX(at_ns) AS last_ns, json_group_array(DISTINCT agent_name) AS agents FROM score_group_turns
          WHERE project_id = ? AND kind = ? AND key = ? AND at_ns >= ? AND at_ns < ?`).safeIntegers(true);
        for (const g of groups)
          for (const [from, to] of edges) {
            const b = edge.get(q.project_id, g.kind, g.key, from, to) as Omit<Parameters<typeof bucket>[0], 'kind' | 'key' | 'day'>;
            if (Number(b.turns) > 0) buckets.push(bucket({ ...b, ...g, day: from / DAY_NS }));
          }
      }
      const examples = prep(`SELECT trace_id FROM score_group_turns WHERE project_id = ? AND kind = ? AND key = ? AND at_ns >= ? AND at_ns < ?
        AND trace_id IS NOT NULL ORDER BY at_ns DESC, turn DESC LIMIT ?`).pluck();
      const since = q.since_ns ?? MIN_NS;
      const until = q.until_ns ?? MAX_NS;
      return foldGroups(buckets).map((g) => ({ ...g, trace_ids: examples.all(q.project_id, g.kind, g.key, since, until, q.examples) as string[] }));
    },
    scoreValues(projectId: string, name: string, limit: number): { value: number | null; label: string | null }[] {
      return prep(`SELECT DISTINCT value, label FROM scores WHERE project_id = ? AND name = ? ORDER BY value, label LIMIT ?`).all(projectId, name, limit) as {
        value: number | null;
        label: string | null;
      }[];
    },
  };
}
