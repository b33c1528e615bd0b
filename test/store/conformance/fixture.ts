/**
 * The conformance suite's one fixture set (issue 19 item 4): spans of a small shop's agents, written
 * to every adapter, that the cases of cases.json are answered from. Varied where the rules differ:
 * words said only in messages or only in tool results, words that are also the messages' JSON
 * structure ("assistant", "content"), a non-ASCII word in another case, conversations with equal
 * sort values (tie-breakers), no cost at all (nulls sort), a trace holding two conversations' spans,
 * a trace with two parentless spans (the root rule), a dozen lone traces to page through, and another
 * project's spans (never answered). Ids are readable: the cases name traces by them.
 */
import type { SpanMessage, SpanRecord } from '../../../src/main/domain/span.js';
import { blank } from '../fixture.js';

export const P = 'conformance/shop';
export const OTHER = 'conformance/other';
const T0 = 1_790_000_000_000_000_000n; // 2026-09-21T…
const at = (minute: number, ms = 0) => T0 + BigInt(minute) * 60_000_000_000n + BigInt(ms) * 1_000_000n;

const msg = (role: string, content: string): SpanMessage => ({ role, content, finish_reason: role === 'assistant' ? 'stop' : '', parts: [{ type: 'text', content }] });

interface Turn {
  trace: string;
  conversation: string | null;
  agent: string;
  model: string;
  minute: number;
  ask: string;
  answer: string;
  /** The lookup tool's result (JSON text), when the turn calls it. */
  tool?: string;
  error?: boolean;
  /** Cost of each chat call; null: the provider gave none. */
  cost?: number | null;
  service?: string;
  project?: string;
}

/** invoke_agent → chat (asks for the tool) → execute_tool → chat (answers); the agent span mirrors its children's usage. */
function turn(t: Turn): SpanRecord[] {
  const base = { project_id: t.project ?? P, trace_id: t.trace, conversation_id: t.conversation, service_name: t.service ?? 'shop', resource_attributes: { 'service.name': t.service ?? 'shop' } };
  const id = (k: string) => `${t.trace}-${k}`;
  const cost = t.cost === undefined ? 0.001 : t.cost;
  const spans = [
    blank({ ...base, span_id: id('agent'), span_name: `invoke_agent ${t.agent}`, operation_name: 'invoke_agent', agent_name: t.agent,
      start_ns: at(t.minute), end_ns: at(t.minute, 3000), input_tokens: 300, output_tokens: 40, request_model: t.model,
      input_messages: [msg('user', t.ask)], output_messages: [msg('assistant', t.answer)], status_code: t.error ? 'ERROR' : 'OK' }),
    blank({ ...base, span_id: id('chat1'), parent_span_id: id('agent'), span_name: `chat ${t.model}`, operation_name: 'chat', agent_name: t.agent,
      start_ns: at(t.minute, 10), end_ns: at(t.minute, 900), input_tokens: 100, output_tokens: 15, total_cost_usd: cost,
      request_model: t.model, provider_name: 'openai', input_messages: [msg('system', 'Be brief.'), msg('user', t.ask)], output_messages: [] }),
  ];
  if (t.tool !== undefined) {
    spans.push(blank({ ...base, span_id: id('tool'), parent_span_id: id('agent'), span_name: 'execute_tool lookup_order', operation_name: 'execute_tool',
      tool_name: 'lookup_order', start_ns: at(t.minute, 950), end_ns: at(t.minute, 1000), tool_call_arguments: '{"order":"A-1"}', tool_call_result: t.tool,
      status_code: t.error ? 'ERROR' : 'UNSET' }));
  }
  spans.push(blank({ ...base, span_id: id('chat2'), parent_span_id: id('agent'), span_name: `chat ${t.model}`, operation_name: 'chat', agent_name: t.agent,
    start_ns: at(t.minute, 1100), end_ns: at(t.minute, 2900), input_tokens: 200, output_tokens: 25, total_cost_usd: cost === null ? null : cost * 2,
    request_model: t.model, provider_name: 'openai', input_messages: [msg('user', t.ask)], output_messages: [msg('assistant', t.answer)] }));
  return spans;
}

export function conformanceFixture(): SpanRecord[] {
  const spans: SpanRecord[] = [];
  const add = (t: Turn) => spans.push(...turn(t));
  // "refunded" is said only in an answer; "UPS" only in tool results (three conversations).
  add({ trace: 'refund-1', conversation: 'refund', agent: 'support', model: 'gpt-4o-mini', minute: 10, ask: 'Where is my money for order A-1?', answer: 'The order was refunded on Monday.', tool: '{"carrier":"DHL","status":"returned"}' });
  add({ trace: 'refund-2', conversation: 'refund', agent: 'support', model: 'gpt-4o-mini', minute: 12, ask: 'Thanks. And the shipping fee?', answer: 'It comes back with the rest.' });
  add({ trace: 'ship-1', conversation: 'ship', agent: 'support', model: 'gpt-4o-mini', minute: 20, ask: 'Where is parcel A-2?', answer: 'It is on its way.', tool: '{"carrier":"UPS","eta":"tomorrow"}' });
  add({ trace: 'ship-2', conversation: 'ship', agent: 'support', model: 'gpt-4o-mini', minute: 22, ask: 'Can it come earlier?', answer: 'No, sorry.', tool: '{"carrier":"UPS","eta":"tomorrow"}', error: true });
  add({ trace: 'ship-3', conversation: 'ship', agent: 'support', model: 'gpt-4o-mini', minute: 24, ask: 'Fine.', answer: 'Your assistant will call when it arrives.' });
  add({ trace: 'late-1', conversation: 'late', agent: 'support', model: 'gpt-4o-mini', minute: 30, ask: 'My parcel A-3 is late', answer: 'Sorry about that.', tool: '{"carrier":"ups ground","eta":"friday"}' });
  // Same turn count as 'refund' (2): turn_count ties are broken by conversation id.
  add({ trace: 'bill-1', conversation: 'bill', agent: 'billing', model: 'gpt-4o', minute: 40, ask: 'Why was I charged twice?', answer: 'A duplicate charge; it is reversed.', cost: null });
  add({ trace: 'bill-2', conversation: 'bill', agent: 'billing', model: 'gpt-4o', minute: 42, ask: 'When?', answer: 'Within five days.', cost: null });
  add({ trace: 'ecole-1', conversation: 'ecole', agent: 'support', model: 'gpt-4o-mini', minute: 50, ask: "L'ÉCOLE a commandé des livres", answer: 'Commande notée pour l’école.' });
  // One trace, two conversations (and an untagged span, credited to its parent's conversation: decision 0022).
  spans.push(...turn({ trace: 'mixed', conversation: 'mix-a', agent: 'support', model: 'gpt-4o-mini', minute: 60, ask: 'First customer asks about a voucher', answer: 'Voucher applied.' }));
  spans.push(
    blank({ project_id: P, trace_id: 'mixed', span_id: 'mixed-b', parent_span_id: 'mixed-agent', conversation_id: 'mix-b', span_name: 'chat gpt-4o', operation_name: 'chat',
      agent_name: 'billing', start_ns: at(60, 500), end_ns: at(60, 700), request_model: 'gpt-4o', service_name: 'shop', input_messages: [msg('user', 'Second customer wants an invoice copy')],
      output_messages: [msg('assistant', 'Invoice sent.')], input_tokens: 10, output_tokens: 5, total_cost_usd: 0.0005 }),
    blank({ project_id: P, trace_id: 'mixed', span_id: 'mixed-log', parent_span_id: 'mixed-agent', conversation_id: null, span_name: 'audit log', service_name: 'shop',
      start_ns: at(60, 800), end_ns: at(60, 810), custom_attrs_string: { 'audit.note': 'voucher and invoice checked' } }),
  );
  // Lone traces (no conversation): listed as traces. Twelve batch jobs to page through, no cost.
  for (let i = 1; i <= 12; i++) {
    const trace = `job-${String(i).padStart(2, '0')}`;
    spans.push(
      blank({ project_id: P, trace_id: trace, span_id: `${trace}-root`, span_name: 'nightly export', service_name: 'batch', resource_attributes: { 'service.name': 'batch' },
        start_ns: at(100 + i), end_ns: at(100 + i, 100 * i), status_code: i === 7 ? 'ERROR' : 'OK' }),
      blank({ project_id: P, trace_id: trace, span_id: `${trace}-step`, parent_span_id: `${trace}-root`, span_name: 'write rows', service_name: 'batch',
        start_ns: at(100 + i, 5), end_ns: at(100 + i, 50), custom_attrs_int: { rows: i * 10 } }),
    );
  }
  // A lone trace with two parentless spans: the root is the latest-ended one.
  spans.push(
    blank({ project_id: P, trace_id: 'two-roots', span_id: 'two-roots-a', span_name: 'poll queue', service_name: 'worker', start_ns: at(200), end_ns: at(200, 400) }),
    blank({ project_id: P, trace_id: 'two-roots', span_id: 'two-roots-b', span_name: 'drain queue', service_name: 'worker', start_ns: at(200, 10), end_ns: at(200, 900) }),
  );
  // Another project: never part of an answer about P.
  add({ trace: 'other-1', conversation: 'refund', agent: 'intruder', model: 'gpt-4o', minute: 15, ask: 'refunded UPS', answer: 'refunded', tool: '{"carrier":"UPS"}', project: OTHER });
  return spans;
}
