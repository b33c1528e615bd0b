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

/**
 * What a unit's rollup row holds per agent_name, computed over its spans (aliases u_spans … u_last_end, the aggregate
 * before it `agent_name AS u_agent`): span_rollups' rows (ROLLUP_MID) and the day layer's unit rows (rollup-days.ts) both
 * use these, so the two cannot hold different measures. Pieces of ROLLUP_MID's text as migration 0006 applied it (it is
 * hash-checked at every open): composed, the statement is the same string.
 */
export const UNIT_MEASURES = `count() AS u_spans,
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
groupUniqArray(conversation_name) AS u_names, max(end_ns) AS u_last_end` as const;

/** The aliases of UNIT_MEASURES in their order (the tuple groupArray collects after u_agent). */
export const UNIT_MEASURE_NAMES = `u_spans, u_invocations, u_errors,
u_first, u_last, u_dur, u_in_tok, u_out_tok, u_reasoning_tok, u_cache_creation_tok, u_cache_read_tok, u_cost,
u_in_cost, u_out_cost, u_cost_n, u_cost_min, u_cost_max, u_dms_sum, u_dms_n, u_dms_min, u_dms_max, u_tok_sum,
u_tok_n, u_tok_min, u_tok_max, u_versions, u_providers, u_models, u_names, u_last_end` as const;

/** The first 31 elements of each tuple of `g` as parallel arrays: u_agent and UNIT_MEASURE_NAMES' 30. */
export const UNIT_SPREAD = `arrayMap(t -> tupleElement(t, 1), g), arrayMap(t -> tupleElement(t, 2), g), arrayMap(t -> tupleElement(t,
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
g), arrayMap(t -> tupleElement(t, 31), g)` as const;

export const ROLLUP_MID = `, ${UNIT_SPREAD}, arrayMap(t -> tupleElement(t, 32), g), arrayMap(t -> tupleElement(t, 33), g),
arrayMap(t -> tupleElement(t, 34), g), arrayMap(t -> tupleElement(t, 35), g) FROM (SELECT project_id, unit_kind, unit_id, groupArray(tuple(u_agent, ${UNIT_MEASURE_NAMES}, u_op, u_status, u_model, u_provider)) AS g FROM (SELECT project_id,
if(isNull(conversation_id), 'trace', 'conversation') AS unit_kind, ifNull(conversation_id,
trace_id) AS unit_id, agent_name AS u_agent, ${UNIT_MEASURES}, operation_name AS u_op, status_code AS u_status,
request_model AS u_model, provider_name AS u_provider FROM spans FINAL WHERE deleted = 0 AND ` as const;

export const ROLLUP_TAIL = ` GROUP BY project_id, unit_kind, unit_id, agent_name, operation_name, status_code, request_model,
provider_name) GROUP BY project_id, unit_kind,
unit_id) SETTINGS optimize_move_to_prewhere = 0`;

/**
 * A rollup row's parallel arrays spread one row per agent (ARRAY JOIN) as `r_` names — the same columns in span_rollups,
 * unit_days and rollup_days: the group view's reads (reads/spans-rollup.ts) and the day layer's recompute
 * (rollup-days.ts) read them under these names.
 */
export const ROLLUP_ARRAY_JOIN = `agent_name AS r_agent, span_count AS r_spans, invocations AS r_invocations, errors AS r_errors, first_ns AS r_first,
      last_ns AS r_last, dur_ns AS r_dur, in_tok AS r_in_tok, out_tok AS r_out_tok, reasoning_tok AS r_reasoning_tok,
      cache_creation_tok AS r_cache_creation_tok, cache_read_tok AS r_cache_read_tok, cost AS r_cost, in_cost AS r_in_cost,
      out_cost AS r_out_cost, cost_n AS r_cost_n, cost_min AS r_cost_min, cost_max AS r_cost_max, dur_ms_sum AS r_dms_sum,
      dur_ms_n AS r_dms_n, dur_ms_min AS r_dms_min, dur_ms_max AS r_dms_max, tok_sum AS r_tok_sum, tok_n AS r_tok_n,
      tok_min AS r_tok_min, tok_max AS r_tok_max, agent_versions AS r_versions, provider_names AS r_providers,
      request_models AS r_models, conversation_names AS r_names, last_end AS r_last_end` as const;

/** The names ROLLUP_ARRAY_JOIN gives, in its order. */
export const ROLLUP_ARRAY_COLUMNS = `r_agent, r_spans, r_invocations, r_errors, r_first, r_last, r_dur, r_in_tok, r_out_tok,
      r_reasoning_tok, r_cache_creation_tok, r_cache_read_tok, r_cost, r_in_cost, r_out_cost, r_cost_n, r_cost_min, r_cost_max,
      r_dms_sum, r_dms_n, r_dms_min, r_dms_max, r_tok_sum, r_tok_n, r_tok_min, r_tok_max, r_versions, r_providers, r_models, r_names, r_last_end` as const;
