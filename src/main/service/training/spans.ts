/**
 * SpanRecords the training service writes into the trace store: one `chat` span per completion
 * (semantics §9.7) and one trace per logged trajectory (§9.6), so rollouts read like any other
 * agent trace in the chat view.
 */
import { randomBytes } from 'node:crypto';
import type { SpanMessage, SpanRecord } from '../../domain/span.js';

export const traceId = (): string => randomBytes(16).toString('hex');
export const spanId = (): string => randomBytes(8).toString('hex');

/** A span with every field at its "unset" value (null, [] or {}). */
export function blankSpan(p: { project_id: string; trace_id: string; span_id: string; parent_span_id?: string | null; span_name: string; start_ns: bigint; end_ns: bigint }): SpanRecord {
  return {
    project_id: p.project_id, trace_id: p.trace_id, span_id: p.span_id, parent_span_id: p.parent_span_id ?? null,
    span_name: p.span_name, span_kind: 'INTERNAL', start_ns: p.start_ns, end_ns: p.end_ns, status_code: 'UNSET', status_message: null,
    service_name: 'loupe-training', scope_name: 'loupe.training', scope_version: null,
    operation_name: null, provider_name: null, agent_id: null, agent_name: null, agent_version: null, agent_description: null,
    conversation_id: null, conversation_name: null, request_model: null, response_model: null, response_id: null, output_type: null,
    error_type: null, server_address: null, server_port: null, tool_name: null, tool_type: null, tool_call_id: null,
    tool_description: null, reasoning_content: null, compaction_summary: null, compaction_items_before: null,
    compaction_items_after: null, svc_user_id: null, svc_run_id: null, svc_run_step: null, svc_run_step_end: null,
    request_temperature: null, request_top_p: null, request_frequency_penalty: null, request_presence_penalty: null,
    request_max_tokens: null, request_seed: null, request_choice_count: null,
    input_tokens: null, output_tokens: null, reasoning_tokens: null, cache_creation_input_tokens: null, cache_read_input_tokens: null,
    input_cost_usd: null, output_cost_usd: null, cache_creation_cost_usd: null, cache_read_cost_usd: null, total_cost_usd: null,
    finish_reasons: [], request_stop_sequences: [], artifact_refs: [], content_refs: [], object_refs: [],
    custom_attrs_bool: {}, custom_attrs_int: {}, custom_attrs_float: {}, custom_attrs_string: {},
    system_instructions: [], tool_definitions: null, tool_call_arguments: null, tool_call_result: null,
    input_messages: [], output_messages: [], resource_attributes: { 'service.name': 'loupe-training' }, events: [], links: [],
    raw_span_dump: '{}',
  };
}

/** Text of a chat-completions message content (string or parts). */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (p && typeof p === 'object' && 'text' in p ? String((p as { text: unknown }).text) : '')).join('');
  return '';
}

/** A chat message as the span store keeps it (role, text, parts; tool calls as tool_call parts). */
export function spanMessage(m: { role: string; content?: unknown; tool_calls?: unknown }, finishReason = ''): SpanMessage {
  const text = contentText(m.content);
  const parts: SpanMessage['parts'] = text ? [{ type: 'text', content: text }] : [];
  if (Array.isArray(m.tool_calls)) {
    for (const c of m.tool_calls as { id?: string; function?: { name?: string; arguments?: string } }[]) {
      parts.push({ type: 'tool_call', id: c.id ?? null, name: c.function?.name ?? '', arguments: c.function?.arguments ?? null });
    }
  }
  return { role: m.role, content: text || (Array.isArray(m.tool_calls) ? JSON.stringify(m.tool_calls) : ''), finish_reason: finishReason, parts };
}

/** Splits leading system messages off (they go to system_instructions, as ingest does). */
export function splitSystem(messages: { role: string; content?: unknown }[]): { system: string[]; rest: { role: string; content?: unknown }[] } {
  const system = messages.filter((m) => m.role === 'system' || m.role === 'developer').map((m) => contentText(m.content));
  return { system, rest: messages.filter((m) => m.role !== 'system' && m.role !== 'developer') };
}
