/**
 * An app instrumented for Langfuse points its SDK at Loupe unchanged (issue 10): the SDK exports
 * OTLP to `<host>/api/public/otel/v1/traces` with a Basic auth header of its keys. The export below
 * has the Langfuse SDK's shape — `@observe`-decorated function spans (input recorded as the call's
 * `{args, kwargs}`), a generation with model, messages and usage details, `langfuse.trace.*` and
 * `langfuse.session.id` — and must read as one conversation of two turns.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, rawRequest, startTestServer } from './server-harness.js';
import { traceBuilder } from '../helpers/otlp.js';
import type { RunningLoupe } from '../../src/main/serve.js';

const SESSION = 'chat-session-7f3a';
const PROJECT = 'local/default';
let app: RunningLoupe & { port?: number };
let traces: string[] = [];

/** One turn as the Langfuse Python SDK (v3, OTel-based) exports it. */
function turn(seed: string, startMs: number, question: string, answer: string) {
  const t = traceBuilder({
    seed, start: Date.parse('2026-11-22T10:00:00Z') + startMs,
    resource: { 'service.name': 'support-bot', 'telemetry.sdk.language': 'python', 'telemetry.sdk.name': 'opentelemetry' },
    scope: { name: 'langfuse-sdk', version: '3.2.1' },
  });
  const root = t.span('handle_question', { durationMs: 1800, attributes: {
    'langfuse.observation.type': 'span',
    'langfuse.trace.name': 'handle_question',
    'langfuse.user.id': 'user-42',
    'langfuse.session.id': SESSION,
    'langfuse.observation.input': JSON.stringify({ args: [question], kwargs: {} }),
    'langfuse.observation.output': JSON.stringify(answer),
  } });
  t.span('OpenAI-generation', { parent: root, at: 50, durationMs: 1500, attributes: {
    'langfuse.observation.type': 'generation',
    'langfuse.observation.model.name': 'gpt-4o-mini',
    'langfuse.observation.model.parameters': JSON.stringify({ temperature: 0.2, max_tokens: 256 }),
    'langfuse.observation.input': JSON.stringify([
      { role: 'system', content: 'You answer order questions briefly.' },
      { role: 'user', content: question },
    ]),
    'langfuse.observation.output': JSON.stringify({ role: 'assistant', content: answer }),
    'langfuse.observation.usage_details': JSON.stringify({ input: 31, output: 9, total: 40 }),
    'langfuse.observation.cost_details': JSON.stringify({ input: 0.0000047, output: 0.0000054, total: 0.0000101 }),
  } });
  return t;
}

beforeAll(async () => {
  app = await startTestServer();
  const turns = [turn('lf-1', 0, 'Where is order A-1187?', 'It ships tomorrow with UPS.'), turn('lf-2', 60_000, 'Can I change the address?', 'No, it has already shipped.')];
  traces = turns.map((t) => t.traceId);
  const body = JSON.stringify({ resourceSpans: turns.map((t) => t.request().resourceSpans[0]) });
  const res = await fetch(`${app.url}/api/public/otel/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from('pk-lf-1234:sk-lf-5678').toString('base64')}` },
    body,
  });
  expect(res.status).toBe(200);
}, 60_000);
afterAll(async () => app?.close());

describe('Langfuse SDK export to /api/public/otel/v1/traces', () => {
  it('reads as one conversation (langfuse.session.id) with both turns, questions, answers, usage and cost', async () => {
    const { status, body } = await postJson(app.url, '/agents/conversations/chat', { project_id: PROJECT, conversation_id: SESSION });
    expect(status).toBe(200);
    expect(body.total_turns).toBe(2);
    expect(body.turns.map((t: any) => t.trace_id)).toEqual(traces);
    const said = body.turns.map((t: any) => t.messages.map((m: any) => [m.type, m.user_message?.text ?? m.assistant_message?.text ?? null]));
    expect(said).toEqual([
      [['user_message', 'Where is order A-1187?'], ['assistant_message', 'It ships tomorrow with UPS.']],
      [['user_message', 'Can I change the address?'], ['assistant_message', 'No, it has already shipped.']],
    ]);
    const first = body.turns[0];
    expect(first).toMatchObject({ svc_user_id: 'user-42', total_input_tokens: 31, total_output_tokens: 9, root_span_name: 'handle_question' });
    expect(first.total_cost_usd).toBeCloseTo(0.0000101, 12);
    expect(first.messages[1].assistant_message).toMatchObject({ model: 'gpt-4o-mini', input_tokens: 31, output_tokens: 9 });
  });

  it('accepts the export without credentials too, and still refuses a foreign origin', async () => {
    const t = turn('lf-3', 120_000, 'Hello?', 'Hi.');
    const body = JSON.stringify(t.request());
    const port = Number(new URL(app.url).port);
    const ok = await rawRequest(port, { method: 'POST', path: '/api/public/otel/v1/traces', headers: { 'content-type': 'application/json', host: `127.0.0.1:${port}` }, body });
    expect(ok.status).toBe(200);
    const foreign = await rawRequest(port, {
      method: 'POST', path: '/api/public/otel/v1/traces', body,
      headers: { 'content-type': 'application/json', host: `127.0.0.1:${port}`, origin: 'http://evil.example' },
    });
    expect(foreign.status).toBe(403);
    const { body: conv } = await postJson(app.url, '/agents/conversations/chat', { project_id: PROJECT, conversation_id: SESSION });
    expect(conv.total_turns).toBe(3);
  });
});
