/**
 * OTLP logs (issue 18 item 4): a captured run of OpenTelemetry's OpenAI instrumentation for JS whose
 * spans carry no message: every message is a log record (test/fixtures/emitters/otel-openai-logs,
 * provenance there). Posted to /v1/logs as JSON and as protobuf, before and after the spans, the trace
 * reads as its conversation; retries do not double anything; other log records are accepted and not kept.
 * Runs on SQLite and on ClickHouse (vitest project `clickhouse`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { postJson, repoRoot, startTestServer } from './server-harness.js';
import type { RunningLoupe } from '../../src/main/serve.js';

const DIR = path.join(repoRoot, 'test/fixtures/emitters/otel-openai-logs');
const TRACE = readFileSync(path.join(DIR, 'trace.json'));
const LOGS_JSON = readFileSync(path.join(DIR, 'logs.json'));
const LOGS_PB = readFileSync(path.join(DIR, 'logs.pb'));
const TRACE_ID = (JSON.parse(TRACE.toString()).resourceSpans[0].scopeSpans[0].spans[0].traceId as string).toLowerCase();

let app: RunningLoupe;
beforeAll(async () => {
  app = await startTestServer();
}, 60_000);
afterAll(async () => app?.close());

const post = async (p: string, project: string, body: Buffer, type: string, extra: Record<string, string> = {}) => {
  const res = await fetch(`${app.url}${p}`, { method: 'POST', headers: { 'content-type': type, 'x-project-id': project, ...extra }, body });
  return { status: res.status, type: res.headers.get('content-type'), body: Buffer.from(await res.arrayBuffer()) };
};

async function chat(project: string) {
  const { status, body } = await postJson(app.url, '/agents/traces/chat', { project_id: project, trace_id: TRACE_ID });
  expect(status).toBe(200);
  return body.messages as any[];
}

/** What the run said (exchange.json): the question, the tool call, both answers and the Responses question. */
function expectConversation(m: any[]) {
  const dump = JSON.stringify(m.map((x) => [x.type, x[x.type]?.text ?? x[x.type]?.tool_name]));
  expect(m[0].type, dump).toBe('user_message');
  expect(m[0].user_message.text).toBe('What is the weather in Lisbon?');
  const tools = m.filter((x) => x.type === 'tool_call');
  expect(tools.map((t) => [t.tool_call.tool_name, JSON.parse(t.tool_call.tool_arguments), JSON.parse(t.tool_call.tool_result)]), dump).toEqual([
    ['get_weather', { city: 'Lisbon' }, { city: 'Lisbon', temperature_c: 18, sky: 'cloudy' }],
  ]);
  const texts = m.filter((x) => x.type === 'assistant_message' && x.assistant_message.text).map((x) => x.assistant_message.text);
  expect(texts, dump).toEqual(['It is 18°C and cloudy in Lisbon right now.', 'Pack an umbrella: Lisbon expects light rain tomorrow.']);
  expect(m.filter((x) => x.type === 'user_message').map((x) => x.user_message.text), dump).toEqual([
    'What is the weather in Lisbon?', 'Should I take an umbrella in Lisbon tomorrow?',
  ]);
  // Three model calls: the one that asked for the tool, the answer, the Responses call.
  expect(m.filter((x) => x.type === 'assistant_message').length, dump).toBe(3);
}

describe('POST /v1/logs', () => {
  it('the spans alone carry no message', async () => {
    expect((await post('/v1/traces', 'logs/none', TRACE, 'application/json')).status).toBe(200);
    const m = await chat('logs/none');
    expect(m.filter((x) => x.type === 'user_message' || (x.type === 'assistant_message' && x.assistant_message.text))).toEqual([]);
  });

  it('JSON logs after their spans read as the conversation', async () => {
    expect((await post('/v1/traces', 'logs/json-after', TRACE, 'application/json')).status).toBe(200);
    const r = await post('/v1/logs', 'logs/json-after', LOGS_JSON, 'application/json');
    expect(r.status, r.body.toString()).toBe(200);
    expect(JSON.parse(r.body.toString())).toEqual({});
    expectConversation(await chat('logs/json-after'));
    // An exporter's retry adds nothing twice.
    expect((await post('/v1/logs', 'logs/json-after', LOGS_JSON, 'application/json')).status).toBe(200);
    expectConversation(await chat('logs/json-after'));
  });

  it('protobuf logs (gzip) before their spans read as the conversation once the spans arrive', async () => {
    const r = await post('/v1/logs', 'logs/pb-before', gzipSync(LOGS_PB), 'application/x-protobuf', { 'content-encoding': 'gzip' });
    expect(r.status).toBe(200);
    expect(r.type).toMatch(/application\/x-protobuf/);
    expect(r.body.length).toBe(0); // an empty ExportLogsServiceResponse: full success
    expect((await post('/v1/traces', 'logs/pb-before', TRACE, 'application/json')).status).toBe(200);
    expectConversation(await chat('logs/pb-before'));
  });

  it('log records that are not GenAI events, or have no span, are accepted and change nothing', async () => {
    const other = { resourceLogs: [{ scopeLogs: [{ logRecords: [
      { timeUnixNano: '1', body: { stringValue: 'app started' }, traceId: TRACE_ID, spanId: '0000000000000001' },
      { timeUnixNano: '2', eventName: 'gen_ai.user.message', body: { kvlistValue: { values: [{ key: 'content', value: { stringValue: 'no span' } }] } } },
    ] }] }] };
    expect((await post('/v1/logs', 'logs/other', Buffer.from(JSON.stringify(other)), 'application/json')).status).toBe(200);
    expect((await post('/v1/logs', 'logs/other', Buffer.alloc(0), 'application/json')).status).toBe(200);
  });

  it('bad bodies are refused with what was wrong', async () => {
    const notLogs = await post('/v1/logs', 'logs/bad', Buffer.from('{"resourceSpans":[]}'), 'application/json');
    expect(notLogs.status).toBe(400);
    expect(notLogs.body.toString()).toMatch(/resourceLogs/);
    const garbage = await post('/v1/logs', 'logs/bad', Buffer.from([0x0a, 0xff, 0xff, 0xff]), 'application/x-protobuf');
    expect(garbage.status).toBe(400);
    expect((await post('/v1/logs', 'logs/bad', LOGS_JSON, 'text/plain')).status).toBe(415);
  });
});
