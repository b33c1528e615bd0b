/**
 * The user is the user (issue 18 item 2), whoever emitted the trace: spans shaped as the emitters named in
 * the issue write them (attribute keys and value spellings from their instrumentations' source: OpenInference
 * `input.value` / `output.value` / `llm.input_messages.N.*`, Python `str()` of values, AutoGen's message
 * classes), imported through the OTLP importer into a real SQLite store and read through `chat.trace`.
 * The emitter corpus (test/http/emitter-corpus.test.ts) checks the same on real traces: the user's question
 * first and once, tasks between agents as handoffs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { traceBuilder, type SpanHandle } from '../helpers/otlp.js';
import { importBuffer } from '../../src/main/service/ingest/index.js';
import { call, tempContext } from './chat-fixture.js';

let ctx: Awaited<ReturnType<typeof tempContext>>;
beforeAll(async () => {
  ctx = await tempContext();
});
afterAll(async () => ctx?.stores.close());

let n = 0;
/** The messages of the last chat() call, whole. */
let last: any[] = [];
/** Imports the trace `build` makes and answers its chat as [type, speaker, text] rows. */
async function chat(build: (t: ReturnType<typeof traceBuilder>) => void) {
  const t = traceBuilder({ seed: `speakers-${++n}` });
  build(t);
  const req = t.request() as any;
  const report = await importBuffer(ctx.traces, Buffer.from(JSON.stringify(req)), { contentType: 'application/json', projectId: 'speakers' });
  expect(report.errors).toEqual([]);
  const turn = (await call('chat.trace', { project_id: 'speakers', trace_id: req.resourceSpans[0].scopeSpans[0].spans[0].traceId }, ctx)) as any;
  last = turn.messages;
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

/**
 * Python BeeAI through OpenInference's BeeAI instrumentation (Arize-ai/openinference
 * python/instrumentation/openinference-instrumentation-beeai: middleware.py @ 19c7b3878f24, utils/build_trace_tree.py
 * and utils/get_serialized_object_safe.py @ 87f319c400d6): one span per framework event under a `beeai-framework-main`
 * span, events named in snake_case (`partial_update`, `tool_success`); the agent's `tool_start` / `tool_success`
 * carry no data (the serializer has no branch for them), the agent's `update` events carry `thought`, `tool.name`,
 * `tool.parameters` and `output.value` (the tool's output, or the final answer), every agent event is of kind AGENT;
 * the main span's output is `str()` of a dict. The first test leaves the tool runs' own events out; the second has
 * them as the sources write them: each event of the tool's run is a child of the agent's latest event when the run
 * starts (utils/id_name_manager.py: parent = the last event of the parent run), named `tool.<namespace>.<event>`
 * (`start`, `success` with `output.value` = `str(output)`, `error` with `exception.message` / `.type` /
 * `.stacktrace`, `finish`), status OK whatever happened (utils/create_span.py); a ReAct agent emits no
 * `tool_start` (i-am-bee/beeai-framework python/beeai_framework/agents/react/agent.py @ 06f0d53add03) and feeds a
 * failed tool's error back to the model as the tool's output, rendered by its `tool_error` template
 * (agents/react/runners/default/runner.py @ 07876be1e103), reported in `partial_update` / `update`.
 */
describe('every step (issue 18 item 3)', () => {
  it('Python BeeAI ReAct: both tools shown once with their input and output, no `partial_update` agent, the answer as text', async () => {
    const m = await chat((t) => {
      const main = t.span('beeai-framework-main', { durationMs: 3000, attributes: OI('AGENT', {
        source: 'ReActAgent', 'beeai.version': '0.1.17', 'input.value': 'Who was Ada Lovelace, and what is the weather in London?',
        'output.value': "{'role': 'assistant', 'text': 'Ada Lovelace wrote the first published program.\\nLondon: 12°C, light rain.'}",
      }) });
      const ev = (parent: SpanHandle, target: string, at: number, extra: Record<string, string> = {}) => {
        const name = target.split('.').at(-1)!;
        t.span(`${target}-${at}`, { parent, at, durationMs: 0, attributes: { target, name, traceId: 'beeai-run-1', ...extra } });
      };
      const step = (i: number, at: number, tool: { name: string; input: string; output: string } | null, answer?: string) => {
        const group = t.span(`iteration-${i}`, { parent: main, at, durationMs: 900, attributes: { target: 'groupId', name: `iteration-${i}`, traceId: 'beeai-run-1', 'openinference.span.kind': 'CHAIN' } });
        const said = tool ? `Thought: I need ${tool.name}.\nFunction Name: ${tool.name}\nFunction Input: ${tool.input}\n` : `Thought: I can answer.\nFinal Answer: ${answer}`;
        ev(group, 'backend.ollama.chat.start', at + 1, { 'openinference.span.kind': 'LLM', 'llm.model_name': 'granite3.3:8b', 'input.value': JSON.stringify([{ role: 'user', content: [{ type: 'text', text: 'Message: Who was Ada Lovelace, and what is the weather in London?' }] }]) });
        ev(group, 'agent.react.start', at + 2, { 'openinference.span.kind': 'AGENT', iteration: String(i) });
        ev(group, 'agent.react.partial_update', at + 3, { 'openinference.span.kind': 'AGENT', thought: `I need ${tool?.name ?? 'nothing'}.` });
        ev(group, 'backend.ollama.chat.success', at + 100, { 'openinference.span.kind': 'LLM', 'llm.model_name': 'granite3.3:8b', 'output.value': JSON.stringify([{ role: 'assistant', content: [{ type: 'text', text: said }] }]) });
        if (tool) {
          ev(group, 'agent.react.update', at + 101, { 'openinference.span.kind': 'AGENT', thought: `I need ${tool.name}.`, 'tool.name': tool.name, 'tool.parameters': tool.input });
          ev(group, 'agent.react.tool_start', at + 102);
          ev(group, 'agent.react.tool_success', at + 300);
          ev(group, 'agent.react.partial_update', at + 301, { 'openinference.span.kind': 'AGENT', thought: `I need ${tool.name}.`, 'tool.name': tool.name, 'tool.parameters': tool.input, 'output.value': tool.output });
          ev(group, 'agent.react.update', at + 302, { 'openinference.span.kind': 'AGENT', thought: `I need ${tool.name}.`, 'tool.name': tool.name, 'tool.parameters': tool.input, 'output.value': tool.output });
        } else {
          ev(group, 'agent.react.update', at + 101, { 'openinference.span.kind': 'AGENT', thought: 'I can answer.', 'output.value': answer! });
        }
      };
      step(1, 10, { name: 'Wikipedia', input: '{"query": "Ada Lovelace"}', output: 'Ada Lovelace (1815-1852) was an English mathematician.' });
      step(2, 1000, { name: 'OpenMeteoTool', input: '{"location_name": "London"}', output: '{"temperature_2m": 12, "rain": 0.4}' });
      step(3, 2000, null, 'Ada Lovelace wrote the first published program.\nLondon: 12°C, light rain.');
    });
    expect(m.filter((x) => x[0] === 'tool_call')).toEqual([['tool_call', 'ReActAgent', 'Wikipedia'], ['tool_call', 'ReActAgent', 'OpenMeteoTool']]);
    expect(last.filter((x) => x.type === 'tool_call').map((x) => [JSON.parse(x.tool_call.tool_arguments), x.tool_call.tool_result])).toEqual([
      [{ query: 'Ada Lovelace' }, 'Ada Lovelace (1815-1852) was an English mathematician.'],
      [{ location_name: 'London' }, '{"temperature_2m": 12, "rain": 0.4}'],
    ]);
    expect(m.filter((x) => x[0] === 'agent_handoff' || x[1] === 'partial_update' || x[1] === 'update')).toEqual([]);
    expect(m[0]).toEqual(['user_message', 'User', 'Who was Ada Lovelace, and what is the weather in London?']);
    expect(m.at(-1)).toEqual(['assistant_message', 'ReActAgent', 'Ada Lovelace wrote the first published program.\nLondon: 12°C, light rain.']);
  });

  it('Python BeeAI ReAct with the tool runs\' own events: a failed tool is a failed call with its error, each call once', async () => {
    const FAILED = 'The function has failed; the error log is shown below. If the function cannot accomplish what you want, use a different function or explain why you can\'t use it.\n\nWikipedia is unreachable (503)';
    const m = await chat((t) => {
      const main = t.span('beeai-framework-main', { durationMs: 3000, attributes: OI('AGENT', { source: 'ReActAgent', 'beeai.version': '0.1.17', 'input.value': 'Who was Ada Lovelace, and what is the weather in London?' }) });
      const ev = (parent: SpanHandle, target: string, at: number, extra: Record<string, string> = {}) =>
        t.span(`${target}-${at}`, { parent, at, durationMs: 0, status: 'OK', attributes: { target, name: target.split('.').at(-1)!, traceId: 'beeai-run-2', ...extra } });
      const step = (i: number, at: number, tool: { name: string; ns: string; input: string; output: string; error?: string } | null, answer?: string) => {
        const group = t.span(`iteration-${i}`, { parent: main, at, durationMs: 900, attributes: { target: 'groupId', name: `iteration-${i}`, traceId: 'beeai-run-2', 'openinference.span.kind': 'CHAIN' } });
        const said = tool ? `Thought: I need ${tool.name}.\nFunction Name: ${tool.name}\nFunction Input: ${tool.input}\n` : `Thought: I can answer.\nFinal Answer: ${answer}`;
        const start = ev(group, 'agent.react.start', at + 1, { 'openinference.span.kind': 'AGENT', iteration: String(i) });
        ev(start, 'backend.ollama.chat.start', at + 2, { 'openinference.span.kind': 'LLM', 'llm.model_name': 'granite3.3:8b', 'input.value': JSON.stringify([{ role: 'user', content: [{ type: 'text', text: 'Message: Who was Ada Lovelace, and what is the weather in London?' }] }]) });
        ev(start, 'backend.ollama.chat.success', at + 100, { 'openinference.span.kind': 'LLM', 'llm.model_name': 'granite3.3:8b', 'output.value': JSON.stringify([{ role: 'assistant', content: [{ type: 'text', text: said }] }]) });
        if (!tool) return void ev(group, 'agent.react.update', at + 101, { 'openinference.span.kind': 'AGENT', thought: 'I can answer.', 'output.value': answer! });
        const asked = ev(group, 'agent.react.update', at + 101, { 'openinference.span.kind': 'AGENT', thought: `I need ${tool.name}.`, 'tool.name': tool.name, 'tool.parameters': tool.input });
        ev(asked, `tool.${tool.ns}.start`, at + 102, { 'openinference.span.kind': 'TOOL', 'tool.parameters': JSON.stringify(JSON.parse(tool.input)) });
        if (tool.error) ev(asked, `tool.${tool.ns}.error`, at + 290, { 'openinference.span.kind': 'TOOL', 'tool.parameters': JSON.stringify(JSON.parse(tool.input)), 'exception.message': tool.error, 'exception.type': 'ToolError', 'exception.stacktrace': '' });
        else ev(asked, `tool.${tool.ns}.success`, at + 290, { 'openinference.span.kind': 'TOOL', 'tool.parameters': JSON.stringify(JSON.parse(tool.input)), 'output.value': tool.output });
        ev(asked, `tool.${tool.ns}.finish`, at + 291, { 'openinference.span.kind': 'TOOL' });
        for (const [e, d] of [['partial_update', 300], ['update', 301]] as const) {
          ev(group, `agent.react.${e}`, at + d, { 'openinference.span.kind': 'AGENT', thought: `I need ${tool.name}.`, 'tool.name': tool.name, 'tool.parameters': tool.input, 'output.value': tool.output });
        }
      };
      step(1, 10, { name: 'Wikipedia', ns: 'search.wikipedia', input: '{"query": "Ada Lovelace"}', output: FAILED, error: 'Wikipedia is unreachable (503)' });
      step(2, 1000, { name: 'OpenMeteoTool', ns: 'weather.openmeteo', input: '{"location_name": "London"}', output: '{"temperature_2m": 12, "rain": 0.4}' });
      step(3, 2000, null, 'I could not reach Wikipedia. London: 12°C, light rain.');
    });
    expect(m.filter((x) => x[0] === 'tool_call')).toEqual([['tool_call', 'ReActAgent', 'Wikipedia'], ['tool_call', 'ReActAgent', 'OpenMeteoTool']]);
    expect(last.filter((x) => x.type === 'tool_call').map((x) => [JSON.parse(x.tool_call.tool_arguments), x.tool_call.tool_result, x.tool_call.status, x.tool_call.error_type, x.tool_call.error_message])).toEqual([
      [{ query: 'Ada Lovelace' }, FAILED, 'ERROR', 'ToolError', 'Wikipedia is unreachable (503)'],
      [{ location_name: 'London' }, '{"temperature_2m": 12, "rain": 0.4}', 'OK', null, null],
    ]);
    expect(m.at(-1)).toEqual(['assistant_message', 'ReActAgent', 'I could not reach Wikipedia. London: 12°C, light rain.']);
  });
});
