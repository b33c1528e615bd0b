// ClickHouse migration 0010: the writer's look-up tables (trace_keys, conversation_keys: 0004) filled by
// the summary inserts themselves (issue 19 item 1: fewer statements per write). Never edit once applied.
//
// Every summary round inserted each trace's row twice over — into trace_summaries and, the same key,
// days, conversations and agents, into trace_keys — and each turn's contribution into both
// conversation_turns and conversation_keys: two statements and ~3.5 MB of JSON more per 20,000-span
// batch. The summary tables now carry what the look-ups need (trace_summaries.loose_spans,
// conversation_turns.first_day / last_day, the turn's trace's days) and two materialized views copy
// each inserted block into the look-ups, in the same INSERT. The look-ups keep their own tables and
// 128-row granules (a random id costs one small granule, 0004). Rows already stored are untouched: the
// new columns read their defaults there, and the look-ups were written beside them before.
// `CREATE MATERIALIZED VIEW … TO table` (no POPULATE) runs on 18.16 and current releases alike.
export default [
  /* sql */ `ALTER TABLE trace_summaries ADD COLUMN loose_spans UInt8 DEFAULT 0`,
  /* sql */ `ALTER TABLE conversation_turns ADD COLUMN first_day Date DEFAULT toDate(0)`,
  /* sql */ `ALTER TABLE conversation_turns ADD COLUMN last_day Date DEFAULT toDate(0)`,
  /* sql */ `
CREATE MATERIALIZED VIEW IF NOT EXISTS trace_keys_feed TO trace_keys AS
SELECT project_id, trace_id, first_day, last_day, conversation_ids, agent_names, loose_spans, version, deleted
FROM trace_summaries`,
  /* sql */ `
CREATE MATERIALIZED VIEW IF NOT EXISTS conversation_keys_feed TO conversation_keys AS
SELECT project_id, conversation_id, trace_id, first_day, last_day, turn_start_ns, span_count, error_count, input_tokens, output_tokens,
  usage_spans, cost_usd, last_ns, conversation_name, agent_names, request_models, first_input_ns, first_text, last_output_ns, last_text,
  version, deleted
FROM conversation_turns`,
];
