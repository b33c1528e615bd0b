/**
 * The decode budget's walks (service/ingest/budget.ts, issue 23.2): they count what decoding would
 * build — the same counts for a request in JSON and in protobuf — never refuse a real emitter's
 * traces, stop at the first limit passed with a 413 naming it, and never throw on bytes that are
 * merely invalid (the decoder that follows names those).
 */
import fs from 'node:fs';
import path from 'node:path';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { gzipSync } from 'node:zlib';
import { gunzipBody } from '../../src/main/service/ingest/buffer.js';
import { DECODE_LIMITS, DecodeBudget, OverBudget, checkGzipPrefix, checkJsonBudget, checkProtoBudget, gunzipOptions, type DecodeLimits } from '../../src/main/service/ingest/budget.js';
import { jsonEmptySpans, protoEmptyResourcesGzip, protoEmptySpans, validBody } from '../helpers/bombs.js';
import { OTLP_TRACE_PROTO } from '../../src/main/service/ingest/proto/trace-proto.js';
import { decodeRequest } from '../../src/main/service/ingest/protobuf.js'; // also lifts protobufjs' nesting limit above the budget's
import { repoRoot } from '../helpers/paths.js';

const Request = protobuf.parse(OTLP_TRACE_PROTO, { keepCase: false }).root.lookupType('opentelemetry.proto.ExportTraceServiceRequest');
const toProto = (json: unknown): Uint8Array => Request.encode(Request.fromObject(json as Record<string, unknown>)).finish();

const emitters = path.join(repoRoot, 'test/fixtures/emitters');
const fixtures = fs.readdirSync(emitters).filter((d) => fs.existsSync(path.join(emitters, d, 'trace.json')));

function refusal(fn: () => void): OverBudget {
  try {
    fn();
  } catch (e) {
    if (e instanceof OverBudget) return e;
    throw e;
  }
  throw new Error('not refused');
}
const small = (over: Partial<DecodeLimits>) => new DecodeBudget('body', 'traces', { ...DECODE_LIMITS, ...over });

const kv = (key: string, value: unknown) => ({ key, value });
const span = (i: number, extra: Record<string, unknown> = {}) => ({ traceId: 'ab'.repeat(16), spanId: `${i}`.padStart(16, '0'), name: `s${i}`, ...extra });
const request = (resources: unknown[]) => ({ resourceSpans: resources });

describe('counts', () => {
  const req = request([
    { resource: { attributes: [kv('service.name', { stringValue: 'a' })] }, scopeSpans: [{ scope: { name: 'x', attributes: [kv('k', { intValue: '1' })] }, spans: [span(1, { attributes: [kv('a', { stringValue: 'say "spans": [1,2,3] \\' })] }), span(2)] }] },
    {
      resource: {},
      scopeSpans: [
        { spans: [span(3, { events: [{ name: 'e', attributes: [kv('x', { boolValue: true })] }], links: [{ traceId: 'cd'.repeat(16), spanId: '1'.repeat(16) }] })] },
        { spans: [span(4, { attributes: [kv('nested', { kvlistValue: { values: [kv('a', { arrayValue: { values: [{ stringValue: 'p' }, { intValue: '2' }] } })] } })] })] },
      ],
    },
  ]);

  it('JSON and protobuf count the same resources, scopes, spans, attributes, events', () => {
    const j = new DecodeBudget('body');
    checkJsonBudget(JSON.stringify(req), j);
    const p = new DecodeBudget('body');
    checkProtoBudget(toProto(req), p);
    const expected = { resources: 2, scopes: 3, records: 4, attributes: 1 + 1 + 1 + 1 + 1 + 1 + 2, events: 2 };
    expect(j.seen()).toMatchObject(expected);
    expect(p.seen()).toMatchObject(expected);
    expect(j.seen().jsonValues).toBeGreaterThan(40);
    // The UTF-8 bytes as received count the same as the text (multi-byte characters included).
    const withUnicode = JSON.stringify(req).replace('"x"', '"Žluťoučký kůň ✓ 🐎 \\"[{"');
    const fromText = new DecodeBudget('body');
    checkJsonBudget(withUnicode, fromText);
    const fromBytes = new DecodeBudget('body');
    checkJsonBudget(Buffer.from(withUnicode), fromBytes);
    expect(fromBytes.seen()).toEqual(fromText.seen());
  });

  it('strings are skipped whole: keys and brackets inside values, escaped quotes, snake_case keys', () => {
    const b = new DecodeBudget('body');
    checkJsonBudget('{"resource_spans":[{"scope_spans":[{"spans":[{"name":"\\"spans\\":[[[{","attributes":[]}]}]}]}', b);
    expect(b.seen()).toMatchObject({ resources: 1, scopes: 1, records: 1, attributes: 0 });
  });

  it('logs count resources, scopes and log records', () => {
    const b = new DecodeBudget('body', 'logs');
    checkJsonBudget(JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { stringValue: 'x' }, attributes: [kv('a', { stringValue: 'b' })] }, {}] }] }] }), b);
    expect(b.seen()).toMatchObject({ resources: 1, scopes: 1, records: 2, attributes: 1 });
  });
});

describe('real emitters fit the budget', () => {
  it.each(fixtures)('%s (JSON and protobuf)', (name) => {
    const text = fs.readFileSync(path.join(emitters, name, 'trace.json'), 'utf8');
    const values: unknown[] = text.trim().startsWith('[') ? (JSON.parse(text) as unknown[]) : [JSON.parse(text)];
    const j = new DecodeBudget(name);
    checkJsonBudget(text, j);
    expect(j.seen().records).toBeGreaterThan(0);
    const p = new DecodeBudget(name);
    for (const v of values) if ((v as Record<string, unknown>).resourceSpans) checkProtoBudget(toProto(v), p);
    expect(p.seen().records).toBe(j.seen().records);
    expect(p.seen().attributes).toBe(j.seen().attributes);
  });
});

describe('each limit refuses with a 413 naming it', () => {
  const spans = (n: number) => request([{ scopeSpans: [{ spans: Array.from({ length: n }, (_, i) => span(i)) }] }]);
  const cases: [keyof DecodeLimits, Partial<DecodeLimits>, unknown][] = [
    ['resources', { resources: 3 }, request([{}, {}, {}, {}])],
    ['scopes', { scopes: 2 }, request([{ scopeSpans: [{}, {}] }, { scopeSpans: [{}] }])],
    ['records', { records: 5 }, spans(6)],
    ['attributes', { attributes: 4 }, request([{ resource: { attributes: [kv('a', {}), kv('b', {})] }, scopeSpans: [{ spans: [span(0, { attributes: [kv('c', {}), kv('d', {}), kv('e', {})] })] }] }])],
    ['events', { events: 1 }, request([{ scopeSpans: [{ spans: [span(0, { events: [{ name: 'a' }], links: [{ traceId: 'ab'.repeat(16) }] })] }] }])],
  ];
  it.each(cases)('%s, in JSON and protobuf', (limit, over, req) => {
    for (const check of [() => checkJsonBudget(JSON.stringify(req), small(over)), () => checkProtoBudget(toProto(req), small(over))]) {
      const e = refusal(check);
      expect(e.status).toBe(413);
      expect(e.limit).toBe(limit);
      expect(e.message).toMatch(new RegExp(`decode limit "${limit}"`));
    }
  });

  const nested = (levels: number): unknown => (levels === 0 ? { stringValue: 'bottom' } : { kvlistValue: { values: [kv('k', nested(levels - 1))] } });
  const deep = (levels: number) => request([{ scopeSpans: [{ spans: [span(0, { attributes: [kv('deep', nested(levels))] })] }] }]);
  it('depth: attribute values nested past the limit (JSON and protobuf); at the limit they pass', () => {
    expect(() => checkJsonBudget(JSON.stringify(deep(64)), new DecodeBudget('b'))).not.toThrow();
    expect(() => checkProtoBudget(toProto(deep(64)), new DecodeBudget('b'))).not.toThrow();
    expect(() => decodeRequest(toProto(deep(64)), new DecodeBudget('b'))).not.toThrow();
    expect(refusal(() => checkJsonBudget(JSON.stringify(deep(65)), new DecodeBudget('b'))).limit).toBe('depth');
    expect(refusal(() => checkProtoBudget(toProto(deep(65)), new DecodeBudget('b'))).limit).toBe('depth');
  });

  it('JSON depth and JSON values: shapes outside OTLP (unknown keys) are bounded too', () => {
    expect(refusal(() => checkJsonBudget(`{"x":${'['.repeat(400)}${']'.repeat(400)}}`, new DecodeBudget('b'))).limit).toBe('jsonDepth');
    expect(refusal(() => checkJsonBudget(`{"x":[${'0,'.repeat(50)}0]}`, small({ jsonValues: 40 }))).limit).toBe('jsonValues');
  });

  it('bytes: the budget names MiB', () => {
    const e = refusal(() => new DecodeBudget('body').bytes(DECODE_LIMITS.bytes + 1));
    expect(e.message).toBe('body: more than 64 MiB of data once decompressed in one request (decode limit "bytes"); nothing of it was stored');
  });
});

describe('invalid bytes are left to the decoder', () => {
  it('never throws but for a limit', () => {
    const texts = ['', '{', '}}]]', '{"resourceSpans":[{"scopeSpans":', '"unterminated', '{"a":"b\\', 'nul\u0000l', '[[[]]]]]]]', '{"resourceSpans":{}}'];
    for (const t of texts) expect(() => checkJsonBudget(t, new DecodeBudget('b'))).not.toThrow();
    const bufs = [Buffer.from([0x0a]), Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]), Buffer.from([0x0b, 0x00]), Buffer.from('hello world'), Buffer.alloc(100, 0xff)];
    for (const b of bufs) expect(() => checkProtoBudget(b, new DecodeBudget('b'))).not.toThrow();
  });
});

describe('a gzip body is refused on its first megabytes when they are over already', () => {
  it('the bombs trip on the prefix; a real body (and a broken gzip) passes it', () => {
    expect(refusal(() => checkGzipPrefix(protoEmptyResourcesGzip().body, 'proto', new DecodeBudget('b'))).limit).toBe('resources');
    expect(refusal(() => checkGzipPrefix(gzipSync(protoEmptySpans().body.subarray(0, 8 * 1024 * 1024)), 'sniff', new DecodeBudget('b'))).limit).toBe('records');
    expect(refusal(() => checkGzipPrefix(gzipSync(jsonEmptySpans().body.subarray(0, 8 * 1024 * 1024)), 'sniff', new DecodeBudget('b'))).limit).toBe('records');
    const real = gzipSync(validBody(4 * 1024 * 1024));
    expect(() => checkGzipPrefix(real, 'json', new DecodeBudget('b'))).not.toThrow();
    expect(() => checkGzipPrefix(real.subarray(0, 5000), 'sniff', new DecodeBudget('b'))).not.toThrow();
    expect(() => checkGzipPrefix(Buffer.concat([Buffer.from([0x1f, 0x8b]), Buffer.alloc(5000, 7)]), 'sniff', new DecodeBudget('b'))).not.toThrow();
  }, 120_000); // the bombs are built here (63 MiB gzip'd at level 9): seconds of CPU on a loaded machine
});

describe('a gzip body claiming more than the limit', () => {
  it('is inflated no further than the limit (413); a truncated body, whose trailer is no claim, is a 400; a true small claim sizes the output once', () => {
    const bomb = gzipSync(Buffer.alloc(65 * 1024 * 1024), { level: 1 });
    expect(gunzipOptions(bomb, new DecodeBudget('body'))).toEqual({ maxOutputLength: DECODE_LIMITS.bytes, chunkSize: 1024 * 1024 });
    expect(refusal(() => gunzipBody(bomb, 'sniff', new DecodeBudget('body'))).limit).toBe('bytes');
    const plain = validBody(300_000);
    const real = gzipSync(plain);
    expect(gunzipOptions(real, new DecodeBudget('body'))).toEqual({ maxOutputLength: DECODE_LIMITS.bytes, chunkSize: plain.length + 1 });
    // Cut where the last four bytes read as more than 64 MiB (most cuts do).
    let cut = real.length - 100;
    while (real.readUInt32LE(cut - 4) <= DECODE_LIMITS.bytes) cut--;
    expect(() => gunzipBody(real.subarray(0, cut), 'json', new DecodeBudget('body'))).toThrow(/gzip data is truncated or corrupt/);
  }, 60_000);
});
