/**
 * The rollups' day layer (migration 0015, issue 19 item 1/4 on ClickHouse): per (project, UTC day of the spans'
 * start) one row holding, per `agent_name` of the day's spans (parallel arrays, as `span_rollups` per unit), what
 * a unit's rollup row holds — counts, first/last start, latest end, duration, the five token and three cost totals
 * by the counting rule, each derived value's sum/count/min/max, the distinct versions, providers, models and
 * conversation names — and the distinct conversation ids of the agent's spans that day.
 *
 * The group view (group by agent_name, no window, no condition: `rollupsAnswer` under `AGENT_ROLLUPS`) reads one
 * row per day instead of one per unit: sums add over days, min/max take theirs, the lists are unions, and the
 * conversation count is `uniqExactArray` over the days' conversation ids — exact across days (a conversation active
 * on two days counts once), which a count per day would not be. Rows read: the project's days (~240 at 8M on the
 * bench), whatever the store holds; bytes: the ids, one per (conversation, day, agent).
 *
 * Kept in two steps at the batch's cost. `unit_days` holds span_rollups' rows split by day — per (project, day, unit)
 * and agent what a unit's rollup row holds (the same measures: rollups.ts UNIT_MEASURES) — computed by the server from
 * the round's touched units' spans in their traces' days, after an empty row at an earlier stamp for each of their
 * stored (day, unit) rows (a unit left without spans on a day reads empty). Each touched day's layer row is then
 * recomputed from that day's unit rows (not its spans), stamped after the unit inserts and before the read, after an
 * empty row at an earlier stamp: the newest row of a day was read after every unit insert whose recompute is done —
 * the summaries' argument — so two writers, re-imports, late children moving credit and deletes leave it exact. Not
 * by deltas: a distinct conversation set, a minimum or a list cannot be taken back (0014's `replaceable`).
 *
 * A store that had spans before 0015 is filled in the background at open (`backfillRollupDays`: day by day, each a
 * bounded statement, version 0 so any writer's row wins); until that is done the group view reads `span_rollups`.
 */
import type { ClickHouse } from './connection.js';
import { dayText } from './encode.js';
import { date, join, raw, sql, str, u64, type Sql } from './sql.js';
import { ROLLUP_ARRAY_JOIN, UNIT_MEASURE_NAMES, UNIT_MEASURES, UNIT_SPREAD } from './rollups.js';

/** unit_days' columns after (project_id, day, unit_kind, unit_id, version), in the arrays' order. */
const UNIT_NAMES = `agent_name, span_count, invocations, errors, first_ns, last_ns, dur_ns, in_tok, out_tok, reasoning_tok,
cache_creation_tok, cache_read_tok, cost, in_cost, out_cost, cost_n, cost_min, cost_max, dur_ms_sum, dur_ms_n,
dur_ms_min, dur_ms_max, tok_sum, tok_n, tok_min, tok_max, agent_versions, provider_names, request_models,
conversation_names, last_end`;

/** Per (project, day, unit, agent_name) over the unit's spans of the day: what a unit's rollup row holds (rollups.ts). */
const UNIT_INNER = `agent_name AS u_agent, ${UNIT_MEASURES}` as const;

const UNIT_TUPLE = `u_agent, ${UNIT_MEASURE_NAMES}` as const;

/** unit_days' arrays spread into one row per (day, unit, agent), as r_<column>. */

/** rollup_days' columns after (project_id, day, version). */
const NAMES = `agent_name, span_count, invocations, errors, first_ns, last_ns, dur_ns, in_tok, out_tok, reasoning_tok,
cache_creation_tok, cache_read_tok, cost, in_cost, out_cost, cost_n, cost_min, cost_max, dur_ms_sum, dur_ms_n,
dur_ms_min, dur_ms_max, tok_sum, tok_n, tok_min, tok_max, agent_versions, provider_names, request_models,
conversation_names, last_end, conversations`;

/** Per (project, day, agent_name) over the day's unit rows: sums add, bounds take theirs, lists unite; the conversation units' ids. */
const INNER = `r_agent AS u_agent_name, sum(r_spans) AS u_span_count, sum(r_invocations) AS u_invocations,
sum(r_errors) AS u_errors, min(r_first) AS u_first_ns, max(r_last) AS u_last_ns,
sum(r_dur) AS u_dur_ns, sum(r_in_tok) AS u_in_tok, sum(r_out_tok) AS u_out_tok,
sum(r_reasoning_tok) AS u_reasoning_tok, sum(r_cache_creation_tok) AS u_cache_creation_tok,
sum(r_cache_read_tok) AS u_cache_read_tok, sum(r_cost) AS u_cost, sum(r_in_cost) AS u_in_cost,
sum(r_out_cost) AS u_out_cost, sum(r_cost_n) AS u_cost_n, min(r_cost_min) AS u_cost_min,
max(r_cost_max) AS u_cost_max, sum(r_dms_sum) AS u_dur_ms_sum, sum(r_dms_n) AS u_dur_ms_n,
min(r_dms_min) AS u_dur_ms_min, max(r_dms_max) AS u_dur_ms_max, sum(r_tok_sum) AS u_tok_sum,
sum(r_tok_n) AS u_tok_n, min(r_tok_min) AS u_tok_min, max(r_tok_max) AS u_tok_max,
groupUniqArrayArray(r_versions) AS u_agent_versions,
groupUniqArrayArray(r_providers) AS u_provider_names,
groupUniqArrayArray(r_models) AS u_request_models,
groupUniqArrayArray(r_names) AS u_conversation_names, max(r_last_end) AS u_last_end,
groupUniqArrayIf(unit_id, unit_kind = 'conversation') AS u_conversations`;

const SPREAD = `${UNIT_SPREAD}, arrayMap(t -> tupleElement(t, 32), g)` as const;

const TUPLE = `u_agent_name, u_span_count, u_invocations, u_errors, u_first_ns, u_last_ns, u_dur_ns, u_in_tok, u_out_tok,
u_reasoning_tok, u_cache_creation_tok, u_cache_read_tok, u_cost, u_in_cost, u_out_cost, u_cost_n, u_cost_min,
u_cost_max, u_dur_ms_sum, u_dur_ms_n, u_dur_ms_min, u_dur_ms_max, u_tok_sum, u_tok_n, u_tok_min, u_tok_max,
u_agent_versions, u_provider_names, u_request_models, u_conversation_names, u_last_end, u_conversations`;

/**
 * `INSERT … SELECT`: the unit rows (unit_days) of the spans `where` selects (the writer's rollup condition: its touched
 * units' traces in their days), at `version`, from the current spans (FINAL, tombstones dropped). groupArray(tuple(…))
 * keeps the per-agent aggregates aligned (a tuple is never NULL; groupArray skips a NULL agent or sum on its own).
 */
export function unitDays(version: number, where: Sql): Sql {
  return sql`INSERT INTO unit_days (project_id, day, unit_kind, unit_id, version, ${raw(UNIT_NAMES)})
    SELECT project_id, day, unit_kind, unit_id, ${u64(version)}, ${raw(UNIT_SPREAD)}
    FROM (SELECT project_id, day, unit_kind, unit_id, groupArray(tuple(${raw(UNIT_TUPLE)})) AS g
          FROM (SELECT project_id, day, if(isNull(conversation_id), 'trace', 'conversation') AS unit_kind, ifNull(conversation_id, trace_id) AS unit_id,
                  ${raw(UNIT_INNER)}
                FROM spans FINAL WHERE deleted = 0 AND ${where}
                GROUP BY project_id, day, unit_kind, unit_id, agent_name)
          GROUP BY project_id, day, unit_kind, unit_id)
    SETTINGS optimize_move_to_prewhere = 0`;
}

/**
 * `INSERT … SELECT`: an empty row (every array empty) at `version` for each stored unit row of these units in `days` —
 * written before the units' recompute, at an earlier stamp, so a (day, unit) left without spans reads empty. Reads the
 * units' rows by key (unit_days is keyed by project, day, unit).
 */
export function emptyUnitDays(projectId: string, days: readonly string[], conversations: readonly string[], traces: readonly string[], version: number): Sql {
  const units: Sql[] = [];
  if (conversations.length) units.push(sql`(unit_kind = 'conversation' AND unit_id IN (${join(conversations.map((c) => sql`${str(c)}`), ', ')}))`);
  if (traces.length) units.push(sql`(unit_kind = 'trace' AND unit_id IN (${join(traces.map((t) => sql`${str(t)}`), ', ')}))`);
  return sql`INSERT INTO unit_days (project_id, day, unit_kind, unit_id, version)
    SELECT project_id, day, unit_kind, unit_id, ${u64(version)} FROM unit_days FINAL
    WHERE project_id = ${str(projectId)} AND ${inDayList(days)} AND (${units.length ? join(units, ' OR ') : raw('0')}) AND notEmpty(agent_name)
    SETTINGS optimize_move_to_prewhere = 0`;
}

const inDayList = (days: readonly string[]): Sql => (days.length ? sql`day IN (${join([...new Set(days)].sort().map((d) => sql`${date(d)}`), ', ')})` : raw('0'));

/**
 * `INSERT … SELECT`: the layer rows of `days` of one project at `version`, from the days' current unit rows (unit_days
 * FINAL): a day's units, not its spans. A day without unit rows gets none (emptyDays writes its empty row first).
 */
export function recomputeDays(projectId: string, days: readonly string[], version: number): Sql {
  return sql`INSERT INTO rollup_days (project_id, day, version, ${raw(NAMES)})
    SELECT project_id, day, ${u64(version)}, ${raw(SPREAD)}
    FROM (SELECT project_id, day, groupArray(tuple(${raw(TUPLE)})) AS g
          FROM (SELECT project_id, day, ${raw(INNER)}
                FROM unit_days FINAL ARRAY JOIN ${raw(ROLLUP_ARRAY_JOIN)}
                WHERE project_id = ${str(projectId)} AND ${inDayList(days)}
                GROUP BY project_id, day, r_agent)
          GROUP BY project_id, day)
    SETTINGS optimize_move_to_prewhere = 0`;
}

/** Empty layer rows of `days` (every array empty): a day left without spans reads empty once they are the newest. */
export function emptyDays(projectId: string, days: readonly string[], version: number): string {
  return days.map((day) => JSON.stringify({ project_id: projectId, day, version })).join('\n');
}

/**
 * Fills unit_days and the layer for a store that held spans before migration 0015 (rollup_days_fill says whether it is
 * done): every (project, day) the day rows (project_days) name, newest first, one day per step — the day's unit rows
 * from its spans at version 0 (any writer's row is newer), then the day's layer row stamped after them (a writer's
 * recompute of the day that ran before this step read fewer units, and is older) — then the mark. Idempotent: an
 * interrupted fill starts again at the next open; two processes insert equal unit rows. Returns the days filled.
 */
export async function backfillRollupDays(ch: ClickHouse, stamp: () => number): Promise<number> {
  const [state] = await ch.rows<{ done: number }>(raw('SELECT done FROM rollup_days_fill FINAL'));
  if (state && Number(state.done) === 1) return 0;
  const days = await ch.rows<{ project_id: string; day: string }>(
    raw('SELECT project_id, day FROM project_days FINAL WHERE span_count > 0 ORDER BY project_id, day DESC SETTINGS optimize_move_to_prewhere = 0'),
  );
  for (const d of days) {
    const day = dayText(d.day);
    await ch.command(unitDays(0, sql`project_id = ${str(d.project_id)} AND day = ${date(day)}`));
    await ch.command(recomputeDays(d.project_id, [day], stamp()));
  }
  await ch.insertJsonEachRow('rollup_days_fill', JSON.stringify({ name: 'fill', done: 1, version: stamp() }));
  return days.length;
}
