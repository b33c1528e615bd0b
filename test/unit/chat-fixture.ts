/**
 * Test data for the chat tests: a SpanRecord builder with the interface's empty values, and a
 * service context on a real SQLite file in a temp dir.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SpanMessage, SpanRecord } from '../../src/main/domain/span.js';
import { openTestStores, type TestStores } from '../helpers/temp-store.js';
import { EventBus } from '../../src/main/service/events.js';
import type { ServiceContext } from '../../src/main/service/context.js';

export const T0 = 1_763_800_000_000_000_000n; // 2025-11-22T08:26:40Z in ns
export const ms = (n: number) => T0 + BigInt(n) * 1_000_000n;

export const msg = (role: string, content: string, parts: SpanMessage['parts'] = [{ type: 'text', content }]): SpanMessage => ({
  role, content, finish_reason: role === 'assistant' ? 'stop' : '', parts,
});

export function span(p: Partial<SpanRecord> & { span_id: string }): SpanRecord {
  return {
    project_id: 'acme/shop', trace_id: 'a'.repeat(32), parent_span_id: null, span_name: 'span', span_kind: 'INTERNAL',
    start_ns: ms(0), end_ns: ms(10), status_code: 'UNSET', status_message: null, service_name: null, scope_name: null,
    scope_version: null, operation_name: null, provider_name: null, agent_id: null, agent_name: null, agent_version: null,
    agent_description: null, conversation_id: null, conversation_name: null, request_model: null, response_model: null,
    response_id: null, output_type: null, error_type: null, server_address: null, server_port: null, tool_name: null,
    tool_type: null, tool_call_id: null, tool_description: null, reasoning_content: null, compaction_summary: null,
    compaction_items_before: null, compaction_items_after: null, svc_user_id: null, svc_run_id: null, svc_run_step: null,
    svc_run_step_end: null, request_temperature: null, request_top_p: null, request_frequency_penalty: null,
    request_presence_penalty: null, request_max_tokens: null, request_seed: null, request_choice_count: null,
    input_tokens: null, output_tokens: null, reasoning_tokens: null, cache_creation_input_tokens: null,
    cache_read_input_tokens: null, input_cost_usd: null, output_cost_usd: null, cache_creation_cost_usd: null,
    cache_read_cost_usd: null, total_cost_usd: null, finish_reasons: [], request_stop_sequences: [], artifact_refs: [],
    content_refs: [], object_refs: [], custom_attrs_bool: {}, custom_attrs_int: {}, custom_attrs_float: {},
    custom_attrs_string: {}, system_instructions: [], tool_definitions: null, tool_call_arguments: null,
    tool_call_result: null, input_messages: [], output_messages: [], resource_attributes: {}, events: [], links: [],
    raw_span_dump: '{}',
    ...p,
  };
}

/** An agent turn: invoke_agent → chat (user asks, model calls a tool) → execute_tool → chat (answer). */
export function agentTurn(o: { trace_id: string; conversation_id?: string | null; start: number; question?: string; prefix?: string }): SpanRecord[] {
  const q = o.question ?? 'Where is order A-1187?';
  const p = o.prefix ?? o.trace_id.slice(0, 4);
  const base = { trace_id: o.trace_id, conversation_id: o.conversation_id ?? null };
  return [
    span({ ...base, span_id: `${p}000000000001`, span_name: 'invoke_agent Support', operation_name: 'invoke_agent', agent_name: 'Support',
      request_model: 'gpt-4o', start_ns: ms(o.start), end_ns: ms(o.start + 5000), input_tokens: 300, output_tokens: 40,
      input_messages: [msg('user', q)], output_messages: [msg('assistant', 'It ships tomorrow.')] }),
    span({ ...base, span_id: `${p}000000000002`, parent_span_id: `${p}000000000001`, span_name: 'chat gpt-4o', operation_name: 'chat',
      request_model: 'gpt-4o', response_model: 'gpt-4o-2024-08-06', start_ns: ms(o.start + 100), end_ns: ms(o.start + 1100),
      input_tokens: 100, output_tokens: 20, total_cost_usd: 0.001,
      input_messages: [msg('system', 'Be brief.'), msg('user', q)],
      output_messages: [msg('assistant', '{"name":"lookup_order"}', [{ type: 'tool_call', id: 'c1', name: 'lookup_order', arguments: { id: 'A-1187' } }])] }),
    span({ ...base, span_id: `${p}000000000003`, parent_span_id: `${p}000000000001`, span_name: 'execute_tool lookup_order',
      operation_name: 'execute_tool', tool_name: 'lookup_order', tool_call_arguments: '{"id":"A-1187"}', tool_call_result: '{"eta":"tomorrow"}',
      start_ns: ms(o.start + 1200), end_ns: ms(o.start + 1300) }),
    span({ ...base, span_id: `${p}000000000004`, parent_span_id: `${p}000000000001`, span_name: 'chat gpt-4o', operation_name: 'chat',
      request_model: 'gpt-4o', start_ns: ms(o.start + 1400), end_ns: ms(o.start + 2400), input_tokens: 200, output_tokens: 20, total_cost_usd: 0.002,
      input_messages: [msg('user', q), msg('assistant', ''), msg('tool', '{"eta":"tomorrow"}')],
      output_messages: [msg('assistant', 'It ships tomorrow.')] }),
  ];
}

/** A service context over fresh stores in a temp dir; `stores` to close them and reach the file. */
export async function tempContext(): Promise<ServiceContext & { dir: string; stores: TestStores }> {
  const dir = mkdtempSync(join(tmpdir(), 'loupe-chat-'));
  const stores = await openTestStores(dir);
  return { traces: stores.traces, app: stores.app, events: new EventBus(), dataDir: dir, apiKey: 'test-key', dir, stores };
}

import { dispatch } from '../../src/main/transport/dispatch.js';

/** The real dispatch path (contract zod parse → 422 detail → handler), as HTTP and IPC call it. */
export async function call(name: 'chat.conversation' | 'chat.trace' | 'feedback.create' | 'feedback.query' | 'feedback.update' | 'feedback.delete' | 'chat.tracePage', raw: unknown, ctx: ServiceContext): Promise<unknown> {
  return dispatch(name, raw, ctx);
}

import { chatAttributes, importRequest, otlpRequest, traceBuilder, type Attrs } from '../helpers/otlp.js';
import type { TraceStore } from '../../src/main/store/ports.js';

/** 16-hex span id from a short label ('4a' → '000000000000004a'). */
export const sid = (label: string) => label.padStart(16, '0');
export const OTLP_START = Date.parse('2026-11-22T10:00:00Z');

/**
 * An agent turn as OTLP JSON: invoke_agent → chat (user asks, model calls lookup_order) →
 * execute_tool (no conversation id) → chat (answer). Span ids are `<p>1`..`<p>4`.
 */
export function otlpTurn(o: { trace_id: string; conversation_id: string | null; startMs: number; question: string; p: string }) {
  const t = traceBuilder({ traceId: o.trace_id, start: OTLP_START + o.startMs });
  const conv = o.conversation_id ?? undefined;
  const root = t.span('invoke_agent Support', { spanId: sid(`${o.p}1`), durationMs: 5000, attributes: {
    'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'Support', 'gen_ai.conversation.id': conv,
    'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': 300, 'gen_ai.usage.output_tokens': 40,
  } });
  t.span('chat gpt-4o', { spanId: sid(`${o.p}2`), parent: root, at: 100, durationMs: 1000, attributes: chatAttributes({
    model: 'gpt-4o', conversationId: conv, inputTokens: 100, outputTokens: 20, extra: { 'gen_ai.usage.cost': 0.001 },
    input: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: o.question }],
    output: [{ role: 'assistant', toolCalls: [{ id: 'c1', name: 'lookup_order', arguments: { id: 'A-1187' } }] }],
  }) });
  t.span('execute_tool lookup_order', { spanId: sid(`${o.p}3`), parent: root, at: 1200, durationMs: 100, attributes: {
    'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup_order', 'gen_ai.tool.call.arguments': '{"id":"A-1187"}',
    'gen_ai.tool.call.result': '{"eta":"tomorrow"}',
  } });
  t.span('chat gpt-4o', { spanId: sid(`${o.p}4`), parent: root, at: 1400, durationMs: 1000, attributes: chatAttributes({
    model: 'gpt-4o', conversationId: conv, inputTokens: 200, outputTokens: 20, extra: { 'gen_ai.usage.cost': 0.002 },
    input: [{ role: 'user', content: o.question }, { role: 'tool', content: '{"eta":"tomorrow"}' }],
    output: [{ role: 'assistant', content: 'It ships tomorrow.' }],
  }) });
  return t;
}

/** Imports OTLP JSON spans into a project through the ingest path stock exporters use. */
export function importOtlp(store: { traces: TraceStore }, project: string, spans: Record<string, unknown>[], resource?: Attrs) {
  return importRequest(store, project, otlpRequest(spans, { resource }));
}
