/**
 * The span fields the chat views read: a subset of SpanRecord, so tests (and the store) can hand
 * whole records in. Kept as one type so the walk, the header rules and the summary maintainer agree.
 */
import type { SpanRecord } from '../span.js';

export type ChatSpan = Pick<
  SpanRecord,
  | 'trace_id' | 'span_id' | 'parent_span_id' | 'span_name' | 'start_ns' | 'end_ns' | 'status_code'
  | 'status_message' | 'error_type' | 'tool_call_id'
  | 'operation_name' | 'provider_name' | 'agent_id' | 'agent_name' | 'agent_version' | 'conversation_id'
  | 'request_model' | 'response_model' | 'tool_name' | 'reasoning_content'
  | 'compaction_summary' | 'compaction_items_before' | 'compaction_items_after' | 'svc_user_id'
  | 'input_tokens' | 'output_tokens' | 'reasoning_tokens' | 'cache_creation_input_tokens' | 'cache_read_input_tokens'
  | 'input_cost_usd' | 'output_cost_usd' | 'total_cost_usd' | 'content_refs'
  | 'system_instructions' | 'tool_definitions' | 'tool_call_arguments' | 'tool_call_result'
  | 'input_messages' | 'output_messages'
> & {
  /**
   * The stored counting bits (1 tokens, 2 cost: the one counting rule decided over the whole trace at
   * ingest) when the store read them; absent, the rule is applied to the spans at hand.
   */
  counted?: number;
  /**
   * Custom string attributes the chat reads (transfer.ts HANDOFF_KEYS: `gen_ai.transfer.*`, `gen_ai.caller.*`);
   * a store fills only those keys, a whole SpanRecord brings its whole map.
   */
  custom_attrs_string?: Readonly<Record<string, string>>;
};

/** The light fields: what the header rules and the ingest-time summaries need (no heavy text). */
export type HeaderSpan = Pick<
  ChatSpan,
  | 'trace_id' | 'span_id' | 'parent_span_id' | 'span_name' | 'start_ns' | 'end_ns' | 'status_code'
  | 'provider_name' | 'agent_name' | 'agent_version' | 'conversation_id' | 'svc_user_id'
  | 'input_tokens' | 'output_tokens' | 'reasoning_tokens' | 'cache_creation_input_tokens' | 'cache_read_input_tokens'
  | 'total_cost_usd'
>;

/** Sibling/root order of §4.3: start ascending (missing start last), longer first, then span_id. */
export function compareSpans(a: Pick<ChatSpan, 'start_ns' | 'end_ns' | 'span_id'>, b: typeof a): number {
  if (a.start_ns !== b.start_ns) {
    if (a.start_ns == null) return 1;
    if (b.start_ns == null) return -1;
    return a.start_ns < b.start_ns ? -1 : 1;
  }
  if (a.end_ns !== b.end_ns) {
    if (a.end_ns == null) return 1;
    if (b.end_ns == null) return -1;
    return a.end_ns > b.end_ns ? -1 : 1;
  }
  return a.span_id < b.span_id ? -1 : a.span_id > b.span_id ? 1 : 0;
}

/** Whole milliseconds between two nanosecond instants, floored at 0; null when either is missing. */
export function durationMs(start: bigint | null, end: bigint | null): number | null {
  if (start == null || end == null) return null;
  const d = (end - start) / 1_000_000n;
  return d < 0n ? 0 : Number(d);
}

/** Text after a span-name prefix such as `invoke_agent ` / `execute_tool `, or null. */
export function nameSuffix(spanName: string, prefix: string): string | null {
  if (!spanName.startsWith(`${prefix} `)) return null;
  const rest = spanName.slice(prefix.length + 1).trim();
  return rest || null;
}
