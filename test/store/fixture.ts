/**
 * The shared fixture of the port's contract tests: spans of a support agent and a billing agent in
 * a few conversations, plus traces without a conversation and another project's trace. Built as
 * SpanRecords (the port's write type), deterministic, varied where the rules differ: agent spans
 * mirroring their children's usage, an error, custom attributes of each type, tool calls, messages.
 * The tests compute every expected answer from these records, never from the store.
 */
import type { SpanMessage, SpanRecord } from '../../src/main/domain/span.js';

export const P = 'contract/shop';
export const OTHER = 'contract/other';
export const T0 = 1_790_000_000_000_000_000n; // 2026-09-21T… in ns
const ms = (n: number) => T0 + BigInt(n) * 1_000_000n;
const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');

const msg = (role: string, content: string): SpanMessage => ({ role, content, finish_reason: role === 'assistant' ? 'stop' : '', parts: [{ type: 'text', content }] });

export function blank(p: Partial<SpanRecord> & Pick<SpanRecord, 'project_id' | 'trace_id' | 'span_id'>): SpanRecord {
  return {
    parent_span_id: null, span_name: 'span', span_kind: 'INTERNAL', start_ns: null, end_ns: null, status_code: 'UNSET',
    status_message: null, service_name: 'shop', scope_name: 'contract', scope_version: '1.0', operation_name: null,
    provider_name: null, agent_id: null, agent_name: null, agent_version: null, agent_description: null, conversation_id: null,
    conversation_name: null, request_model: null, response_model: null, response_id: null, output_type: null, error_type: null,
    server_address: null, server_port: null, tool_name: null, tool_type: null, tool_call_id: null, tool_description: null,
    reasoning_content: null, compaction_summary: null, compaction_items_before: null, compaction_items_after: null,
    svc_user_id: null, svc_run_id: null, svc_run_step: null, svc_run_step_end: null, request_temperature: null,
    request_top_p: null, request_frequency_penalty: null, request_presence_penalty: null, request_max_tokens: null,
    request_seed: null, request_choice_count: null, input_tokens: null, output_tokens: null, reasoning_tokens: null,
    cache_creation_input_tokens: null, cache_read_input_tokens: null, input_cost_usd: null, output_cost_usd: null,
    cache_creation_cost_usd: null, cache_read_cost_usd: null, total_cost_usd: null, finish_reasons: [], request_stop_sequences: [],
    artifact_refs: [], content_refs: [], object_refs: [], custom_attrs_bool: {}, custom_attrs_int: {}, custom_attrs_float: {},
    custom_attrs_string: {}, system_instructions: [], tool_definitions: null, tool_call_arguments: null, tool_call_result: null,
    input_messages: [], output_messages: [], resource_attributes: { 'service.name': 'shop' }, events: [], links: [],
    raw_span_dump: JSON.stringify({ traceId: p.trace_id, spanId: p.span_id, name: p.span_name ?? 'span' }),
    ...p,
  };
}

/** One turn: invoke_agent (mirrors its children's usage) → chat (tool call) → execute_tool → chat (answer). */
function turn(o: { project: string; trace: number; conversation: string | null; agent: string; at: number; question: string; error?: boolean; tier: string }): SpanRecord[] {
  const trace_id = hex(o.trace, 32);
  const sid = (k: number) => hex(o.trace * 16 + k, 16);
  const base = { project_id: o.project, trace_id, conversation_id: o.conversation };
  const model = o.agent === 'billing' ? 'gpt-4o' : 'gpt-4o-mini';
  const answer = `Order ${o.trace} ships ${o.trace % 2 ? 'tomorrow' : 'on Monday'}.`;
  return [
    blank({ ...base, span_id: sid(1), span_name: `invoke_agent ${o.agent}`, operation_name: 'invoke_agent', agent_name: o.agent,
      start_ns: ms(o.at), end_ns: ms(o.at + 3000), input_tokens: 300, output_tokens: 40, request_model: model,
      input_messages: [msg('user', o.question)], output_messages: [msg('assistant', answer)], status_code: o.error ? 'ERROR' : 'OK',
      custom_attrs_string: { 'app.tier': o.tier }, custom_attrs_int: { retries: o.trace % 3 }, custom_attrs_bool: { cached: o.trace % 2 === 0 } }),
    blank({ ...base, span_id: sid(2), parent_span_id: sid(1), span_name: `chat ${model}`, operation_name: 'chat', agent_name: o.agent,
      start_ns: ms(o.at + 10), end_ns: ms(o.at + 900), input_tokens: 100, output_tokens: 15, total_cost_usd: 0.001 * o.trace,
      request_model: model, response_model: model, provider_name: 'openai', custom_attrs_float: { temperature_used: 0.5 },
      input_messages: [msg('system', 'Be brief.'), msg('user', o.question)], output_messages: [msg('assistant', '')] }),
    blank({ ...base, span_id: sid(3), parent_span_id: sid(1), span_name: 'execute_tool lookup_order', operation_name: 'execute_tool',
      tool_name: 'lookup_order', start_ns: ms(o.at + 950), end_ns: ms(o.at + 1000), tool_call_arguments: `{"id":"A-${1100 + o.trace}"}`,
      tool_call_result: `{"eta":"${o.trace % 2 ? 'tomorrow' : 'monday'}","carrier":"UPS-${o.trace}"}`, status_code: o.error ? 'ERROR' : 'UNSET' }),
    blank({ ...base, span_id: sid(4), parent_span_id: sid(1), span_name: `chat ${model}`, operation_name: 'chat', agent_name: o.agent,
      start_ns: ms(o.at + 1100), end_ns: ms(o.at + 2900), input_tokens: 200, output_tokens: 25, total_cost_usd: 0.002 * o.trace,
      request_model: model, response_model: model, provider_name: 'openai',
      input_messages: [msg('user', o.question)], output_messages: [msg('assistant', answer)] }),
  ];
}

const questions = ['Where is order A-1187?', 'Can I change the address?', 'Why was I charged twice?', 'Cancel my subscription please'];

/** Conversations c1..c3 with 3, 2 and 2 turns; two lone traces; one trace of another project. */
export function fixture(): SpanRecord[] {
  const spans: SpanRecord[] = [];
  let trace = 1;
  const conv = (id: string, turns: number, agent: string, tier: string) => {
    for (let i = 0; i < turns; i++) {
      spans.push(...turn({ project: P, trace: trace++, conversation: id, agent, at: trace * 60_000, question: questions[trace % 4]!, error: id === 'c2' && i === 1, tier }));
    }
  };
  conv('c1', 3, 'support', 'gold');
  conv('c2', 2, 'billing', 'silver');
  conv('c3', 2, 'support', 'gold');
  for (let i = 0; i < 2; i++) spans.push(...turn({ project: P, trace: trace++, conversation: null, agent: 'support', at: trace * 60_000, question: 'lonely question', tier: 'bronze' }));
  spans.push(...turn({ project: OTHER, trace: 900, conversation: 'c1', agent: 'intruder', at: 0, question: 'not yours', tier: 'gold' }));
  return spans;
}

export const ofProject = (spans: SpanRecord[], project = P) => spans.filter((s) => s.project_id === project);
export const traceIds = (spans: SpanRecord[]) => [...new Set(spans.map((s) => s.trace_id))];
