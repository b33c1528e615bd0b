/**
 * The user is the user (issue 18 item 2), whoever emitted the trace: spans shaped as the emitters named in
 * the issue write them (attribute keys and value spellings from their instrumentations' source: OpenInference
 * `input.value` / `output.value` / `llm.input_messages.N.*`, Python `str()` of values, AutoGen's message
 * classes), imported through the OTLP importer into a real SQLite store and read through `chat.trace`.
 * The emitter corpus (test/http/emitter-corpus.test.ts) checks the same on real traces: the user's question
 * first and once, tasks between agents as handoffs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { traceBuilder } from '../helpers/otlp.js';
import { importBuffer } from '../../src/main/service/ingest/index.js';
import { call, tempContext } from './chat-fixture.js';

let ctx: Awaited<ReturnType<typeof tempContext>>;
beforeAll(async () => {
  ctx = await tempContext();
});
afterAll(async () => ctx?.stores.close());

let n = 0;
/** Imports the trace `build` makes and answers its chat as [type, speaker, text] rows. */
async function chat(build: (t: ReturnType<typeof traceBuilder>) => void) {
  const t = traceBuilder({ seed: `speakers-${++n}` });
  build(t);
  const req = t.request() as any;
  const report = await importBuffer(ctx.traces, Buffer.from(JSON.stringify(req)), { contentType: 'application/json', projectId: 'speakers' });
  expect(report.errors).toEqual([]);
  const turn = (await call('chat.trace', { project_id: 'speakers', trace_id: req.resourceSpans[0].scopeSpans[0].spans[0].traceId }, ctx)) as any;
  return (turn.messages as any[]).map((m) => {
    const p = m[m.type];
    return [m.type, m.agent_name, p.text ?? p.tool_name ?? p.to_agent ?? null] as const;
  });
}
const OI = (kind: string, extra: Record<string, string> = {}) => ({ 'openinference.span.kind': kind, ...extra });

describe('the user is the user', () => {
  it('a workflow span recorded as an agent (no input, only agents inside) does not hand the question to the agent: the user asks it', async () => {
    const m = await chat((t) => {
      const wf = t.span('Agent workflow', { durationMs: 900, attributes: OI('AGENT') });
      const agent = t.span('Hello world', { parent: wf, at: 5, durationMs: 800, attributes: OI('AGENT', { 'input.value': 'Write a haiku about recursion.', 'output.value': 'Code calls itself...' }) });
      t.span('response', { parent: agent, at: 10, durationMs: 500, attributes: OI('LLM', {
        'llm.input_messages.0.message.role': 'system', 'llm.input_messages.0.message.content': 'You only respond in haikus.',
        'llm.input_messages.1.message.role': 'user', 'llm.input_messages.1.message.content': 'Write a haiku about recursion.',
        'llm.output_messages.0.message.role': 'assistant', 'llm.output_messages.0.message.content': 'Code calls itself...',
      }) });
    });
    expect(m[0]).toEqual(['user_message', 'User', 'Write a haiku about recursion.']);
    expect(m.filter((x) => x[0] === 'agent_handoff')).toEqual([]);
    expect(m.filter((x) => x[0] === 'user_message')).toHaveLength(1);
    expect(m.at(-1)).toEqual(['assistant_message', 'Hello world', 'Code calls itself...']);
  });

  it('a manager\'s task to a sub-agent is the manager speaking to it, even when a planning call comes first', async () => {
    const m = await chat((t) => {
      const manager = t.span('manager.run', { durationMs: 900, attributes: OI('AGENT', { 'agent.name': 'manager', 'input.value': JSON.stringify({ task: 'Find the population of Lisbon and double it.' }) }) });
      t.span('planning', { parent: manager, at: 1, durationMs: 50, attributes: OI('LLM', {
        'llm.input_messages.0.message.role': 'user', 'llm.input_messages.0.message.content': 'Here is your task:\nFind the population of Lisbon and double it.\nMake a plan.',
        'llm.output_messages.0.message.role': 'assistant', 'llm.output_messages.0.message.content': '1. Ask the search agent. 2. Double it.',
      }) });
      const sub = t.span('search_agent.run', { parent: manager, at: 100, durationMs: 300, attributes: OI('AGENT', { 'agent.name': 'search_agent', 'input.value': 'Look up the population of Lisbon.' }) });
      t.span('search llm', { parent: sub, at: 110, durationMs: 100, attributes: OI('LLM', {
        'llm.input_messages.0.message.role': 'user', 'llm.input_messages.0.message.content': 'Look up the population of Lisbon.',
        'llm.output_messages.0.message.role': 'assistant', 'llm.output_messages.0.message.content': 'About 545,000.',
      }) });
      t.span('final llm', { parent: manager, at: 500, durationMs: 100, attributes: OI('LLM', {
        'llm.output_messages.0.message.role': 'assistant', 'llm.output_messages.0.message.content': 'Doubled: about 1,090,000.',
      }) });
    });
    expect(m[0]).toEqual(['user_message', 'User', 'Find the population of Lisbon and double it.']);
    expect(m.filter((x) => x[0] === 'user_message')).toHaveLength(1); // the planning prompt holds the task: not the user again
    expect(m.filter((x) => x[0] === 'agent_handoff')).toEqual([['agent_handoff', 'manager', 'Look up the population of Lisbon.']]);
    expect(m.at(-1)).toEqual(['assistant_message', 'manager', 'Doubled: about 1,090,000.']);
  });

  it('a framework\'s formatted prompt is not the user speaking again; a JSON-quoted question is the question', async () => {
    const m = await chat((t) => {
      const mod = t.span('Predict(StringSignature).forward', { durationMs: 500, attributes: OI('CHAIN', { 'input.value': JSON.stringify('What is the capital of Portugal?') }) });
      t.span('LM.__call__', { parent: mod, at: 5, durationMs: 300, attributes: OI('LLM', {
        'llm.input_messages.0.message.role': 'system', 'llm.input_messages.0.message.content': 'Your input fields are:\n1. `question` (str)',
        'llm.input_messages.1.message.role': 'user', 'llm.input_messages.1.message.content': '[[ ## question ## ]]\nWhat is the capital of Portugal?\n\nRespond with the corresponding output fields.',
        'llm.output_messages.0.message.role': 'assistant', 'llm.output_messages.0.message.content': 'Lisbon',
      }) });
    });
    expect(m.filter((x) => x[0] === 'user_message')).toEqual([['user_message', 'User', 'What is the capital of Portugal?']]);
    expect(m.at(-1)).toEqual(['assistant_message', null, 'Lisbon']);
  });

  it('None is no bubble; an answer stored as a Python dict shows as its text', async () => {
    const m = await chat((t) => {
      const agent = t.span('Agent.run', { durationMs: 500, attributes: OI('AGENT', { 'agent.name': 'weather', 'input.value': 'Weather in Oslo?', 'output.value': "{'result': 'Oslo: 4°C.\\nBring a coat.'}" }) });
      t.span('OpenAIChat.invoke', { parent: agent, at: 5, durationMs: 100, attributes: OI('LLM', {
        'llm.input_messages.0.message.role': 'user', 'llm.input_messages.0.message.content': 'Weather in Oslo?', 'output.value': 'None',
      }) });
    });
    const texts = m.filter((x) => x[0] === 'assistant_message').map((x) => x[2]);
    expect(texts).not.toContain('None');
    expect(texts.at(-1)).toBe('Oslo: 4°C.\nBring a coat.');
  });

  it('framework event spans recorded as agents are never agents: no card, no handoff', async () => {
    const m = await chat((t) => {
      const agent = t.span('beeai-agent', { durationMs: 900, attributes: OI('AGENT', { 'agent.name': 'ReActAgent', 'input.value': 'Weather in Lima?' }) });
      for (let i = 0; i < 3; i++) t.span('partial_update', { parent: agent, at: 10 + i, durationMs: 1, attributes: OI('AGENT', { 'agent.name': 'partial_update' }) });
      t.span('llm', { parent: agent, at: 50, durationMs: 100, attributes: OI('LLM', { 'llm.output_messages.0.message.role': 'assistant', 'llm.output_messages.0.message.content': 'Sunny, 22°C.' }) });
    });
    expect(m.filter((x) => x[1] === 'partial_update' || x[2] === 'partial_update')).toEqual([]);
    expect(m.map((x) => x[0])).toEqual(['user_message', 'agent_start', 'assistant_message']);
  });

  it('AutoGen messages: the system prompt is not the user; calls and results are the model\'s and the tool\'s', async () => {
    const m = await chat((t) => {
      t.span('autogen create', { durationMs: 100, attributes: OI('LLM', {
        'input.value': JSON.stringify([
          { type: 'SystemMessage', content: 'You are a helpful AI assistant. Solve tasks using your tools.' },
          { type: 'UserMessage', content: 'What is 6 times 7?', source: 'user' },
          { type: 'AssistantMessage', content: [{ id: 'call_1', name: 'multiply', arguments: '{"a": 6, "b": 7}' }], source: 'assistant' },
          { type: 'FunctionExecutionResultMessage', content: [{ call_id: 'call_1', name: 'multiply', content: '42', is_error: false }] },
        ]),
        'output.value': JSON.stringify({ finish_reason: 'stop', content: '6 times 7 is 42.' }),
      }) });
    });
    expect(m.filter((x) => x[0] === 'user_message')).toEqual([['user_message', 'User', 'What is 6 times 7?']]);
    expect(m.at(-1)![2]).toBe('6 times 7 is 42.');
  });
});
