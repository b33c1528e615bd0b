/**
 * The one normalized span shape that every importer produces and the store writes.
 * Wire formats (OTLP JSON, protobuf, dialects) are turned into this at the ingest boundary;
 * nothing downstream of ingest looks at raw attribute keys again.
 *
 * Conventions: a field with no value is null (arrays [] and maps {} for the collection fields).
 * Times are nanoseconds since the epoch as bigint so ordering stays exact.
 */

export type StatusCode = 'UNSET' | 'OK' | 'ERROR';
export type SpanKind = 'UNSPECIFIED' | 'INTERNAL' | 'SERVER' | 'CLIENT' | 'PRODUCER' | 'CONSUMER';

/** A message part as kept for the chat view (OTel GenAI parts shape). */
export interface MessagePart {
  type: string; // 'text' | 'tool_call' | 'tool_call_response' | 'reasoning' | ...
  content?: string;
  id?: string | null;
  name?: string;
  arguments?: unknown;
  response?: unknown;
  [k: string]: unknown;
}

/** Normalized message: role/content/finish_reason for the span row, parts for the chat view. */
export interface SpanMessage {
  role: string;
  content: string; // text parts joined; tool calls rendered as JSON
  finish_reason: string;
  parts: MessagePart[];
}

export interface SpanRecord {
  project_id: string;
  trace_id: string; // lower-case hex, 32 chars
  span_id: string; // lower-case hex, 16 chars
  parent_span_id: string | null;
  span_name: string;
  span_kind: SpanKind;
  start_ns: bigint | null;
  end_ns: bigint | null;
  status_code: StatusCode;
  status_message: string | null;
  service_name: string | null;
  scope_name: string | null;
  scope_version: string | null;

  // GenAI semantic columns
  operation_name: string | null;
  provider_name: string | null;
  agent_id: string | null;
  agent_name: string | null;
  agent_version: string | null;
  agent_description: string | null;
  conversation_id: string | null;
  conversation_name: string | null;
  request_model: string | null;
  response_model: string | null;
  response_id: string | null;
  output_type: string | null;
  error_type: string | null;
  server_address: string | null;
  server_port: number | null;
  tool_name: string | null;
  tool_type: string | null;
  tool_call_id: string | null;
  tool_description: string | null;
  reasoning_content: string | null;
  compaction_summary: string | null;
  compaction_items_before: number | null;
  compaction_items_after: number | null;
  svc_user_id: string | null;
  svc_run_id: string | null;
  svc_run_step: number | null;
  svc_run_step_end: number | null;

  request_temperature: number | null;
  request_top_p: number | null;
  request_frequency_penalty: number | null;
  request_presence_penalty: number | null;
  request_max_tokens: number | null;
  request_seed: number | null;
  request_choice_count: number | null;

  input_tokens: number | null;
  output_tokens: number | null;
  reasoning_tokens: number | null;
  cache_creation_input_tokens: number | null;
  cache_read_input_tokens: number | null;

  input_cost_usd: number | null;
  output_cost_usd: number | null;
  cache_creation_cost_usd: number | null;
  cache_read_cost_usd: number | null;
  total_cost_usd: number | null;

  finish_reasons: string[];
  request_stop_sequences: string[];
  artifact_refs: string[];
  content_refs: string[];
  object_refs: string[];

  custom_attrs_bool: Record<string, boolean>;
  custom_attrs_int: Record<string, number>;
  custom_attrs_float: Record<string, number>;
  custom_attrs_string: Record<string, string>;

  // Heavy fields (kept in span_details so list queries never read them)
  system_instructions: string[];
  tool_definitions: string | null; // JSON text
  tool_call_arguments: string | null;
  tool_call_result: string | null;
  input_messages: SpanMessage[];
  output_messages: SpanMessage[];
  resource_attributes: Record<string, unknown>;
  events: unknown[];
  links: unknown[];
  raw_span_dump: string; // the span as received, OTLP JSON form
  /**
   * Set by ingest (service/ingest/history.ts) when the span's input messages are an earlier call's
   * followed by more, for a store that keeps them that way (SQLite): `input_messages` still holds them
   * all. `raw_span_dump` then leaves the input attribute out (the store puts it back when read).
   */
  input_continues?: InputContinuation | null;
  /**
   * Set by ingest for a store that keeps continued inputs (SQLite): `raw_span_dump` is already in its
   * stored form (domain/raw-span.ts: the ids, times and reproducible message attributes left out), so the
   * store writes it as it is.
   */
  raw_span_stripped?: boolean;
}

/** A span's input messages as "the messages of span base, then tail" (same project). */
export interface InputContinuation {
  base_trace_id: string;
  base_span_id: string;
  /** The messages after the base's. */
  tail: SpanMessage[];
  /** The base is in another trace: this span brings its whole history's texts to the search index once per trace. */
  first_in_trace: boolean;
}

/** True when the span itself carries token usage (used by the usage-bearing-leaf rule). */
export function carriesUsage(s: Pick<SpanRecord, 'input_tokens' | 'output_tokens'>): boolean {
  return s.input_tokens != null || s.output_tokens != null;
}
