// Migration 0001: core span store, details side table, feedback, settings. Never edit once applied:
// the migrator stores a hash of each applied migration and refuses to open a database whose history differs.
export default /* sql */ `
-- Core span store (semantics §2). One row per (project_id, trace_id, span_id).
-- Light columns live in spans so list/aggregate queries stay narrow; heavy text lives in
-- span_details, joined only by the chat views and include_details.

CREATE TABLE spans (
  id INTEGER PRIMARY KEY,
  project_id TEXT NOT NULL,
  trace_id TEXT NOT NULL,
  span_id TEXT NOT NULL,
  parent_span_id TEXT,
  span_name TEXT NOT NULL,
  span_kind TEXT NOT NULL DEFAULT 'UNSPECIFIED',
  start_ns INTEGER,
  end_ns INTEGER,
  status_code TEXT NOT NULL DEFAULT 'UNSET',
  status_message TEXT,
  service_name TEXT,
  scope_name TEXT,
  scope_version TEXT,

  operation_name TEXT,
  provider_name TEXT,
  agent_id TEXT,
  agent_name TEXT,
  agent_version TEXT,
  agent_description TEXT,
  conversation_id TEXT,
  conversation_name TEXT,
  request_model TEXT,
  response_model TEXT,
  response_id TEXT,
  output_type TEXT,
  error_type TEXT,
  server_address TEXT,
  server_port INTEGER,
  tool_name TEXT,
  tool_type TEXT,
  tool_call_id TEXT,
  tool_description TEXT,
  reasoning_content TEXT,
  compaction_summary TEXT,
  compaction_items_before INTEGER,
  compaction_items_after INTEGER,
  svc_user_id TEXT,
  svc_run_id TEXT,
  svc_run_step INTEGER,
  svc_run_step_end INTEGER,

  request_temperature REAL,
  request_top_p REAL,
  request_frequency_penalty REAL,
  request_presence_penalty REAL,
  request_max_tokens INTEGER,
  request_seed INTEGER,
  request_choice_count INTEGER,

  input_tokens INTEGER,
  output_tokens INTEGER,
  reasoning_tokens INTEGER,
  cache_creation_input_tokens INTEGER,
  cache_read_input_tokens INTEGER,

  input_cost_usd REAL,
  output_cost_usd REAL,
  cache_creation_cost_usd REAL,
  cache_read_cost_usd REAL,
  total_cost_usd REAL,

  -- JSON arrays / maps (never NULL: '[]' / '{}')
  finish_reasons TEXT NOT NULL DEFAULT '[]',
  request_stop_sequences TEXT NOT NULL DEFAULT '[]',
  artifact_refs TEXT NOT NULL DEFAULT '[]',
  content_refs TEXT NOT NULL DEFAULT '[]',
  object_refs TEXT NOT NULL DEFAULT '[]',
  custom_attrs_bool TEXT NOT NULL DEFAULT '{}',
  custom_attrs_int TEXT NOT NULL DEFAULT '{}',
  custom_attrs_float TEXT NOT NULL DEFAULT '{}',
  custom_attrs_string TEXT NOT NULL DEFAULT '{}',

  -- 1 on first write, +1 on every re-import: lets an upsert report "replaced" with RETURNING.
  version INTEGER NOT NULL DEFAULT 1,
  ingested_at_ms INTEGER NOT NULL
);

CREATE UNIQUE INDEX spans_key ON spans (project_id, trace_id, span_id);
CREATE INDEX spans_project_start ON spans (project_id, start_ns);
CREATE INDEX spans_project_conversation ON spans (project_id, conversation_id, start_ns);
CREATE INDEX spans_project_agent ON spans (project_id, agent_name);
CREATE INDEX spans_project_operation ON spans (project_id, operation_name);

-- Heavy fields, one row per span (same rowid as spans.id).
CREATE TABLE span_details (
  span_rowid INTEGER PRIMARY KEY REFERENCES spans(id) ON DELETE CASCADE,
  system_instructions TEXT NOT NULL DEFAULT '[]',
  tool_definitions TEXT,
  tool_call_arguments TEXT,
  tool_call_result TEXT,
  input_messages TEXT NOT NULL DEFAULT '[]',
  output_messages TEXT NOT NULL DEFAULT '[]',
  resource_attributes TEXT NOT NULL DEFAULT '{}',
  events TEXT NOT NULL DEFAULT '[]',
  links TEXT NOT NULL DEFAULT '[]',
  raw_span_dump TEXT NOT NULL
);

-- Feedback records (semantics §8). svc_ref addresses the target; the parsed target columns
-- make "feedback of this conversation / trace / span" an indexed lookup.
CREATE TABLE feedback (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL,
  target_kind TEXT NOT NULL CHECK (target_kind IN ('conversation', 'trace', 'span')),
  target_id TEXT NOT NULL,
  feedback_type TEXT NOT NULL,
  svc_ref TEXT NOT NULL,
  payload TEXT NOT NULL DEFAULT '{}',
  creator TEXT,
  created_at_us INTEGER,
  svc_user_id TEXT,
  runnable_ref TEXT,
  call_ref TEXT,
  trigger_ref TEXT,
  annotation_ref TEXT,
  scorer_tags TEXT NOT NULL DEFAULT '[]',
  scorer_tag_reasons TEXT NOT NULL DEFAULT '{}',
  scorer_tag_confidences TEXT NOT NULL DEFAULT '{}',
  scorer_ratings TEXT NOT NULL DEFAULT '{}',
  scorer_rating_reasons TEXT NOT NULL DEFAULT '{}',
  scorer_rating_confidences TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX feedback_target ON feedback (project_id, target_kind, target_id);

-- Small key/value settings (training key is a file, not here; see settings.ts).
CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
`;
