/**
 * An app instrumented for Langfuse points its SDK at Loupe unchanged (issue 10): the SDK exports
 * OTLP to `<host>/api/public/otel/v1/traces` with a Basic auth header of its keys. The body posted
 * here is what the real Langfuse JS SDK v5 exported (test/fixtures/emitters/langfuse-sdk, captured by
 * scripts/fixtures/capture/langfuse/capture.mjs: `observe()` handler, `observeOpenAI` generations, a
 * tool observation, `propagateAttributes({sessionId, userId})`, two turns, the second streamed) and
 * must read as one conversation of two turns.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { postJson, rawRequest, repoRoot, startTestServer } from './server-harness.js';
import type { RunningLoupe } from '../../src/main/serve.js';

const FIXTURE = path.join(repoRoot, 'test/fixtures/emitters/langfuse-sdk');
const body = readFileSync(path.join(FIXTURE, 'trace.json'));
const PROJECT = 'local/default';
let app: RunningLoupe;

/** What the SDK recorded, read straight from the export (not through Loupe): sessions, traces, usage per trace. */
const exported = (() => {
  const spans = JSON.parse(body.toString('utf8')).resourceSpans.flatMap((r: any) => r.scopeSpans.flatMap((s: any) => s.spans));
  const attr = (s: any, k: string) => s.attributes.find((a: any) => a.key === k)?.value?.stringValue;
  const traces = [...new Set<string>(spans.map((s: any) => s.traceId))];
  const usage = (t: string) => spans.filter((s: any) => s.traceId === t && attr(s, 'langfuse.observation.usage_details'))
    .map((s: any) => JSON.parse(attr(s, 'langfuse.observation.usage_details')))
    .reduce((a: any, u: any) => ({ input: a.input + u.input, output: a.output + u.output }), { input: 0, output: 0 });
  return { session: attr(spans[0], 'session.id')!, user: attr(spans[0], 'user.id')!, traces, usage };
})();

beforeAll(async () => {
  app = await startTestServer();
  const res = await fetch(`${app.url}/api/public/otel/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from('pk-lf-capture:sk-lf-capture').toString('base64')}` },
    body,
  });
  expect(res.status).toBe(200);
}, 60_000);
afterAll(async () => app?.close());

describe('Langfuse JS SDK export to /api/public/otel/v1/traces', () => {
  it('reads as one conversation (the SDK session) with both turns, questions, answers, the tool call and usage', async () => {
    expect(exported.session).toBe('support-chat-sdk');
    const { status, body: conv } = await postJson(app.url, '/agents/conversations/chat', { project_id: PROJECT, conversation_id: exported.session });
    expect(status).toBe(200);
    expect(conv.total_turns).toBe(2);
    expect(conv.turns.map((t: any) => t.trace_id)).toEqual(exported.traces);
    const said = conv.turns.map((t: any) => t.messages.map((m: any) => [m.type, m.user_message?.text ?? m.assistant_message?.text ?? m.tool_call?.tool_name ?? null]));
    expect(said).toEqual([
      [['user_message', 'Where is my order A-1187?'], ['assistant_message', ''], ['tool_call', 'get_order_status'], ['assistant_message', 'Order A-1187 ships tomorrow with UPS.']],
      [['user_message', 'Can I still change the delivery address?'], ['assistant_message', 'No, it has already left the warehouse, so the address cannot be changed.']],
    ]);
    const [first, second] = conv.turns;
    const tool = first.messages[2].tool_call;
    expect(JSON.parse(tool.tool_arguments)).toEqual({ order_id: 'A-1187' });
    expect(JSON.parse(tool.tool_result)).toEqual({ order_id: 'A-1187', status: 'packed', carrier: 'UPS', ships: 'tomorrow' });
    for (const [turn, trace] of [[first, exported.traces[0]!], [second, exported.traces[1]!]] as const) {
      const u = exported.usage(trace);
      expect(turn).toMatchObject({ svc_user_id: exported.user, total_input_tokens: u.input, total_output_tokens: u.output, root_span_name: 'handle-question' });
    }
    expect(first.messages[3].assistant_message).toMatchObject({ model: 'gpt-4o-mini' });
  });

  it('accepts the export without credentials too, and still refuses a foreign origin', async () => {
    const port = Number(new URL(app.url).port);
    const ok = await rawRequest(port, { method: 'POST', path: '/api/public/otel/v1/traces', headers: { 'content-type': 'application/json', 'x-project-id': 'lf/anon', host: `127.0.0.1:${port}` }, body });
    expect(ok.status).toBe(200);
    const foreign = await rawRequest(port, {
      method: 'POST', path: '/api/public/otel/v1/traces', body,
      headers: { 'content-type': 'application/json', 'x-project-id': 'lf/foreign', host: `127.0.0.1:${port}`, origin: 'http://evil.example' },
    });
    expect(foreign.status).toBe(403);
    const anon = await postJson(app.url, '/agents/conversations/chat', { project_id: 'lf/anon', conversation_id: exported.session });
    expect(anon.body.total_turns).toBe(2);
    const refused = await postJson(app.url, '/agents/conversations/chat', { project_id: 'lf/foreign', conversation_id: exported.session });
    expect(refused.body.total_turns ?? 0).toBe(0);
  });
});
