/**
 * Agent-to-agent interactions as the GenAI semantic conventions record them (issue 18 item 4: `transfer.*`,
 * `caller.*`; open-telemetry/semantic-conventions-genai docs/gen-ai/non-normative/examples-agent-interactions.md):
 * a tool span naming `gen_ai.transfer.target.name` / `gen_ai.transfer.mode`, an `invoke_agent` CLIENT span naming
 * `gen_ai.caller.name` / `gen_ai.caller.type`. Imported through the OTLP importer into a real SQLite store (the
 * attributes are no columns: the chat read takes them from the custom string map) and read through `chat.trace`.
 * The emitter corpus holds the conventions' own LangChain reference scenario (semconv-langchain-handoff).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatAttributes, traceBuilder } from '../helpers/otlp.js';
import { importBuffer } from '../../src/main/service/ingest/index.js';
import { call, tempContext } from './chat-fixture.js';

let ctx: Awaited<ReturnType<typeof tempContext>>;
beforeAll(async () => {
  ctx = await tempContext();
});
afterAll(async () => ctx?.stores.close());

let n = 0;
/** Imports the trace `build` makes and answers its chat as [type, speaker, text] rows (a handoff: from → to: text). */
async function chat(build: (t: ReturnType<typeof traceBuilder>) => void) {
  const t = traceBuilder({ seed: `handoff-attrs-${++n}` });
  build(t);
  const req = t.request() as any;
  const report = await importBuffer(ctx.traces, Buffer.from(JSON.stringify(req)), { contentType: 'application/json', projectId: 'handoffs' });
  expect(report.errors).toEqual([]);
  const turn = (await call('chat.trace', { project_id: 'handoffs', trace_id: req.resourceSpans[0].scopeSpans[0].spans[0].traceId }, ctx)) as any;
  return (turn.messages as any[]).map((m) => {
    const p = m[m.type];
    if (m.type === 'agent_handoff') return [m.type, m.agent_name, `${p.from_agent} → ${p.to_agent}: ${p.text}`] as const;
    return [m.type, m.agent_name, p.text ?? p.tool_name ?? null] as const;
  });
}
const agentAttrs = (name: string, extra: Record<string, string> = {}) => ({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': name, ...extra });
const user = (text: string) => JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: text }] }]);
const said = (text: string) => JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: text }] }]);
const model = (input: string, output: string) => chatAttributes({ model: 'gpt-4o-mini', input: [{ role: 'user', content: input }], output: [{ role: 'assistant', content: output }] });

describe('handoff attributes of the GenAI conventions', () => {
  it('return_to_caller: the tool call stays, the source hands the target its task, the target answers inside the tool (with or without an agent span of its own there) and no second handoff is drawn', async () => {
    for (const ownSpan of [true, false]) {
      const m = await chat((t) => {
        const triage = t.span('invoke_agent triage', { durationMs: 900, attributes: agentAttrs('triage', { 'gen_ai.input.messages': user('Plan a day in Porto.') }) });
        const tool = t.span('execute_tool ask_researcher', { parent: triage, at: 10, durationMs: 500, attributes: {
          'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'ask_researcher', 'gen_ai.agent.name': 'triage',
          'gen_ai.tool.call.arguments': '{"question":"Best sights in Porto?"}', 'gen_ai.tool.call.result': 'Ribeira, Livraria Lello.',
          'gen_ai.transfer.mode': 'return_to_caller', 'gen_ai.transfer.target.name': 'researcher',
        } });
        const inner = ownSpan ? t.span('invoke_agent researcher', { parent: tool, at: 20, durationMs: 400, attributes: agentAttrs('researcher', { 'gen_ai.input.messages': user('Best sights in Porto?') }) }) : tool;
        t.span('chat gpt-4o-mini', { parent: inner, at: 30, durationMs: 300, attributes: model('Best sights in Porto?', 'Ribeira, Livraria Lello.') });
        t.span('chat gpt-4o-mini', { parent: triage, at: 600, durationMs: 200, attributes: model('Plan a day in Porto.', 'Morning in Ribeira, then Livraria Lello.') });
      });
      expect(m.filter((x) => x[0] === 'agent_handoff'), `own span: ${ownSpan}`).toEqual([['agent_handoff', 'triage', 'triage → researcher: Best sights in Porto?']]);
      expect(m.filter((x) => x[0] === 'tool_call')).toEqual([['tool_call', 'triage', 'ask_researcher']]);
      expect(m).toContainEqual(['assistant_message', 'researcher', 'Ribeira, Livraria Lello.']);
      expect(m[0]).toEqual(['user_message', 'User', 'Plan a day in Porto.']);
      expect(m.at(-1)).toEqual(['assistant_message', 'triage', 'Morning in Ribeira, then Livraria Lello.']);
      expect(m.filter((x) => x[0] === 'user_message')).toHaveLength(1);
    }
  });

  it('pass_control: the target that then runs inside the source\'s span is that one hop, not a second handoff with a task', async () => {
    const m = await chat((t) => {
      const triage = t.span('invoke_agent triage', { durationMs: 900, attributes: agentAttrs('triage', { 'gen_ai.input.messages': user('Is it raining in Lisbon?') }) });
      t.span('chat gpt-4o-mini', { parent: triage, at: 5, durationMs: 100, attributes: chatAttributes({ model: 'gpt-4o-mini', input: [{ role: 'user', content: 'Is it raining in Lisbon?' }], output: [] }) });
      t.span('execute_tool transfer_to_weather', { parent: triage, at: 110, durationMs: 5, attributes: {
        'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'transfer_to_weather', 'gen_ai.agent.name': 'triage',
        'gen_ai.transfer.mode': 'pass_control', 'gen_ai.transfer.target.name': 'weather', 'gen_ai.tool.call.result': 'goto=weather',
      } });
      const weather = t.span('invoke_agent weather', { parent: triage, at: 120, durationMs: 700, attributes: agentAttrs('weather', { 'gen_ai.input.messages': user('Is it raining in Lisbon?') }) });
      t.span('chat gpt-4o-mini', { parent: weather, at: 130, durationMs: 600, attributes: model('Is it raining in Lisbon?', 'No, dry and 21°C.') });
    });
    expect(m.filter((x) => x[0] === 'agent_handoff')).toEqual([['agent_handoff', 'triage', 'triage → weather: null']]);
    expect(m.filter((x) => x[0] === 'tool_call')).toEqual([['tool_call', 'triage', 'transfer_to_weather']]);
    expect(m.at(-1)).toEqual(['assistant_message', 'weather', 'No, dry and 21°C.']);
    expect(m.filter((x) => x[0] === 'user_message')).toEqual([['user_message', 'User', 'Is it raining in Lisbon?']]);
  });

  it('caller.name: an agent invoked over a protocol is handed its task by its logical caller, not by the span around the call', async () => {
    const m = await chat((t) => {
      const flow = t.span('invoke_workflow trip', { durationMs: 1000, attributes: { 'gen_ai.operation.name': 'invoke_workflow', 'gen_ai.input.messages': user('Book me a table in Porto tonight.') } });
      const host = t.span('invoke_agent concierge', { parent: flow, at: 5, durationMs: 300, attributes: agentAttrs('concierge', { 'gen_ai.output.messages': said('Asking the booking service.') }) });
      t.span('chat gpt-4o-mini', { parent: host, at: 10, durationMs: 200, attributes: model('Book me a table in Porto tonight.', 'Asking the booking service.') });
      const remote = t.span('invoke_agent bookings', { parent: flow, at: 400, durationMs: 500, kind: 'CLIENT', attributes: agentAttrs('bookings', {
        'gen_ai.caller.name': 'concierge', 'gen_ai.caller.type': 'agent', 'gen_ai.input.messages': user('Table for 2 in Porto at 20:00'),
        'gen_ai.output.messages': said('Booked: Cantinho do Avillez, 20:00.'),
      }) });
      void remote;
    });
    expect(m.filter((x) => x[0] === 'agent_handoff')).toEqual([['agent_handoff', 'concierge', 'concierge → bookings: Table for 2 in Porto at 20:00']]);
    expect(m.filter((x) => x[0] === 'user_message')).toEqual([['user_message', 'User', 'Book me a table in Porto tonight.']]);
    expect(m.at(-1)).toEqual(['assistant_message', 'bookings', 'Booked: Cantinho do Avillez, 20:00.']);
  });

  it('caller.type workflow: a workflow invoking its agent is no handoff; without the attributes the same spans draw none either', async () => {
    const build = (withCaller: boolean) => (t: ReturnType<typeof traceBuilder>) => {
      const flow = t.span('invoke_workflow support', { durationMs: 600, attributes: { 'gen_ai.operation.name': 'invoke_workflow', 'gen_ai.input.messages': user('Where is my parcel?') } });
      t.span('invoke_agent tracker', { parent: flow, at: 5, durationMs: 500, kind: 'CLIENT', attributes: agentAttrs('tracker', {
        ...(withCaller ? { 'gen_ai.caller.name': 'support', 'gen_ai.caller.type': 'workflow' } : {}),
        'gen_ai.input.messages': user('Where is my parcel?'), 'gen_ai.output.messages': said('It arrives tomorrow.'),
      }) });
    };
    for (const withCaller of [true, false]) {
      const m = await chat(build(withCaller));
      expect(m.filter((x) => x[0] === 'agent_handoff'), `caller attributes: ${withCaller}`).toEqual([]);
      expect(m.filter((x) => x[0] === 'user_message')).toEqual([['user_message', 'User', 'Where is my parcel?']]);
      expect(m.at(-1)).toEqual(['assistant_message', 'tracker', 'It arrives tomorrow.']);
    }
  });
});

/**
 * The conventions' workflow span (`span.gen_ai.invoke_workflow.internal`: operation `invoke_workflow`, span name
 * `invoke_workflow {gen_ai.workflow.name}`, kind INTERNAL, opt-in `gen_ai.input.messages` / `gen_ai.output.messages`,
 * and `gen_ai.conversation.id` since open-telemetry/semantic-conventions-genai PR #410) around in-process agents
 * (`span.gen_ai.invoke_agent.internal`: `invoke_agent`, kind INTERNAL). The issue's `handle_conversation_turn` and
 * `gen_ai.invocation.internal` are no ids of the conventions; these are the published ones (docs/chat.md).
 */
describe('workflow and in-process agent spans of the GenAI conventions', () => {
  it('a workflow turn: the user speaks once, the agents answer, the workflow\'s own output (the last answer) is not said twice', async () => {
    const m = await chat((t) => {
      const wf = t.span('invoke_workflow travel_planner', { kind: 'INTERNAL', durationMs: 2000, attributes: {
        'gen_ai.operation.name': 'invoke_workflow', 'gen_ai.workflow.name': 'travel_planner', 'gen_ai.conversation.id': 'conv_abc',
        'gen_ai.input.messages': user('Find flights to Paris'), 'gen_ai.output.messages': said('I found three options.'),
      } });
      const search = t.span('invoke_agent flight_search', { parent: wf, kind: 'INTERNAL', at: 10, durationMs: 1500, attributes: agentAttrs('flight_search', { 'gen_ai.input.messages': user('Find flights to Paris') }) });
      t.span('chat gpt-4o-mini', { parent: search, at: 20, durationMs: 1000, attributes: model('Find flights to Paris', 'I found three options.') });
    });
    expect(m.filter((x) => x[0] === 'user_message')).toEqual([['user_message', 'User', 'Find flights to Paris']]);
    expect(m.filter((x) => x[0] === 'assistant_message')).toEqual([['assistant_message', 'flight_search', 'I found three options.']]);
    expect(m.filter((x) => x[0] === 'agent_handoff')).toEqual([]);
  });
});
