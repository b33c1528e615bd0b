/**
 * Span rollups of the ClickHouse adapter (migration 0003), the same rows as the SQLite adapter's
 * (decision 0012): per unit — a conversation, or the conversation-less spans of one trace — and per
 * agent_name of its spans, the counts, times, token and cost totals, each derived value's sum, count,
 * min and max, and the distinct lists a group row shows. A unit is ONE row here: parallel arrays, one
 * element per agent_name, so a newer version of the unit replaces all its agents at once
 * (ReplacingMergeTree keeps the newest) and an agent that left a unit needs no tombstone.
 *
 * The rows are computed by the server from the current spans (FINAL) with the SQL below, used by
 * both the migration's backfill and the writer (writer.ts `rollup`), so the two cannot disagree. The
 * per-(unit, agent) aggregates are collected with groupArray(tuple(…)) because groupArray skips the
 * NULLs of a Nullable argument (a NULL agent, a NULL sum), which would misalign the arrays; a tuple is
 * never NULL. The derived values use the spans query's SQL (expr.ts DERIVED_SQL). `last_end` (0005):
 * the latest end, for a group's wall time. Since 0006 (decision 0021) an element is one (agent_name,
 * operation_name, status_code, request_model, provider_name) of the unit — the four new key arrays
 * beside agent_name — so a condition over those columns holds for all of an element's spans or none.
 * Migrations 0003 and 0005 keep their statements as they were applied.
 */

/** `INSERT … SELECT project_id, unit_kind, unit_id, ` + version + ROLLUP_MID + condition on spans + ROLLUP_TAIL. */
export const ROLLUP_HEAD = `INSERT INTO span_rollups (project_id, unit_kind, unit_id, version, agent_name, span_count, invocations,
errors, first_ns, last_ns, dur_ns, in_tok, out_tok, reasoning_tok, cache_creation_tok, cache_read_tok, cost,
in_cost, out_cost, cost_n, cost_min, cost_max, dur_ms_sum, dur_ms_n, dur_ms_min, dur_ms_max, tok_sum, tok_n,
tok_min, tok_max, agent_versions, provider_names, request_models, conversation_names, last_end, operation_name,
status_code, request_model, provider_name) SELECT project_id,
unit_kind, unit_id, `;

export const ROLLUP_MID = `, arrayMap(t -> tupleElement(t, 1), g), arrayMap(t -> tupleElement(t, 2), g), arrayMap(t -> tupleElement(t,
3), g), arrayMap(t -> tupleElement(t, 4), g), arrayMap(t -> tupleElement(t, 5), g),
arrayMap(t -> tupleElement(t, 6), g), arrayMap(t -> tupleElement(t, 7), g), arrayMap(t -> tupleElement(t, 8),
g), arrayMap(t -> tupleElement(t, 9), g), arrayMap(t -> tupleElement(t, 10), g),
arrayMap(t -> tupleElement(t, 11), g), arrayMap(t -> tupleElement(t, 12), g), arrayMap(t -> tupleElement(t,
13), g), arrayMap(t -> tupleElement(t, 14), g), arrayMap(t -> tupleElement(t, 15), g),
arrayMap(t -> tupleElement(t, 16), g), arrayMap(t -> tupleElement(t, 17), g), arrayMap(t -> tupleElement(t,
18), g), arrayMap(t -> tupleElement(t, 19), g), arrayMap(t -> tupleElement(t, 20), g),
arrayMap(t -> tupleElement(t, 21), g), arrayMap(t -> tupleElement(t, 22), g), arrayMap(t -> tupleElement(t,
23), g), arrayMap(t -> tupleElement(t, 24), g), arrayMap(t -> tupleElement(t, 25), g),
arrayMap(t -> tupleElement(t, 26), g), arrayMap(t -> tupleElement(t, 27), g), arrayMap(t -> tupleElement(t,
28), g), arrayMap(t -> tupleElement(t, 29), g), arrayMap(t -> tupleElement(t, 30),
g), arrayMap(t -> tupleElement(t, 31), g), arrayMap(t -> tupleElement(t, 32), g), arrayMap(t -> tupleElement(t, 33), g),
arrayMap(t -> tupleElement(t, 34), g), arrayMap(t -> tupleElement(t, 35), g) FROM (SELECT project_id, unit_kind, unit_id, groupArray(tuple(u_agent, u_spans, u_invocations, u_errors,
u_first, u_last, u_dur, u_in_tok, u_out_tok, u_reasoning_tok, u_cache_creation_tok, u_cache_read_tok, u_cost,
u_in_cost, u_out_cost, u_cost_n, u_cost_min, u_cost_max, u_dms_sum, u_dms_n, u_dms_min, u_dms_max, u_tok_sum,
u_tok_n, u_tok_min, u_tok_max, u_versions, u_providers, u_models, u_names, u_last_end, u_op, u_status, u_model, u_provider)) AS g FROM (SELECT project_id,
if(isNull(conversation_id), 'trace', 'conversation') AS unit_kind, ifNull(conversation_id,
trace_id) AS unit_id, agent_name AS u_agent, count() AS u_spans,
countIf(ifNull(operation_name = 'invoke_agent', 0)) AS u_invocations, countIf(status_code = 'ERROR') AS u_errors,
min(start_ns) AS u_first, max(start_ns) AS u_last, sum(if(end_ns > start_ns, end_ns - start_ns, 0)) AS u_dur,
sum(if(bitAnd(counted, 1) != 0, input_tokens, NULL)) AS u_in_tok, sum(if(bitAnd(counted, 1) != 0,
output_tokens, NULL)) AS u_out_tok, sum(if(bitAnd(counted, 1) != 0, reasoning_tokens,
NULL)) AS u_reasoning_tok, sum(if(bitAnd(counted, 1) != 0, cache_creation_input_tokens,
NULL)) AS u_cache_creation_tok, sum(if(bitAnd(counted, 1) != 0, cache_read_input_tokens,
NULL)) AS u_cache_read_tok, sum(if(bitAnd(counted, 2) != 0, total_cost_usd, NULL)) AS u_cost,
sum(if(bitAnd(counted, 2) != 0, input_cost_usd, NULL)) AS u_in_cost, sum(if(bitAnd(counted, 2) != 0,
output_cost_usd, NULL)) AS u_out_cost, count(if(bitAnd(counted, 2) != 0, total_cost_usd, NULL)) AS u_cost_n,
min(if(bitAnd(counted, 2) != 0, total_cost_usd, NULL)) AS u_cost_min, max(if(bitAnd(counted, 2) != 0,
total_cost_usd, NULL)) AS u_cost_max, sum(if(end_ns >= start_ns, intDiv(end_ns - start_ns, 1000000),
NULL)) AS u_dms_sum, count(if(end_ns >= start_ns, intDiv(end_ns - start_ns, 1000000), NULL)) AS u_dms_n,
min(if(end_ns >= start_ns, intDiv(end_ns - start_ns, 1000000), NULL)) AS u_dms_min,
max(if(end_ns >= start_ns, intDiv(end_ns - start_ns, 1000000), NULL)) AS u_dms_max, sum(if(bitAnd(counted,
1) != 0, ifNull(input_tokens, 0) + ifNull(output_tokens, 0), NULL)) AS u_tok_sum, count(if(bitAnd(counted,
1) != 0, ifNull(input_tokens, 0) + ifNull(output_tokens, 0), NULL)) AS u_tok_n, min(if(bitAnd(counted,
1) != 0, ifNull(input_tokens, 0) + ifNull(output_tokens, 0), NULL)) AS u_tok_min, max(if(bitAnd(counted,
1) != 0, ifNull(input_tokens, 0) + ifNull(output_tokens, 0), NULL)) AS u_tok_max,
groupUniqArray(agent_version) AS u_versions, groupUniqArray(provider_name) AS u_providers,
groupUniqArray(request_model) AS u_models,
groupUniqArray(conversation_name) AS u_names, max(end_ns) AS u_last_end, operation_name AS u_op, status_code AS u_status,
request_model AS u_model, provider_name AS u_provider FROM spans FINAL WHERE deleted = 0 AND `;

export const ROLLUP_TAIL = ` GROUP BY project_id, unit_kind, unit_id, agent_name, operation_name, status_code, request_model,
provider_name) GROUP BY project_id, unit_kind,
unit_id) SETTINGS optimize_move_to_prewhere = 0`;
