/**
 * Issue 13, defects 2, 7, 8 and 9 as tests: one bad span never costs the good ones (OTLP, protobuf,
 * file import), every odd request answers 4xx in the `{"detail"}` shape, errors stay small, and the
 * UI cannot be framed. All against a real server on port 0 and a real SQLite file.
 */
import fs from 'node:fs';
import path from 'node:path';
import protobuf from 'protobufjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, spanCount, startTestServer, tempDir } from './server-harness.js';
import { hexId } from '../helpers/otlp.js';
import { OTLP_TRACE_PROTO } from '../../src/main/service/ingest/proto/trace-proto.js';
import { importFile } from '../../src/main/service/ingest/index.js';
import { writeEach } from '../../src/main/service/ingest/session.js';
import { openStores } from '../../src/main/store/index.js';
import type { SpanRecord } from '../../src/main/domain/span.js';

let server: Awaited<ReturnType<typeof startTestServer>>;
beforeAll(async () => {
  const rendererDir = tempDir('loupe-renderer-');
  fs.writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html><title>Loupe</title>');
  server = await startTestServer({ rendererDir });
});
afterAll(() => server.close());

const T0 = 1_763_800_000_000_000_000n; // 2025-11-22
const FAR = (2n ** 63n + 5n).toString(); // legal fixed64, not storable as int64

function span(trace: string, i: number, extra: Record<string, unknown> = {}) {
  return {
    traceId: hexId(trace, 16),
    spanId: hexId(`${trace}-${i}`, 8),
    name: `chat ${i}`,
    startTimeUnixNano: String(T0 + BigInt(i) * 1_000_000n),
    endTimeUnixNano: String(T0 + BigInt(i) * 1_000_000n + 500_000n),
    attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'chat' } }],
    ...extra,
  };
}
const request = (spans: unknown[]) => ({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 't' }, spans }] }] });

/** An AnyValue nested `levels` kvlists deep, as JSON text (JSON.stringify itself overflows on it). */
const deepValueJson = (levels: number) => `${'{"kvlistValue":{"values":[{"key":"k","value":'.repeat(levels)}{"stringValue":"bottom"}${'}]}}'.repeat(levels)}`;

const postJson = (project: string, body: unknown) =>
  rawRequest(server.port, {
    method: 'POST',
    path: '/v1/traces',
    headers: { 'content-type': 'application/json', 'x-project-id': project },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('one bad span never costs the good ones (13.2)', () => {
  it('OTLP/JSON: a start time >= 2^63 ns is rejected by name in partialSuccess; the other spans are stored', async () => {
    const spans = [span('a', 0), span('a', 1, { startTimeUnixNano: FAR }), span('a', 2), span('a', 3, { endTimeUnixNano: FAR })];
    const res = await postJson('hostile/time', request(spans));
    expect(res.status).toBe(200);
    const body = res.json() as { partialSuccess: { rejectedSpans: string; errorMessage: string } };
    expect(body.partialSuccess.rejectedSpans).toBe('2');
    expect(body.partialSuccess.errorMessage).toMatch(/start_time_unix_nano out of range/);
    expect(body.partialSuccess.errorMessage).toMatch(/end_time_unix_nano out of range/);
    expect(await spanCount(server.url, 'hostile/time')).toBe(2);
  });

  it('OTLP/protobuf: the same span in fixed64 is rejected, the rest stored', async () => {
    const root = protobuf.parse(OTLP_TRACE_PROTO, { keepCase: false }).root;
    const Req = root.lookupType('opentelemetry.proto.ExportTraceServiceRequest');
    const pbSpan = (i: number, start: string) => ({
      traceId: Buffer.from(hexId('pb', 16), 'hex'),
      spanId: Buffer.from(hexId(`pb-${i}`, 8), 'hex'),
      name: `s${i}`,
      startTimeUnixNano: start, // fromObject reads decimal strings as (unsigned) fixed64
      endTimeUnixNano: String(T0 + 1_000_000n),
    });
    const msg = Req.fromObject({ resourceSpans: [{ scopeSpans: [{ spans: [pbSpan(0, String(T0)), pbSpan(1, FAR), pbSpan(2, String(T0))] }] }] });
    const res = await rawRequest(server.port, {
      method: 'POST',
      path: '/v1/traces',
      headers: { 'content-type': 'application/x-protobuf', 'x-project-id': 'hostile/pb' },
      body: Buffer.from(Req.encode(msg).finish()),
    });
    expect(res.status).toBe(200);
    expect(res.body.length).toBeGreaterThan(0); // a partial_success, not the empty "all accepted" answer
    expect(res.body.toString('latin1')).toMatch(/start_time_unix_nano out of range/);
    expect(await spanCount(server.url, 'hostile/pb')).toBe(2);
  });

  it('an attribute nested 3,000 levels is over the decode budget: 413 naming the limit, nothing stored (issue 23.2)', async () => {
    const deep = JSON.stringify(span('x', 1, { attributes: [{ key: 'app.deep', value: 'DEEP' }] })).replace('"DEEP"', deepValueJson(3000));
    const body = JSON.stringify(request(['A', 'B', 'C'])).replace('"A"', JSON.stringify(span('x', 0))).replace('"B"', deep).replace('"C"', JSON.stringify(span('x', 2)));
    const res = await postJson('hostile/too-deep', body);
    expect(res.status).toBe(413);
    expect((res.json() as { detail: string }).detail).toMatch(/more than 64 levels of nested attribute values .*decode limit "depth"/);
    expect(await spanCount(server.url, 'hostile/too-deep')).toBe(0);
  });

  it('an attribute nested 60 levels (within the budget) is cut at the read depth; that span and its neighbours are stored', async () => {
    const deep = JSON.stringify(span('d', 1, { attributes: [{ key: 'app.deep', value: 'DEEP' }] })).replace('"DEEP"', deepValueJson(60));
    const body = JSON.stringify(request(['A', 'B', 'C'])).replace('"A"', JSON.stringify(span('d', 0))).replace('"B"', deep).replace('"C"', JSON.stringify(span('d', 2)));
    const res = await postJson('hostile/deep', body);
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({});
    expect(await spanCount(server.url, 'hostile/deep')).toBe(3);
    const q = await rawRequest(server.port, {
      method: 'POST',
      path: '/agents/spans/query',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ project_id: 'hostile/deep', include_details: true, query: { $expr: { $eq: [{ $getField: 'span_id' }, { $literal: hexId('d-1', 8) }] } } }),
    });
    expect(q.status).toBe(200);
    expect(q.body.toString()).toContain('nested deeper than');
  });

  it('a file import keeps every good span around a bad one and names the bad line', async () => {
    const dir = tempDir('loupe-hostile-file-');
    const file = path.join(dir, 'mixed.jsonl');
    const lines: string[] = [];
    for (let i = 0; i < 300; i++) lines.push(JSON.stringify(request([span(`f${i}`, 0), span(`f${i}`, 1)])));
    lines[150] = JSON.stringify(request([span('f150', 0), span('f150', 1, { startTimeUnixNano: FAR })]));
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    const store = await openStores(dir);
    try {
      const report = await importFile(store.traces, file, { projectId: 'hostile/file', thread: 'inline' });
      expect(report.spans_imported).toBe(599);
      expect(report.spans_skipped).toBe(1);
      expect(report.errors).toEqual([{ line: 151, message: expect.stringMatching(/span [0-9a-f]{16} of trace [0-9a-f]{32}: start_time_unix_nano out of range/) }]);
      const viaWorker = await importFile(store.traces, file, { projectId: 'hostile/file2', thread: 'worker' });
      expect(viaWorker.spans_imported).toBe(599);
      expect(viaWorker.errors[0]?.line).toBe(151);
    } finally {
      await store.close();
    }
  });

  it('a batch the store refuses is retried span by span: only the refused span is lost', async () => {
    const store = await openStores(tempDir('loupe-hostile-batch-'));
    try {
      const good = (i: number): SpanRecord => ({ ...baseRecord(), span_id: hexId(`b${i}`, 8), start_ns: T0, end_ns: T0 + 1n });
      const bad = { ...good(1), start_ns: 2n ** 64n }; // past what SQLite binds: a row-level failure
      const rejected: number[] = [];
      let written = 0;
      await writeEach([good(0), bad, good(2)], (b) => store.traces.writeSpans(b), (i) => rejected.push(i), (r) => (written += r.inserted));
      expect(rejected).toEqual([1]);
      expect(written).toBe(2);
    } finally {
      await store.close();
    }
  });
});

describe('every request answers 4xx in the {"detail"} shape (13.8)', () => {
  const post = (p: string, body: unknown) =>
    rawRequest(server.port, { method: 'POST', path: p, headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'])('names from Object.prototype (%s) are unknown names, 422', async (name) => {
    const group = [{ key: 'agent_name', source: 'field' }];
    const bodies: [string, unknown][] = [
      ['/agents/spans/query', { project_id: 'x', group_by: group, measures: [{ alias: 'a', aggregation: 'sum', value: { key: name, source: 'derived' } }] }],
      ['/agents/spans/query', { project_id: 'x', group_by: group, measures: [{ alias: 'a', aggregation: 'sum', value: { key: name, source: 'field' } }] }],
      ['/agents/spans/query', { project_id: 'x', group_by: [{ key: name, source: 'field' }] }],
      ['/agents/spans/query', { project_id: 'x', group_by: group, sort_by: [{ field: name, direction: 'asc' }] }],
      ['/agents/spans/query', { project_id: 'x', sort_by: [{ field: name, direction: 'asc' }] }],
      ['/agents/spans/query', { project_id: 'x', query: { $expr: { [name]: [{ $getField: 'a' }, { $literal: 'a' }] } } }],
      ['/agents/query', { project_id: 'x', sort_by: [{ field: name, direction: 'asc' }] }],
      ['/threads/stream_query', { project_id: 'x', sort_by: [{ field: name, direction: 'asc' }] }],
    ];
    for (const [p, body] of bodies) {
      const res = await post(p, body);
      expect(res.status, `${p} ${JSON.stringify(body)}`).toBe(422);
      expect(res.json()).toHaveProperty('detail');
    }
  });

  it('more thread ids than SQLite can bind is a 422 naming the bound', async () => {
    const res = await post('/threads/stream_query', { project_id: 'x', filter: { thread_ids: Array.from({ length: 40_000 }, (_, i) => String(i)) } });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.json())).toContain('at most 10000');
  });

  it('a far-future started_after is an empty answer, not a 500', async () => {
    for (const at of ['9999-12-31T00:00:00Z', '+275760-09-13T00:00:00Z', '1000-01-01T00:00:00Z']) {
      const res = await post('/agents/spans/query', { project_id: 'x', started_after: at, started_before: at });
      expect(res.status, at).toBe(200);
    }
  });

  it('input nested 5,000 levels deep is a 422 too_deep, small', async () => {
    const res = await post('/agents/spans/query', `{"project_id":"x","query":${'{"$and":['.repeat(5000)}${']}'.repeat(5000)}}`);
    expect(res.status).toBe(422);
    expect((res.json() as { detail: { type: string }[] }).detail[0]!.type).toBe('too_deep');
  });

  it('a body of 100k bad entries answers at most 21 problems, with the rest counted', async () => {
    const res = await post('/feedback/query', { project_id: 'x', nonsense: Array.from({ length: 100_000 }, () => ({ f: 1 })), more: 1 });
    expect(res.status).toBe(422);
    expect(res.body.length).toBeLessThan(4096);
    const many = await post('/agents/query', { project_id: 'x', filters: Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i])) });
    expect(many.status).toBe(422);
    const detail = (many.json() as { detail: { type: string; ctx?: { not_listed: number } }[] }).detail;
    expect(detail).toHaveLength(21);
    expect(detail[20]).toMatchObject({ type: 'too_many_errors', ctx: { not_listed: 4980 } });
  });

  it('bad %-encoding, an over-long path segment and a NUL in a file name answer {"detail"}', async () => {
    const bad = await rawRequest(server.port, { path: '/v1/preview/models/%E0%A4%A' });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.json() as object)).toEqual(['detail']);
    const long = await rawRequest(server.port, { path: `/v1/preview/training-jobs/${'a'.repeat(300)}` });
    expect(long.status).toBeGreaterThanOrEqual(400);
    expect(long.status).toBeLessThan(500);
    expect(Object.keys(long.json() as object)).toEqual(['detail']);
    const nul = await rawRequest(server.port, { path: '/index.html%00.js' });
    expect(nul.status).toBe(404);
    expect(nul.json()).toEqual({ detail: 'Not Found' });
  });
});

describe('the UI cannot be framed (13.9)', () => {
  it('every answer, page or API, forbids framing', async () => {
    for (const p of ['/', '/v1/health', '/nope']) {
      const res = await rawRequest(server.port, { path: p, headers: { accept: 'text/html' } });
      expect(res.headers['x-frame-options'], p).toBe('DENY');
      expect(res.headers['content-security-policy'], p).toContain("frame-ancestors 'none'");
    }
  });
});

function baseRecord(): SpanRecord {
  const nulls = Object.fromEntries(
    ['parent_span_id', 'status_message', 'service_name', 'scope_name', 'scope_version', 'operation_name', 'provider_name', 'agent_id', 'agent_name',
      'agent_version', 'agent_description', 'conversation_id', 'conversation_name', 'request_model', 'response_model', 'response_id', 'output_type',
      'error_type', 'server_address', 'server_port', 'tool_name', 'tool_type', 'tool_call_id', 'tool_description', 'reasoning_content',
      'compaction_summary', 'compaction_items_before', 'compaction_items_after', 'svc_user_id', 'svc_run_id', 'svc_run_step', 'svc_run_step_end',
      'request_temperature', 'request_top_p', 'request_frequency_penalty', 'request_presence_penalty', 'request_max_tokens', 'request_seed',
      'request_choice_count', 'input_tokens', 'output_tokens', 'reasoning_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens',
      'input_cost_usd', 'output_cost_usd', 'cache_creation_cost_usd', 'cache_read_cost_usd', 'total_cost_usd', 'tool_definitions',
      'tool_call_arguments', 'tool_call_result'].map((k) => [k, null]),
  );
  return {
    ...nulls,
    project_id: 'hostile/batch',
    trace_id: hexId('batch', 16),
    span_id: hexId('b', 8),
    span_name: 'x',
    span_kind: 'INTERNAL',
    start_ns: null,
    end_ns: null,
    status_code: 'UNSET',
    finish_reasons: [],
    request_stop_sequences: [],
    artifact_refs: [],
    content_refs: [],
    object_refs: [],
    custom_attrs_bool: {},
    custom_attrs_int: {},
    custom_attrs_float: {},
    custom_attrs_string: {},
    system_instructions: [],
    input_messages: [],
    output_messages: [],
    resource_attributes: {},
    events: [],
    links: [],
    raw_span_dump: '{}',
  } as unknown as SpanRecord;
}
