/**
 * Kept per-(project, day) rows (migration 0011, issue 19): what the projects list, the Agents page, the
 * filter choices and the Spans list's count read instead of a row per trace or per span. One row per
 * project and partition day of `spans` (the UTC day of a span's start, day 0 for the others), computed
 * by the server from that day's current spans with the SQL below: the day's span count and latest
 * start, per credited agent_name (parallel arrays: a newer version of the day replaces all its agents
 * at once, an agent that left the day needs no tombstone) the agents list's sums — spans, invocations,
 * errors, duration, counted tokens and cost by the counting rule, spans whose usage counted, first and
 * last start (domain/summaries/agent-stats.ts over the stored credit and counting bits, which is what
 * agent_trace_stats held per trace) — and the day's distinct request models.
 *
 * Kept by the writer at the end of every summary round (and after deletes): each day the round's
 * traces have spans in (the batch's days and the days they had before) is recomputed from its current
 * spans, with a version stamped after the round's inserts (spans, recounts) and before the read, and
 * an empty row at an earlier stamp so a day left without spans reads empty. The same argument as the
 * summaries': every insert into a day is followed by its writer's recompute of that day, stamped after
 * the insert, so the newest row of a day was read after every insert into it whose recompute is done.
 * What a recompute reads is one project's rows of a few day partitions: a day's spans, whatever the
 * store holds. A list reads one row per (project, day).
 *
 * The per-(day, agent) aggregates are collected with groupArrayIf(tuple(…)): groupArray skips NULLs of a
 * Nullable argument (a NULL cost or first start) and would misalign the arrays; a tuple is never NULL.
 */

/** `INSERT … SELECT project_id, day, ` + version + DAYS_MID + spans source + DAYS_TAIL (the source names its own WHERE). */
export const DAYS_HEAD = `INSERT INTO project_days (project_id, day, version, span_count, last_start_ns, agent_name, agent_spans,
agent_invocations, agent_errors, agent_dur_ns, agent_in_tok, agent_out_tok, agent_usage_spans, agent_cost, agent_first_ns,
agent_last_ns, request_models) SELECT project_id, day, `;

export const DAYS_MID = `, n, last, arrayMap(t -> tupleElement(t, 1), g), arrayMap(t -> tupleElement(t, 2), g),
arrayMap(t -> tupleElement(t, 3), g), arrayMap(t -> tupleElement(t, 4), g), arrayMap(t -> tupleElement(t, 5), g),
arrayMap(t -> tupleElement(t, 6), g), arrayMap(t -> tupleElement(t, 7), g), arrayMap(t -> tupleElement(t, 8), g),
arrayMap(t -> tupleElement(t, 9), g), arrayMap(t -> tupleElement(t, 10), g), arrayMap(t -> tupleElement(t, 11), g), models
FROM (SELECT project_id, day, sum(a_spans) AS n, max(a_last) AS last, groupArrayIf(tuple(assumeNotNull(a_agent), a_spans, a_inv,
a_err, a_dur, a_in, a_out, a_usage, a_cost, a_first, a_last), isNotNull(a_agent)) AS g, groupUniqArrayArray(a_models) AS models
FROM (SELECT project_id, day, agent_name AS a_agent, count() AS a_spans, countIf(ifNull(operation_name = 'invoke_agent', 0)) AS a_inv,
countIf(status_code = 'ERROR') AS a_err, ifNull(sum(if(ifNull(end_ns > start_ns, 0), end_ns - start_ns, 0)), 0) AS a_dur,
ifNull(sum(if(bitAnd(counted, 1) != 0, ifNull(input_tokens, 0), 0)), 0) AS a_in,
ifNull(sum(if(bitAnd(counted, 1) != 0, ifNull(output_tokens, 0), 0)), 0) AS a_out, countIf(bitAnd(counted, 1) != 0) AS a_usage,
sum(if(bitAnd(counted, 2) != 0, total_cost_usd, NULL)) AS a_cost, min(start_ns) AS a_first, max(start_ns) AS a_last,
groupUniqArray(request_model) AS a_models FROM `;

export const DAYS_TAIL = ` GROUP BY project_id, day, agent_name) GROUP BY project_id, day) SETTINGS optimize_move_to_prewhere = 0`;
