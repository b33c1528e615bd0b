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
 * Kept by recompute, the way project_days was before 0014: after a summary round (and after deletes) each day the
 * round's traces have spans in (their days before and now) is recomputed from that day's current spans with one
 * `INSERT … SELECT` the server runs, stamped after the round's inserts (spans, recounts) and before the read, after
 * an empty row at an earlier stamp (a day left without spans reads empty). The newest row of a day was read after
 * every insert into it whose recompute is done — the summaries' argument — so two writers, re-imports, late
 * children moving credit and deletes leave it exact; a recompute reads one project's rows of the touched day
 * partitions (a day's volume, not the store's). Not by deltas: a distinct conversation set, a minimum or a list
 * cannot be taken back (0014's `replaceable`), and the layer's recompute is the simple exact one.
 *
 * A store that had spans before 0015 is filled in the background at open (`backfillRollupDays`: day by day, each a
 * bounded statement, version 0 so any writer's row wins); until that is done the group view reads `span_rollups`.
 */
import type { ClickHouse } from './connection.js';
import { dayText } from './encode.js';
import { date, join, raw, sql, str, u64, type Sql } from './sql.js';

/** The table's columns after (project_id, day, version), in the arrays' order. */
const NAMES = `agent_name, span_count, invocations, errors, first_ns, last_ns, dur_ns, in_tok, out_tok, reasoning_tok,
cache_creation_tok, cache_read_tok, cost, in_cost, out_cost, cost_n, cost_min, cost_max, dur_ms_sum, dur_ms_n,
dur_ms_min, dur_ms_max, tok_sum, tok_n, tok_min, tok_max, agent_versions, provider_names, request_models,
conversation_names, last_end, conversations`;

/** Per (project, day, agent_name) over the day's spans: what a unit's rollup row holds (rollups.ts), and the conversation ids. */
const INNER = `agent_name AS u_agent_name, count() AS u_span_count, countIf(ifNull(operation_name = 'invoke_agent',
0)) AS u_invocations, countIf(status_code = 'ERROR') AS u_errors, min(start_ns) AS u_first_ns,
max(start_ns) AS u_last_ns, sum(if(end_ns > start_ns, end_ns - start_ns, 0)) AS u_dur_ns,
sum(if(bitAnd(counted, 1) != 0, input_tokens, NULL)) AS u_in_tok, sum(if(bitAnd(counted, 1) != 0,
output_tokens, NULL)) AS u_out_tok, sum(if(bitAnd(counted, 1) != 0, reasoning_tokens,
NULL)) AS u_reasoning_tok, sum(if(bitAnd(counted, 1) != 0, cache_creation_input_tokens,
NULL)) AS u_cache_creation_tok, sum(if(bitAnd(counted, 1) != 0, cache_read_input_tokens,
NULL)) AS u_cache_read_tok, sum(if(bitAnd(counted, 2) != 0, total_cost_usd, NULL)) AS u_cost,
sum(if(bitAnd(counted, 2) != 0, input_cost_usd, NULL)) AS u_in_cost, sum(if(bitAnd(counted, 2) != 0,
output_cost_usd, NULL)) AS u_out_cost, count(if(bitAnd(counted, 2) != 0, total_cost_usd, NULL)) AS u_cost_n,
min(if(bitAnd(counted, 2) != 0, total_cost_usd, NULL)) AS u_cost_min, max(if(bitAnd(counted, 2) != 0,
total_cost_usd, NULL)) AS u_cost_max, sum(if(end_ns >= start_ns, intDiv(end_ns - start_ns, 1000000),
NULL)) AS u_dur_ms_sum, count(if(end_ns >= start_ns, intDiv(end_ns - start_ns, 1000000), NULL)) AS u_dur_ms_n,
min(if(end_ns >= start_ns, intDiv(end_ns - start_ns, 1000000), NULL)) AS u_dur_ms_min,
max(if(end_ns >= start_ns, intDiv(end_ns - start_ns, 1000000), NULL)) AS u_dur_ms_max, sum(if(bitAnd(counted,
1) != 0, ifNull(input_tokens, 0) + ifNull(output_tokens, 0), NULL)) AS u_tok_sum, count(if(bitAnd(counted,
1) != 0, ifNull(input_tokens, 0) + ifNull(output_tokens, 0), NULL)) AS u_tok_n, min(if(bitAnd(counted, 1) != 0,
ifNull(input_tokens, 0) + ifNull(output_tokens, 0), NULL)) AS u_tok_min, max(if(bitAnd(counted, 1) != 0,
ifNull(input_tokens, 0) + ifNull(output_tokens, 0), NULL)) AS u_tok_max,
groupUniqArray(agent_version) AS u_agent_versions, groupUniqArray(provider_name) AS u_provider_names,
groupUniqArray(request_model) AS u_request_models, groupUniqArray(conversation_name) AS u_conversation_names,
max(end_ns) AS u_last_end, groupUniqArray(conversation_id) AS u_conversations`;

/** The per-agent tuples (g) spread into the arrays. */
const SPREAD = `arrayMap(t -> tupleElement(t, 1), g), arrayMap(t -> tupleElement(t, 2), g), arrayMap(t -> tupleElement(t, 3),
g), arrayMap(t -> tupleElement(t, 4), g), arrayMap(t -> tupleElement(t, 5), g), arrayMap(t -> tupleElement(t,
6), g), arrayMap(t -> tupleElement(t, 7), g), arrayMap(t -> tupleElement(t, 8), g),
arrayMap(t -> tupleElement(t, 9), g), arrayMap(t -> tupleElement(t, 10), g), arrayMap(t -> tupleElement(t, 11),
g), arrayMap(t -> tupleElement(t, 12), g), arrayMap(t -> tupleElement(t, 13), g), arrayMap(t -> tupleElement(t,
14), g), arrayMap(t -> tupleElement(t, 15), g), arrayMap(t -> tupleElement(t, 16), g),
arrayMap(t -> tupleElement(t, 17), g), arrayMap(t -> tupleElement(t, 18), g), arrayMap(t -> tupleElement(t,
19), g), arrayMap(t -> tupleElement(t, 20), g), arrayMap(t -> tupleElement(t, 21), g),
arrayMap(t -> tupleElement(t, 22), g), arrayMap(t -> tupleElement(t, 23), g), arrayMap(t -> tupleElement(t,
24), g), arrayMap(t -> tupleElement(t, 25), g), arrayMap(t -> tupleElement(t, 26), g),
arrayMap(t -> tupleElement(t, 27), g), arrayMap(t -> tupleElement(t, 28), g), arrayMap(t -> tupleElement(t,
29), g), arrayMap(t -> tupleElement(t, 30), g), arrayMap(t -> tupleElement(t, 31), g),
arrayMap(t -> tupleElement(t, 32), g)`;

const TUPLE = `u_agent_name, u_span_count, u_invocations, u_errors, u_first_ns, u_last_ns, u_dur_ns, u_in_tok, u_out_tok,
u_reasoning_tok, u_cache_creation_tok, u_cache_read_tok, u_cost, u_in_cost, u_out_cost, u_cost_n, u_cost_min,
u_cost_max, u_dur_ms_sum, u_dur_ms_n, u_dur_ms_min, u_dur_ms_max, u_tok_sum, u_tok_n, u_tok_min, u_tok_max,
u_agent_versions, u_provider_names, u_request_models, u_conversation_names, u_last_end, u_conversations`;


/**
 * `INSERT … SELECT`: the day rows of `days` of one project at `version`, from their current spans (FINAL, tombstones
 * dropped). groupArray(tuple(…)) keeps the per-agent aggregates aligned (a tuple is never NULL; groupArray skips a
 * NULL agent or sum on its own).
 */
export function recomputeDays(projectId: string, days: readonly string[], version: number): Sql {
  return sql`INSERT INTO rollup_days (project_id, day, version, ${raw(NAMES)})
    SELECT project_id, day, ${u64(version)}, ${raw(SPREAD)}
    FROM (SELECT project_id, day, groupArray(tuple(${raw(TUPLE)})) AS g
          FROM (SELECT project_id, day, ${raw(INNER)} FROM spans FINAL
                WHERE project_id = ${str(projectId)} AND day IN (${join(days.map((d) => sql`${date(d)}`), ', ')}) AND deleted = 0
                GROUP BY project_id, day, agent_name)
          GROUP BY project_id, day)
    SETTINGS optimize_move_to_prewhere = 0`;
}

/** Empty rows of `days` (every array empty): a day left without spans reads empty once they are the newest. */
export function emptyDays(projectId: string, days: readonly string[], version: number): string {
  return days.map((day) => JSON.stringify({ project_id: projectId, day, version })).join('\n');
}

/**
 * Fills the layer for the days of a store that held spans before migration 0015: each (project, day) the day rows
 * (project_days) name that has no layer row yet, one day per statement (memory bounded by a day), version 0 so a
 * writer's recompute of the day wins. Idempotent: a second run, or two processes at once, insert equal rows.
 * Returns the days filled.
 */
export async function backfillRollupDays(ch: ClickHouse): Promise<number> {
  const have = new Set(
    (await ch.rows<{ project_id: string; day: string }>(raw('SELECT DISTINCT project_id, day FROM rollup_days'))).map((r) => `${r.project_id}\u0000${dayText(r.day)}`),
  );
  const days = await ch.rows<{ project_id: string; day: string }>(
    raw('SELECT project_id, day FROM project_days FINAL WHERE span_count > 0 ORDER BY project_id, day DESC SETTINGS optimize_move_to_prewhere = 0'),
  );
  let filled = 0;
  for (const d of days) {
    const day = dayText(d.day);
    if (have.has(`${d.project_id}\u0000${day}`)) continue;
    await ch.command(recomputeDays(d.project_id, [day], 0));
    filled++;
  }
  return filled;
}
