/**
 * The chat and feedback operations over a real server on port 0, with data sent as OTLP JSON to
 * POST /v1/traces (the path stock exporters use).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RunningLoupe } from '../../src/main/serve.js';
import { startTestServer } from './server-harness.js';
import { chatAttributes, traceBuilder } from '../helpers/otlp.js';
import { samplesDir } from '../helpers/paths.js';

const samples = samplesDir;
const P = 'acme/http';
let app: RunningLoupe;

const post = async (p: string, body: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(`${app.url}${p}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
};

/** A turn of conversation `conv`: invoke_agent → chat (tool call) → execute_tool → chat (answer). */
function turn(seed: string, conv: string, startMs: number, question: string) {
  const t = traceBuilder({ seed, start: Date.parse('2026-11-22T10:00:00Z') + startMs });
  const root = t.span('invoke_agent Support', { durationMs: 3000, attributes: {
    'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'Support', 'gen_ai.conversation.id': conv, 'gen_ai.request.model': 'gpt-4o-mini',
  } });
  t.span('chat gpt-4o-mini', { parent: root, at: 10, durationMs: 800, attributes: chatAttributes({
    model: 'gpt-4o-mini', conversationId: conv, inputTokens: 100, outputTokens: 10,
    input: [{ role: 'user', content: question }],
    output: [{ role: 'assistant', toolCalls: [{ id: 'c1', name: 'lookup_order', arguments: { id: 'A-1' } }], finish_reason: 'tool_calls' }],
  }) });
  // No conversation id on the tool span: it stays in its turn.
  t.span('execute_tool lookup_order', { parent: root, at: 900, durationMs: 50, attributes: {
    'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup_order', 'gen_ai.tool.call.arguments': '{"id":"A-1"}', 'gen_ai.tool.call.result': '{"eta":"soon"}',
  } });
  t.span('chat gpt-4o-mini', { parent: root, at: 1000, durationMs: 900, attributes: chatAttributes({
    model: 'gpt-4o-mini', conversationId: conv, inputTokens: 200, outputTokens: 20,
    input: [{ role: 'user', content: question }, { role: 'tool', content: '{"eta":"soon"}' }],
    output: [{ role: 'assistant', content: `answer to ${question}` }],
  }) });
  return t;
}

beforeAll(async () => {
  app = await startTestServer({ dataDir: mkdtempSync(path.join(tmpdir(), 'loupe-chat-http-')) });
  const turns = [0, 1, 2].map((i) => turn(`chat-http-${i}`, 'conv-h', i * 60_000, `question ${i}`));
  // A mirrored agent: the answer lives only on the invoke_agent span, which repeats its children's usage.
  const m = traceBuilder({ seed: 'mirror', start: Date.parse('2026-11-22T11:00:00Z') });
  const root = m.span('invoke_agent Mirror', { durationMs: 2000, attributes: {
    'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'Mirror', 'gen_ai.usage.input_tokens': 70, 'gen_ai.usage.output_tokens': 7,
    'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'hi' }] }]),
    'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'mirrored answer' }] }]),
  } });
  m.span('chat a', { parent: root, at: 10, durationMs: 100, attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'm', 'gen_ai.usage.input_tokens': 30, 'gen_ai.usage.output_tokens': 3 } });
  m.span('chat b', { parent: root, at: 200, durationMs: 100, attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'm', 'gen_ai.usage.input_tokens': 40, 'gen_ai.usage.output_tokens': 4 } });
  const body = { resourceSpans: [...turns, m].map((t) => t.request().resourceSpans[0]) };
  const r = await post('/v1/traces', body, { 'x-project-id': P });
  expect(r.status).toBe(200);
  (globalThis as any).traces = { turns: turns.map((t) => t.traceId), mirror: m.traceId };
}, 60_000);
afterAll(async () => app?.close());

const ids = () => (globalThis as any).traces as { turns: string[]; mirror: string };

describe('POST /agents/conversations/chat over HTTP', () => {
  it('limit 2 of 3 → newest two, oldest first, has_more; offset past the end → empty', async () => {
    const r = await post('/agents/conversations/chat', { project_id: P, conversation_id: 'conv-h', limit: 2 });
    expect(r.status).toBe(200);
    expect(r.body.turns.map((t: any) => t.trace_id)).toEqual(ids().turns.slice(1));
    expect(r.body).toMatchObject({ total_turns: 3, has_more: true, limit: 2, offset: 0 });
    const past = await post('/agents/conversations/chat', { project_id: P, conversation_id: 'conv-h', offset: 5 });
    expect(past.body).toMatchObject({ turns: [], total_turns: 3, has_more: false, offset: 5 });
  });

  it('the conversation\'s title is its list row\'s (issue 18: one rule, both stores); an unknown one has none', async () => {
    const list = await post('/app/conversations', { project_id: P, limit: 10 });
    const row = list.body.conversations.find((c: any) => c.conversation_id === 'conv-h');
    expect(row.title).toBe('question 0');
    const r = await post('/agents/conversations/chat', { project_id: P, conversation_id: 'conv-h', limit: 1 });
    expect(r.body.title).toBe(row.title);
    expect((await post('/agents/conversations/chat', { project_id: P, conversation_id: 'nope' })).body.title).toBeNull();
  });

  it('a turn: root wall clock, leaf token sums, the untagged tool span kept, timestamps with microseconds', async () => {
    const r = await post('/agents/conversations/chat', { project_id: P, conversation_id: 'conv-h', limit: 1 });
    const t = r.body.turns[0];
    expect(t).toMatchObject({ root_span_name: 'Support', total_duration_ms: 3000, total_input_tokens: 300, total_output_tokens: 30,
      started_at: '2026-11-22T10:02:00.000000Z', ended_at: '2026-11-22T10:02:03.000000Z' });
    expect(t.messages.map((m: any) => m.type)).toEqual(['user_message', 'agent_start', 'assistant_message', 'tool_call', 'assistant_message']);
    expect(t.messages[3].tool_call).toMatchObject({ tool_name: 'lookup_order', tool_result: '{"eta":"soon"}', duration_ms: 50 });
  });

  it('422 in the FastAPI detail shape', async () => {
    const r = await post('/agents/conversations/chat', { project_id: P, conversation_id: 'conv-h', limit: 51, extra: 1 });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual(expect.arrayContaining([
      { loc: ['body', 'limit'], msg: 'Input should be less than or equal to 50', type: 'less_than_equal', input: 51, ctx: { le: 50 } },
      expect.objectContaining({ loc: ['body', 'extra'], type: 'extra_forbidden' }),
    ]));
  });
});

describe('POST /agents/traces/chat over HTTP', () => {
  it('mirrored invoke_agent output emitted once; its model calls are steps with their own figures (issue 18)', async () => {
    const r = await post('/agents/traces/chat', { project_id: P, trace_id: ids().mirror });
    const a = r.body.messages.filter((m: any) => m.type === 'assistant_message');
    // Each model call is a step (no output recorded: text ''), then the agent's answer, whose figures are on the steps.
    expect(a.map((m: any) => m.assistant_message.text)).toEqual(['', '', 'mirrored answer']);
    expect(a.slice(0, 2).reduce((n: number, m: any) => n + m.assistant_message.input_tokens, 0)).toBe(70);
    expect(a.slice(0, 2).reduce((n: number, m: any) => n + m.assistant_message.output_tokens, 0)).toBe(7);
    expect(a[2].assistant_message).toMatchObject({ input_tokens: null, output_tokens: null });
    expect([r.body.total_input_tokens, r.body.total_output_tokens, r.body.total_duration_ms]).toEqual([70, 7, 2000]);
    // The top-level agent's input is the user's message (its span is named).
    expect(r.body.messages[0]).toMatchObject({ type: 'user_message', span_id: expect.any(String), user_message: { text: 'hi', content_refs: [] } });
  });

  it('unknown trace → empty view', async () => {
    const r = await post('/agents/traces/chat', { project_id: P, trace_id: '0'.repeat(32) });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ trace_id: '0'.repeat(32), messages: [], root_span_name: null, total_input_tokens: 0, feedback: null });
  });

  it.each(readdirSync(samples).filter((f) => f.endsWith('.json')))('sample %s: user question, lookup_order call, model', async (file) => {
    const project = `samples/${file.replace(/\W+/g, '-')}`;
    const text = readFileSync(path.join(samples, file), 'utf8');
    expect((await post('/v1/traces', text, { 'x-project-id': project })).status).toBe(200);
    const traceIds = [...new Set([...text.matchAll(/"traceId":"([0-9a-fA-F]{32})"/g)].map((m) => m[1]!.toLowerCase()))];
    const messages = (await Promise.all(traceIds.map((trace_id) => post('/agents/traces/chat', { project_id: project, trace_id })))).flatMap((r) => r.body.messages);
    const u = messages.findIndex((m: any) => m.type === 'user_message' && m.user_message.text.includes('Where is order A-1187?'));
    expect(u).toBeGreaterThanOrEqual(0);
    const c = messages.findIndex((m: any, i: number) => i > u && (m.tool_call?.tool_name === 'lookup_order' || m.assistant_message?.text.includes('lookup_order')));
    expect(c).toBeGreaterThan(u);
    expect(messages.some((m: any) => m.assistant_message?.model)).toBe(true);
  });
});

describe('feedback over HTTP', () => {
  it('create, then read back with include_feedback and /feedback/query', async () => {
    const traceId = ids().turns[2]!;
    const created = await post('/feedback/create', { svc_ref: `svc:///${P}/trace/${traceId}`, feedback_type: 'thumbs', payload: { value: 'down' } });
    expect(created.status).toBe(200);
    const conv = await post('/agents/conversations/chat', { project_id: P, conversation_id: 'conv-h', include_feedback: true, limit: 1 });
    expect(conv.body.turns[0].feedback).toEqual([created.body]);
    expect(conv.body.feedback).toEqual([]);
    const q = await post('/feedback/query', { project_id: P });
    expect(q.body).toEqual({ feedback: [created.body], total_count: 1 });
    const bad = await post('/feedback/create', { svc_ref: 'nope', feedback_type: 'x' });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'svc_ref']);
  });
});
