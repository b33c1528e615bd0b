/**
 * POST /v1/traces as exporters and curl use it: protobuf, JSON, gzip, the response in the request's
 * content type with partial-success counts, the project header, 415 for other types, logs/metrics ignored.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import protobuf from 'protobufjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, samplesDir, spanCount, startTestServer } from './server-harness.js';

const run = promisify(execFile);
let server: Awaited<ReturnType<typeof startTestServer>>;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const protoFiles = fs.readdirSync(path.join(samplesDir, 'protobuf')).filter((f) => f.endsWith('.pb'));
const jsonFiles = fs.readdirSync(samplesDir).filter((f) => f.endsWith('.in.json'));

const post = (body: Buffer, headers: Record<string, string>) => rawRequest(server.port, { method: 'POST', path: '/v1/traces', headers, body });

/** Decodes ExportTraceServiceResponse by its wire numbers (partial_success = 1 {rejected_spans = 1, error_message = 2}). */
function decodeResponse(buf: Buffer): { rejected: number; message: string } {
  const r = protobuf.Reader.create(buf);
  const out = { rejected: 0, message: '' };
  while (r.pos < r.len) {
    const tag = r.uint32();
    if (tag >>> 3 !== 1) {
      r.skipType(tag & 7);
      continue;
    }
    const end = r.uint32() + r.pos;
    while (r.pos < end) {
      const t = r.uint32();
      if (t >>> 3 === 1) out.rejected = Number(r.int64());
      else if (t >>> 3 === 2) out.message = r.string();
      else r.skipType(t & 7);
    }
  }
  return out;
}

describe('POST /v1/traces', () => {
  it('has the six protobuf samples and six JSON samples to send', () => {
    expect(protoFiles.length).toBe(6);
    expect(jsonFiles.length).toBe(6);
  });

  it.each(protoFiles)('stores protobuf %s and answers application/x-protobuf', async (file) => {
    const project = `pb/${file}`;
    const res = await post(fs.readFileSync(path.join(samplesDir, 'protobuf', file)), { 'content-type': 'application/x-protobuf', 'x-project-id': project });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-protobuf');
    expect(decodeResponse(res.body).rejected).toBe(0);
    expect(await spanCount(server.url, project)).toBeGreaterThan(0);
  });

  it.each(jsonFiles)('stores JSON %s, plain and gzip, and answers application/json', async (file) => {
    const body = fs.readFileSync(path.join(samplesDir, file));
    const plain = await post(body, { 'content-type': 'application/json', 'x-project-id': `json/${file}` });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-type']).toMatch(/^application\/json/);
    expect(plain.json()).toEqual({});
    const n = await spanCount(server.url, `json/${file}`);
    expect(n).toBeGreaterThan(0);
    const zipped = await post(gzipSync(body), { 'content-type': 'application/json', 'content-encoding': 'gzip', 'x-project-id': `gz/${file}` });
    expect(zipped.status).toBe(200);
    expect(await spanCount(server.url, `gz/${file}`)).toBe(n);
  });

  it('stores gzip protobuf too', async () => {
    const body = gzipSync(fs.readFileSync(path.join(samplesDir, 'protobuf', protoFiles[0]!)));
    const res = await post(body, { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip', 'x-project-id': 'gz/pb' });
    expect(res.status).toBe(200);
    expect(await spanCount(server.url, 'gz/pb')).toBeGreaterThan(0);
  });

  it('without x-project-id the spans go to local/default', async () => {
    const before = await spanCount(server.url, 'local/default');
    await post(fs.readFileSync(path.join(samplesDir, jsonFiles[0]!)), { 'content-type': 'application/json' });
    expect(await spanCount(server.url, 'local/default')).toBeGreaterThan(before);
  });

  it('reports rejected spans as partial success, in JSON and in protobuf', async () => {
    const request = {
      resourceSpans: [{ scopeSpans: [{ spans: [
        { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', name: 'chat ok', startTimeUnixNano: '1700000000000000000', endTimeUnixNano: '1700000001000000000' },
        { traceId: 'not-an-id', spanId: '', name: 'broken' },
      ] }] }],
    };
    const json = await post(Buffer.from(JSON.stringify(request)), { 'content-type': 'application/json', 'x-project-id': 'partial/json' });
    expect(json.status).toBe(200);
    const partial = (json.json() as { partialSuccess?: { rejectedSpans: string; errorMessage?: string } }).partialSuccess;
    expect(partial?.rejectedSpans).toBe('1');
    expect(await spanCount(server.url, 'partial/json')).toBe(1);
  });

  it('reports rejected spans in a protobuf ExportTraceServiceResponse', async () => {
    // ExportTraceServiceRequest { resource_spans = 1 { scope_spans = 2 { spans = 2 [...] } } }, by wire numbers.
    const span = (traceId: Buffer, spanId: Buffer, name: string) => {
      const w = protobuf.Writer.create();
      w.uint32((1 << 3) | 2).bytes(traceId).uint32((2 << 3) | 2).bytes(spanId).uint32((5 << 3) | 2).string(name);
      // fixed64 as its two little-endian 32-bit halves (exact for nanosecond times beyond 2^53).
      const fixed64 = (tag: number, ns: bigint) => w.uint32((tag << 3) | 1).fixed32(Number(ns & 0xffffffffn)).fixed32(Number(ns >> 32n));
      fixed64(7, 1_700_000_000_000_000_000n);
      fixed64(8, 1_700_000_001_000_000_000n);
      return w.finish();
    };
    const scope = protobuf.Writer.create();
    scope.uint32((2 << 3) | 2).bytes(span(Buffer.from('0af7651916cd43dd8448eb211c80319c', 'hex'), Buffer.from('b7ad6b7169203331', 'hex'), 'good'));
    scope.uint32((2 << 3) | 2).bytes(span(Buffer.from('0af765', 'hex'), Buffer.alloc(0), 'broken'));
    const rs = protobuf.Writer.create().uint32((2 << 3) | 2).bytes(scope.finish()).finish();
    const body = Buffer.from(protobuf.Writer.create().uint32((1 << 3) | 2).bytes(rs).finish());
    const res = await post(body, { 'content-type': 'application/x-protobuf', 'x-project-id': 'partial/pb' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-protobuf');
    expect(decodeResponse(res.body).rejected).toBe(1);
    expect(await spanCount(server.url, 'partial/pb')).toBe(1);
    const exported = (await (await fetch(`${server.url}/export`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ project_id: "partial/pb" }) })).json()) as { resourceSpans: { scopeSpans: { spans: unknown[] }[] }[] };
    expect(exported.resourceSpans[0]?.scopeSpans[0]?.spans[0]).toMatchObject({ name: 'good', traceId: '0af7651916cd43dd8448eb211c80319c', startTimeUnixNano: '1700000000000000000' });
  });

  it('answers 415 for another content type and stores nothing', async () => {
    const res = await post(Buffer.from('hello'), { 'content-type': 'text/plain', 'x-project-id': 'wrong/type' });
    expect(res.status).toBe(415);
    expect((res.json() as { detail: string }).detail).toMatch(/application\/x-protobuf or application\/json/);
    expect(await spanCount(server.url, 'wrong/type')).toBe(0);
  });

  it('answers 400 for a truncated gzip body and stores nothing', async () => {
    const body = gzipSync(fs.readFileSync(path.join(samplesDir, jsonFiles[0]!)));
    const res = await post(body.subarray(0, body.length - 40), { 'content-type': 'application/json', 'content-encoding': 'gzip', 'x-project-id': 'trunc/gz' });
    expect(res.status).toBe(400);
    expect((res.json() as { detail: string }).detail).toMatch(/gzip/);
    expect(await spanCount(server.url, 'trunc/gz')).toBe(0);
  });

  it('answers 200 to /v1/logs and /v1/metrics and ignores them', async () => {
    for (const signal of ['logs', 'metrics']) {
      const res = await rawRequest(server.port, { method: 'POST', path: `/v1/${signal}`, headers: { 'content-type': 'application/json' }, body: '{"resourceLogs":[]}' });
      expect(res.status).toBe(200);
      const pb = await rawRequest(server.port, { method: 'POST', path: `/v1/${signal}`, headers: { 'content-type': 'application/x-protobuf' }, body: Buffer.from([0x0a, 0x00]) });
      expect(pb.status).toBe(200);
      expect(pb.headers['content-type']).toBe('application/x-protobuf');
    }
  });

  it("works with the README's curl --data-binary @file.pb command (real curl binary)", async () => {
    const file = path.join(samplesDir, 'protobuf', 'raw.otel-openai-v2.in.pb');
    const { stdout } = await run('curl', [
      '-sS', '-o', '/dev/null', '-w', '%{http_code} %{content_type}',
      '--data-binary', `@${file}`, '-H', 'Content-Type: application/x-protobuf', '-H', 'x-project-id: curl/pb',
      `${server.url}/v1/traces`,
    ]);
    expect(stdout).toBe('200 application/x-protobuf');
    expect(await spanCount(server.url, 'curl/pb')).toBeGreaterThan(0);
  });
});
