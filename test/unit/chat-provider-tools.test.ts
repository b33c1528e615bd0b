/**
 * Tools the provider runs inside a model call (issue 18 "every step"): OpenAI's Responses API runs
 * `web_search`, `file_search`, `code_interpreter`, remote MCP ... itself and returns the call as an item of
 * the model's output, beside the answer; LangChain's ChatOpenAI keeps those items in the AIMessage, and
 * Langfuse's Python LangChain handler sends that message as the generation's output. They are steps of the
 * turn: each shows as a tool call (its arguments and result), before the answer it fed.
 *
 * Shapes, from the emitters' source (no Python here to capture a run):
 * - the generation observation as langfuse/langfuse-python langfuse/langchain/CallbackHandler.py @ 012fbac9
 *   writes it: input = the flattened prompt messages + one `{role: 'tool', content: <tool definition>}` per
 *   bound tool (`__on_llm_action`); output = `_convert_message_to_dict(AIMessage)` = `{role, content,
 *   tool_calls?, additional_kwargs?}`;
 * - the AIMessage of a Responses answer as langchain-ai/langchain
 *   libs/partners/openai/langchain_openai/chat_models/_compat.py @ 06bdb0f86c3d documents and converts it:
 *   `output_version` 'v0' keeps the tool items in `additional_kwargs.tool_outputs`, 'responses/v1' in
 *   `content` in answer order; LangChain's standard v1 blocks are `server_tool_call` {id, name, args} and
 *   `server_tool_result` {tool_call_id, status, output} (`_consolidate_calls`);
 * - the Responses items themselves (`web_search_call` {id, status, action: {type: 'search', query}},
 *   `file_search_call` {id, queries, results}, `mcp_call` {id, name, server_label, arguments, output},
 *   `computer_call` {id, call_id, action}) as OpenAI's Responses API returns them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { traceBuilder } from '../helpers/otlp.js';
import { importBuffer } from '../../src/main/service/ingest/index.js';
import { normalizeMessages } from '../../src/main/service/ingest/messages.js';
import { call, tempContext } from './chat-fixture.js';

let ctx: Awaited<ReturnType<typeof tempContext>>;
beforeAll(async () => {
  ctx = await tempContext();
});
afterAll(async () => ctx?.stores.close());

const QUESTION = 'Who won the 2026 Tour de France, and what is the weather in Paris?';
const SEARCH = { type: 'web_search_call', id: 'ws_68a1', status: 'completed', action: { type: 'search', query: 'Tour de France 2026 winner' } };
const ANSWER = 'Tadej Pogačar won the 2026 Tour. Paris: 19 °C, cloudy.';
const lf = (type: string, input: unknown, output: unknown, extra: Record<string, string> = {}) => ({
  'langfuse.observation.type': type, 'langfuse.observation.input': JSON.stringify(input), 'langfuse.observation.output': JSON.stringify(output), ...extra,
});

let n = 0;
/**
 * A LangGraph ReAct run through Langfuse's Python handler: the agent node's first model call searched the web
 * on the provider's side and asked for `get_weather`; the tools node ran it; the second model call answered.
 */
async function langgraphRun(first: Record<string, unknown>) {
  const t = traceBuilder({ seed: `provider-tools-${++n}` });
  const tools = [{ type: 'web_search_preview' }, { type: 'function', function: { name: 'get_weather', description: 'Weather now', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
  const prompt = [{ role: 'system', content: 'You are a helpful assistant.' }, { role: 'user', content: QUESTION }];
  const root = t.span('LangGraph', { durationMs: 5000, attributes: { ...lf('chain', { messages: [{ role: 'user', content: QUESTION }] }, { messages: [] }), 'langfuse.internal.is_app_root': 'true' } });
  const agent1 = t.span('agent', { parent: root, at: 10, durationMs: 2000, attributes: lf('agent', { messages: prompt.slice(1) }, { messages: [] }) });
  t.span('ChatOpenAI', { parent: agent1, at: 20, durationMs: 1900, attributes: lf('generation', [...prompt, ...tools.map((x) => ({ role: 'tool', content: x }))], first, { 'langfuse.observation.model.name': 'gpt-4.1-mini' }) });
  const toolsNode = t.span('tools', { parent: root, at: 2100, durationMs: 300, attributes: lf('chain', {}, {}) });
  // The tool's output: the ToolMessage as Langfuse's serializer dumps a pydantic model.
  t.span('get_weather', { parent: toolsNode, at: 2110, durationMs: 200, attributes: lf('tool', "{'city': 'Paris'}", { content: '19 °C, cloudy', additional_kwargs: {}, response_metadata: {}, type: 'tool', name: 'get_weather', id: null, tool_call_id: 'call_w1', artifact: null, status: 'success' }) });
  const agent2 = t.span('agent', { parent: root, at: 2500, durationMs: 2000, attributes: lf('agent', {}, {}) });
  t.span('ChatOpenAI', { parent: agent2, at: 2510, durationMs: 1900, attributes: lf('generation', [...prompt, { role: 'assistant', content: '', tool_calls: [{ name: 'get_weather', args: { city: 'Paris' }, id: 'call_w1', type: 'tool_call' }] }, { role: 'tool', content: '19 °C, cloudy', tool_call_id: 'call_w1' }], { role: 'assistant', content: ANSWER }, { 'langfuse.observation.model.name': 'gpt-4.1-mini' }) });
  const req = t.request() as any;
  const report = await importBuffer(ctx.traces, Buffer.from(JSON.stringify(req)), { contentType: 'application/json', projectId: 'provider-tools' });
  expect(report.errors).toEqual([]);
  const turn = (await call('chat.trace', { project_id: 'provider-tools', trace_id: req.resourceSpans[0].scopeSpans[0].spans[0].traceId }, ctx)) as any;
  // (LangGraph's node named "agent" is recorded as an agent observation: its start cards are left out here.)
  return (turn.messages as any[]).filter((m) => m.type !== 'agent_start').map((m) => {
    const p = m[m.type];
    return m.type === 'tool_call' ? [m.type, p.tool_name, JSON.parse(p.tool_arguments ?? 'null'), p.tool_result] : [m.type, p.text];
  });
}

/** What every shape below must read as: both model calls, the web search before the answer it fed, the client tool after. */
const EXPECTED = [
  ['user_message', QUESTION],
  ['tool_call', 'web_search', { type: 'search', query: 'Tour de France 2026 winner' }, 'completed'],
  ['assistant_message', 'Searching done; checking the weather.'],
  ['tool_call', 'get_weather', { city: 'Paris' }, '19 °C, cloudy'],
  ['assistant_message', ANSWER],
];
const CALL = { tool_calls: [{ name: 'get_weather', args: { city: 'Paris' }, id: 'call_w1', type: 'tool_call' }] };

describe('tools the provider ran inside a model call', () => {
  it('LangChain v0 (`additional_kwargs.tool_outputs`) through Langfuse\'s Python handler: the web search is a step', async () => {
    expect(await langgraphRun({
      role: 'assistant', content: [{ type: 'text', text: 'Searching done; checking the weather.', annotations: [{ type: 'url_citation', url: 'https://example.org/tdf', title: 'TdF' }] }],
      ...CALL, additional_kwargs: { tool_outputs: [SEARCH] },
    })).toEqual(EXPECTED);
  });

  it('LangChain `responses/v1` (the items in the content, in answer order)', async () => {
    expect(await langgraphRun({
      role: 'assistant', content: [{ type: 'reasoning', summary: [], id: 'rs_1' }, SEARCH, { type: 'text', text: 'Searching done; checking the weather.', annotations: [], id: 'msg_1' }],
      ...CALL,
    })).toEqual(EXPECTED);
  });

  it('LangChain standard v1 blocks (`server_tool_call` / `server_tool_result`)', async () => {
    expect(await langgraphRun({
      role: 'assistant', content: [
        { type: 'server_tool_call', name: 'web_search', id: 'ws_68a1', args: { type: 'search', query: 'Tour de France 2026 winner' } },
        { type: 'server_tool_result', tool_call_id: 'ws_68a1', status: 'success', output: 'completed' },
        { type: 'text', text: 'Searching done; checking the weather.' },
      ],
      ...CALL,
    })).toEqual(EXPECTED);
  });
});

describe('Responses tool items as messages', () => {
  it('provider-run items are a call and its result; client-run items (call_id) a call answered later; other items unchanged', () => {
    const out = normalizeMessages([
      SEARCH,
      { type: 'file_search_call', id: 'fs_1', status: 'completed', queries: ['refund policy'], results: [{ file_id: 'f1', text: '30 days' }] },
      { type: 'mcp_call', id: 'mcp_1', name: 'search_issues', server_label: 'github', arguments: '{"q":"bug"}', output: '2 issues' },
      { type: 'computer_call', id: 'cu_1', call_id: 'call_c1', status: 'completed', action: { type: 'click', x: 10, y: 20 } },
      { type: 'computer_call_output', call_id: 'call_c1', output: { type: 'computer_screenshot', image_url: 'data:,' } },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Done.' }] },
    ], 'assistant');
    expect(out.map((m) => [m.role, m.parts.map((p) => [p.type, p.id, p.name ?? null, p.arguments ?? p.response])])).toEqual([
      ['assistant', [['tool_call', 'ws_68a1', 'web_search', { type: 'search', query: 'Tour de France 2026 winner' }], ['tool_call_response', 'ws_68a1', 'web_search', 'completed']]],
      ['assistant', [['tool_call', 'fs_1', 'file_search', { queries: ['refund policy'] }], ['tool_call_response', 'fs_1', 'file_search', [{ file_id: 'f1', text: '30 days' }]]]],
      ['assistant', [['tool_call', 'mcp_1', 'search_issues', { q: 'bug' }], ['tool_call_response', 'mcp_1', 'search_issues', '2 issues']]],
      ['assistant', [['tool_call', 'call_c1', 'computer', { type: 'click', x: 10, y: 20 }]]],
      ['tool', [['tool_call_response', 'call_c1', null, { type: 'computer_screenshot', image_url: 'data:,' }]]],
      ['assistant', [['text', undefined, null, undefined]]],
    ]);
  });

  it('Anthropic server-tool results (`web_search_tool_result`) answer their `server_tool_use`', () => {
    const [m] = normalizeMessages([{ role: 'assistant', content: [
      { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'weather Paris' } },
      { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [{ type: 'web_search_result', url: 'https://example.org', title: 'Paris weather' }] },
      { type: 'text', text: 'Paris: 19 °C.' },
    ] }], 'assistant');
    expect(m!.parts.map((p) => [p.type, p.id])).toEqual([['tool_call', 'srvtoolu_1'], ['tool_call_response', 'srvtoolu_1'], ['text', undefined]]);
  });

  it('a client tool call (`tool_call` / `function_call`) is never given an invented result', () => {
    const out = normalizeMessages([
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'c1', name: 'get_weather', arguments: { city: 'Paris' } }] },
      { type: 'function_call', call_id: 'c2', name: 'get_weather', arguments: '{"city":"Rome"}' },
    ], 'assistant');
    expect(out.map((m) => m.parts.map((p) => [p.type, p.id]))).toEqual([[['tool_call', 'c1']], [['tool_call', 'c2']]]);
  });
});
