/**
 * Rows as they come back from ClickHouse (JSONEachRow: Int64 as quoted digits, UInt8 as 0/1, Date as
 * 'YYYY-MM-DD') and their conversion to the adapter's typed rows. Column lists are fixed text here,
 * next to the converters that read them.
 */
import { raw } from './sql.js';
import { dayText } from './encode.js';
import type { StatusCode } from '../../domain/span.js';
import type { LightSpan, TurnContributionRow, TurnRow } from './summaries.js';
import { restoreMessageAttributes, restoreSpanKeys } from '../../domain/raw-span.js';

/** Nanoseconds (or any Int64) from the server's quoted digits. */
export const big = (v: string | number | null): bigint | null => (v == null ? null : BigInt(v));
/** An Int64 that is small enough for a JS number (tokens, counts, durations in ms). */
export const int = (v: string | number | null): number | null => (v == null ? null : Number(v));

export const LIGHT_COLUMNS = raw(
  `day, trace_id, span_id, parent_span_id, span_name, start_ns, end_ns, status_code, provider_name, agent_name, agent_version,
   conversation_id, conversation_name, svc_user_id, operation_name, request_model, response_model, input_tokens, output_tokens,
   reasoning_tokens, cache_creation_input_tokens, cache_read_input_tokens, total_cost_usd, counted, has_input, input_preview, has_output, output_preview`,
);

export interface LightRowJson {
  day: string;
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  span_name: string;
  start_ns: string | null;
  end_ns: string | null;
  status_code: string;
  provider_name: string | null;
  agent_name: string | null;
  agent_version: string | null;
  conversation_id: string | null;
  conversation_name: string | null;
  svc_user_id: string | null;
  operation_name: string | null;
  request_model: string | null;
  response_model: string | null;
  input_tokens: string | null;
  output_tokens: string | null;
  reasoning_tokens: string | null;
  cache_creation_input_tokens: string | null;
  cache_read_input_tokens: string | null;
  total_cost_usd: number | null;
  counted: number;
  has_input: number;
  input_preview: string | null;
  has_output: number;
  output_preview: string | null;
}

export function lightSpan(r: LightRowJson): LightSpan {
  return {
    ...r,
    day: dayText(r.day),
    status_code: r.status_code as StatusCode,
    start_ns: big(r.start_ns),
    end_ns: big(r.end_ns),
    input_tokens: int(r.input_tokens),
    output_tokens: int(r.output_tokens),
    reasoning_tokens: int(r.reasoning_tokens),
    cache_creation_input_tokens: int(r.cache_creation_input_tokens),
    cache_read_input_tokens: int(r.cache_read_input_tokens),
    has_input: r.has_input === 1,
    has_output: r.has_output === 1,
  };
}

export const TURN_COLUMNS = raw(
  `project_id, conversation_id, trace_id, turn_start_ns, root_span_id, root_start_ns, root_end_ns, duration_ms, status_code,
   span_count, error_count, input_tokens, output_tokens, usage_spans, cost_usd, last_ns, conversation_name, agent_names, request_models,
   first_input_ns, first_text, last_output_ns, last_text`,
);

type Json<T> = { [K in keyof T]: T[K] extends bigint | null ? string | null : T[K] extends number ? number | string : T[K] };
export type TurnRowJson = Json<TurnRow>;

export function turnRow(r: TurnRowJson): TurnRow {
  return {
    ...r,
    turn_start_ns: big(r.turn_start_ns),
    root_start_ns: big(r.root_start_ns),
    root_end_ns: big(r.root_end_ns),
    duration_ms: int(r.duration_ms),
    span_count: Number(r.span_count),
    error_count: Number(r.error_count),
    input_tokens: Number(r.input_tokens),
    output_tokens: Number(r.output_tokens),
    usage_spans: Number(r.usage_spans),
    last_ns: big(r.last_ns),
    first_input_ns: big(r.first_input_ns),
    last_output_ns: big(r.last_output_ns),
  };
}

/** conversation_keys (migration 0004): a turn's days and its contribution to the conversation. */
export const CONVERSATION_KEY_COLUMNS = raw(
  `conversation_id, trace_id, first_day, last_day, turn_start_ns, span_count, error_count, input_tokens, output_tokens, usage_spans, cost_usd,
   last_ns, conversation_name, agent_names, request_models, first_input_ns, first_text, last_output_ns, last_text, version, deleted`,
);

export type ConversationKeyJson = Json<TurnContributionRow> & { conversation_id: string; first_day: string; last_day: string; version: string; deleted: number };

export function contributionRow(r: ConversationKeyJson): TurnContributionRow {
  return {
    trace_id: r.trace_id,
    turn_start_ns: big(r.turn_start_ns),
    span_count: Number(r.span_count),
    error_count: Number(r.error_count),
    input_tokens: Number(r.input_tokens),
    output_tokens: Number(r.output_tokens),
    usage_spans: Number(r.usage_spans),
    cost_usd: r.cost_usd,
    last_ns: big(r.last_ns),
    conversation_name: r.conversation_name,
    agent_names: r.agent_names,
    request_models: r.request_models,
    first_input_ns: big(r.first_input_ns),
    first_text: r.first_text,
    last_output_ns: big(r.last_output_ns),
    last_text: r.last_text,
  };
}

/** What a stored raw span needs to be put back as received: its payload row's messages, its span row's keys. */
export interface RawSpanParts {
  raw_span: string;
  input_messages: string;
  output_messages: string;
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  start_ns: string | null;
  end_ns: string | null;
}

/** The span as received from its stored form (encode.ts storedRawSpan; rows stored before it are whole already). */
export function receivedRawSpan(p: RawSpanParts): string {
  const t = restoreMessageAttributes(p.raw_span, p);
  return restoreSpanKeys(t, { trace_id: p.trace_id, span_id: p.span_id, parent_span_id: p.parent_span_id, start_ns: p.start_ns, end_ns: p.end_ns });
}
