/**
 * Every message carrier of docs/ingest.md's table, read from attributes shaped as the emitter writes
 * them (the emitters with real traces in test/fixtures/emitters/ are also read end to end there):
 * what the span's input and output messages, tool arguments/result, conversation and usage become.
 */
import { describe, expect, it } from 'vitest';
import { walkRequest } from '../../src/main/service/ingest/otlp.js';
import type { SpanRecord } from '../../src/main/domain/span.js';
import { buildMessages } from '../../src/main/domain/chat/walk.js';
import { normalizedSpan, traceBuilder } from '../helpers/otlp.js';

const norm = normalizedSpan;
/** [role, text parts joined] of each message. */
const said = (msgs: SpanRecord['input_messages']) => msgs.map((m) => [m.role, m.parts.filter((p) => p.type === 'text').map((p) => p.content).join('')]);
const calls = (msgs: SpanRecord['output_messages']) => msgs.flatMap((m) => m.parts.filter((p) => p.type === 'tool_call').map((p) => [p.id, p.name, p.arguments]));

describe('message carriers (docs/ingest.md)', () => {
  it('Strands: message events with content blocks; gen_ai.choice message as blocks; toolUse / toolResult', () => {
    const s = norm('chat', { 'gen_ai.operation.name': 'chat' }, { events: [
      { name: 'gen_ai.system.message', attributes: { content: JSON.stringify([{ text: 'Be brief.' }]) } },
      { name: 'gen_ai.user.message', attributes: { content: JSON.stringify([{ text: 'Weather in Oslo?' }]) } },
      { name: 'gen_ai.assistant.message', attributes: { content: JSON.stringify([{ toolUse: { toolUseId: 't1', name: 'weather', input: { city: 'Oslo' } } }]) } },
      { name: 'gen_ai.tool.message', attributes: { content: JSON.stringify([{ toolResult: { toolUseId: 't1', status: 'success', content: [{ text: 'rain' }] } }]), id: 't1' } },
      { name: 'gen_ai.choice', attributes: { message: JSON.stringify([{ text: 'It rains in Oslo.' }]), finish_reason: 'end_turn' } },
    ] });
    expect(said(s.input_messages)).toEqual([['system', 'Be brief.'], ['user', 'Weather in Oslo?'], ['assistant', ''], ['tool', '']]);
    expect(calls(s.input_messages)).toEqual([['t1', 'weather', { city: 'Oslo' }]]);
    expect(s.input_messages[3]!.parts[0]).toMatchObject({ type: 'tool_call_response', id: 't1', response: 'rain' });
    expect(said(s.output_messages)).toEqual([['assistant', 'It rains in Oslo.']]);
    expect(s.system_instructions).toEqual(['Be brief.']);
  });

  it('Strands (latest conventions): one gen_ai.client.inference.operation.details event', () => {
    const s = norm('chat', { 'gen_ai.operation.name': 'chat' }, { events: [{ name: 'gen_ai.client.inference.operation.details', attributes: {
      'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'Hi' }] }]),
      'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'Hello' }], finish_reason: 'stop' }]),
    } }] });
    expect([said(s.input_messages), said(s.output_messages)]).toEqual([[['user', 'Hi']], [['assistant', 'Hello']]]);
  });

  it('Strands tool span: arguments and result from its events', () => {
    const s = norm('execute_tool weather', { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'weather' }, { events: [
      { name: 'gen_ai.tool.message', attributes: { role: 'tool', content: JSON.stringify({ city: 'Oslo' }), id: 't1' } },
      { name: 'gen_ai.choice', attributes: { message: JSON.stringify([{ text: 'rain' }]), id: 't1' } },
    ] });
    expect([s.tool_call_arguments, s.tool_call_result]).toEqual(['{"city":"Oslo"}', 'rain']);
  });

  it('Semantic Kernel: message events carry gen_ai.event.content', () => {
    const s = norm('chat.completions gpt-4o', { 'gen_ai.operation.name': 'chat.completions' }, { events: [
      { name: 'gen_ai.user.message', attributes: { 'gen_ai.event.content': JSON.stringify({ role: 'user', content: 'Why is the sky blue?' }) } },
      { name: 'gen_ai.choice', attributes: { 'gen_ai.event.content': JSON.stringify({ message: { role: 'assistant', content: 'Rayleigh scattering.' }, finish_reason: 'stop' }) } },
    ] });
    expect([s.operation_name, said(s.input_messages), said(s.output_messages)]).toEqual(['chat', [['user', 'Why is the sky blue?']], [['assistant', 'Rayleigh scattering.']]]);
  });

  it('Google ADK: llm_request / llm_response with model role and function parts; tool args / response; session', () => {
    const s = norm('call_llm', {
      'gen_ai.system': 'gcp.vertex.agent', 'gen_ai.request.model': 'gemini-2.0-flash', 'gcp.vertex.agent.session_id': 's-9',
      'gcp.vertex.agent.llm_request': JSON.stringify({ model: 'gemini-2.0-flash', config: { system_instruction: 'You are a weather bot.' }, contents: [
        { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
        { role: 'model', parts: [{ function_call: { id: 'fc1', name: 'get_weather', args: { city: 'Paris' } } }] },
        { role: 'user', parts: [{ function_response: { id: 'fc1', name: 'get_weather', response: { result: 'sunny' } } }] },
      ] }),
      'gcp.vertex.agent.llm_response': JSON.stringify({ content: { role: 'model', parts: [{ text: 'Sunny in Paris.' }] }, finish_reason: 'STOP' }),
    });
    expect(s).toMatchObject({ operation_name: 'chat', conversation_id: 's-9', system_instructions: ['You are a weather bot.'] });
    expect(said(s.input_messages)).toEqual([['user', 'Weather in Paris?'], ['assistant', ''], ['tool', '']]);
    expect(calls(s.input_messages)).toEqual([['fc1', 'get_weather', { city: 'Paris' }]]);
    expect(said(s.output_messages)).toEqual([['assistant', 'Sunny in Paris.']]);
    const t = norm('execute_tool get_weather', { 'gen_ai.operation.name': 'execute_tool', 'gcp.vertex.agent.tool_call_args': '{"city":"Paris"}', 'gcp.vertex.agent.tool_response': '{"result":"sunny"}' });
    expect([t.tool_name, t.tool_call_arguments, t.tool_call_result]).toEqual(['get_weather', '{"city":"Paris"}', '{"result":"sunny"}']);
  });

  it('Langfuse SDK: observation type, input/output, model, usage and cost details, session and user', () => {
    const s = norm('llm-call', {
      'langfuse.observation.type': 'generation', 'langfuse.observation.model.name': 'gpt-4o-mini',
      'langfuse.observation.input': JSON.stringify([{ role: 'user', content: 'Hi' }]),
      'langfuse.observation.output': JSON.stringify({ role: 'assistant', content: 'Hello!' }),
      'langfuse.observation.usage_details': JSON.stringify({ input: 12, output: 3, total: 15 }),
      'langfuse.observation.cost_details': JSON.stringify({ input: 0.001, output: 0.002, total: 0.003 }),
      'langfuse.session.id': 'sess-1', 'langfuse.user.id': 'u-1',
    });
    expect(s).toMatchObject({ operation_name: 'chat', request_model: 'gpt-4o-mini', input_tokens: 12, output_tokens: 3, total_cost_usd: 0.003, conversation_id: 'sess-1', svc_user_id: 'u-1' });
    expect([said(s.input_messages), said(s.output_messages)]).toEqual([[['user', 'Hi']], [['assistant', 'Hello!']]]);
    const tool = norm('search_docs', { 'langfuse.observation.type': 'tool', 'langfuse.observation.input': '{"q":"refund"}', 'langfuse.observation.output': '["KB-1"]' });
    expect([tool.operation_name, tool.tool_name, tool.tool_call_arguments, tool.tool_call_result, tool.input_messages]).toEqual(['execute_tool', 'search_docs', '{"q":"refund"}', '["KB-1"]', []]);
    expect(norm('billing-agent', { 'langfuse.observation.type': 'agent' })).toMatchObject({ operation_name: 'invoke_agent', agent_name: 'billing-agent' });
    const failed = norm('step', { 'langfuse.observation.level': 'ERROR', 'langfuse.observation.status_message': 'upstream 503' });
    expect([failed.status_code, failed.status_message]).toEqual(['ERROR', 'upstream 503']);
  });

  it('LangGraph through Langfuse / OpenInference chains: a state {messages} output keeps only its answer; tuples and serialized messages read', () => {
    const s = norm('LangGraph', {
      'openinference.span.kind': 'CHAIN',
      'input.value': JSON.stringify({ messages: [['user', 'What is 2+2?']] }),
      'output.value': JSON.stringify({ messages: [
        { type: 'human', content: 'What is 2+2?' },
        { type: 'ai', content: '', tool_calls: [{ name: 'add', args: { a: 2, b: 2 }, id: 'c1' }] },
        { type: 'tool', content: '4', tool_call_id: 'c1' },
        { lc: 1, type: 'constructor', id: ['langchain', 'schema', 'messages', 'AIMessage'], kwargs: { content: '2+2 is 4.', type: 'ai' } },
      ] }),
    });
    expect([said(s.input_messages), said(s.output_messages)]).toEqual([[['user', 'What is 2+2?']], [['assistant', '2+2 is 4.']]]);
  });

  it('roles: model / ai / human / function map to the interface roles', () => {
    const s = norm('chat', { 'gen_ai.operation.name': 'chat', 'gen_ai.input.messages': JSON.stringify([
      { role: 'human', content: 'a' }, { role: 'ai', content: 'b' }, { role: 'model', content: 'c' }, { role: 'function', content: 'd', name: 'f' }, { role: 'developer', content: 'e' },
    ]) });
    expect(s.input_messages.map((m) => m.role)).toEqual(['user', 'assistant', 'assistant', 'tool', 'system']);
  });

  it('streamed chunks (one output message per chunk) are one message; separate choices stay apart', () => {
    const chunks = norm('llm', {
      'openinference.span.kind': 'LLM',
      'llm.output_messages.0.message.role': 'assistant', 'llm.output_messages.0.message.content': 'The answer',
      'llm.output_messages.1.message.role': 'assistant', 'llm.output_messages.1.message.content': ' is 4',
      'llm.output_messages.2.message.role': 'assistant', 'llm.output_messages.2.message.content': '.',
    });
    expect(said(chunks.output_messages)).toEqual([['assistant', 'The answer is 4.']]);
    const choices = norm('chat', { 'gen_ai.operation.name': 'chat', 'gen_ai.output.messages': JSON.stringify([
      { role: 'assistant', parts: [{ type: 'text', content: 'One.' }], finish_reason: 'stop' },
      { role: 'assistant', parts: [{ type: 'text', content: 'Two.' }], finish_reason: 'stop' },
    ]) });
    expect(said(choices.output_messages)).toEqual([['assistant', 'One.'], ['assistant', 'Two.']]);
  });

  it('tool outputs are tool results, never assistant text (Koog-style tool result in an output)', () => {
    const s = norm('chat', { 'gen_ai.operation.name': 'chat', 'gen_ai.output.messages': JSON.stringify([
      { role: 'assistant', parts: [{ type: 'tool_call_response', id: 'call_1', response: { temp: 21 } }] },
    ]) });
    expect(s.output_messages[0]!.role).toBe('tool');
    const m = buildMessages([s]);
    expect(m.filter((x) => x.type === 'assistant_message' && x.assistant_message!.text)).toEqual([]);
  });

  it('errors: exception events give the error type and message of a failed span', () => {
    const s = norm('execute_tool get_invoice', { 'gen_ai.operation.name': 'execute_tool' }, {
      status: 'ERROR', events: [{ name: 'exception', attributes: { 'exception.type': 'TimeoutError', 'exception.message': 'no answer in 10 s' } }],
    });
    expect([s.error_type, s.status_message]).toEqual(['TimeoutError', 'no answer in 10 s']);
    const [bubble] = buildMessages([s]);
    expect(bubble!.tool_call).toMatchObject({ status: 'ERROR', error_type: 'TimeoutError', error_message: 'no answer in 10 s' });
  });

  it('a model tool call without a tool span is a tool_call message whose result is found by call id', () => {
    const t = traceBuilder();
    const root = t.span('invoke_agent bot', { attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'bot' }, durationMs: 1000 });
    t.span('chat', { parent: root, at: 1, attributes: { 'gen_ai.operation.name': 'chat',
      'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'Files?' }] }]),
      'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'tool_call', id: 'tu1', name: 'Bash', arguments: { command: 'ls' } }] }]) } });
    t.span('chat', { parent: root, at: 500, attributes: { 'gen_ai.operation.name': 'chat',
      'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'Files?' }] },
        { role: 'user', parts: [{ type: 'tool_call_response', id: 'tu1', response: 'a.txt' }] }]),
      'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'One file: a.txt.' }] }]) } });
    const spans: SpanRecord[] = [];
    walkRequest(t.request(), undefined, { span: (s) => spans.push(s), skip: () => undefined });
    const m = buildMessages(spans);
    expect(m.map((x) => [x.type, x.agent_name])).toEqual([
      ['user_message', 'User'], ['agent_start', 'bot'], ['assistant_message', 'bot'], ['tool_call', 'bot'], ['assistant_message', 'bot'],
    ]);
    expect(m[3]!.tool_call).toMatchObject({ tool_name: 'Bash', tool_arguments: '{"command":"ls"}', tool_result: 'a.txt' });
  });
});
