import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { importBuffer, importFile } from '../../src/main/service/ingest/index.js';
import { ServiceError } from '../../src/shared/errors.js';
import { jsonl, traceBuilder } from '../helpers/otlp.js';
import { tempStores, type TestStores } from '../helpers/temp-store.js';
import { samplesDir } from '../helpers/paths.js';

const samples = samplesDir;
const dir = mkdtempSync(path.join(tmpdir(), 'loupe-formats-'));

const freshStore = tempStores('loupe-ingest-');

function count(store: TestStores): number {
  const db = new Database(store.file, { readonly: true });
  try {
    return (db.prepare('SELECT COUNT(*) AS n FROM spans').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

function write(name: string, data: string | Buffer): string {
  const p = path.join(dir, name);
  writeFileSync(p, data);
  return p;
}

/** One small request per line, each with one chat span in its own trace. */
function requestLine(i: number): string {
  const t = traceBuilder({ seed: `line-${i}`, start: 1_790_000_000_000 + i });
  t.span('chat gpt-4o-mini', { attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': i } });
  return JSON.stringify(t.request());
}

async function rejection(p: Promise<unknown> | (() => unknown)): Promise<ServiceError> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    expect(e).toBeInstanceOf(ServiceError);
    return e as ServiceError;
  }
  throw new Error('expected a rejection');
}

const pbFiles = readdirSync(path.join(samples, 'protobuf')).sort().map((f) => readFileSync(path.join(samples, 'protobuf', f)));

describe('format detection and bad input', () => {
  it('JSONL of 50,000 lines with 10 corrupt lines stores the rest and reports the 10 by line number', async () => {
    const corrupt = [1, 2, 777, 5000, 12345, 25000, 33333, 41000, 49999, 50000];
    const lines: string[] = [];
    for (let n = 1; n <= 50_000; n++) {
      const line = requestLine(n);
      lines.push(corrupt.includes(n) ? line.slice(0, line.length / 2) : line);
    }
    const store = await freshStore();
    const rep = await importFile(store.traces, write('fifty-k.jsonl', lines.join('\n') + '\n'));
    expect(rep.format).toBe('otlp-jsonl');
    expect(rep.spans_imported).toBe(49_990);
    expect(rep.error_count).toBe(10);
    expect(rep.errors.map((e) => e.line)).toEqual(corrupt);
    expect(rep.errors[0]!.message).toMatch(/invalid JSON/);
    expect(count(store)).toBe(49_990);
  }, 90_000);

  it('collector JSONL: logs and metrics lines are skipped and counted, not errors', async () => {
    const text = [requestLine(1), JSON.stringify({ resourceLogs: [] }), JSON.stringify({ resourceMetrics: [] }), requestLine(2)].join('\n');
    const rep = await importFile((await freshStore()).traces, write('mixed.jsonl', text));
    expect(rep).toMatchObject({ spans_imported: 2, non_trace_lines_skipped: 2, error_count: 0 });
  });

  it('a JSON file that is not trace data is rejected whole with a clear message', async () => {
    const store = await freshStore();
    const e = await rejection(importFile(store.traces, write('package.json', JSON.stringify({ name: 'x', version: '1.0.0' }, null, 2))));
    expect(e.status).toBe(400);
    expect(e.message).toMatch(/package\.json: not OTLP trace data.*"resourceSpans".*"name", "version"/);
    const arr = await rejection(importFile(store.traces, write('array.json', JSON.stringify([JSON.parse(requestLine(1)), { foo: 1 }]))));
    expect(arr.message).toMatch(/element 1 is an object with keys "foo"/);
    const lines = await rejection(importFile(store.traces, write('notes.jsonl', '{"a":1}\n{"b":2}\n')));
    expect(lines.message).toMatch(/notes\.jsonl: not trace data: no line is an OTLP trace request/);
    const bin = await rejection(importFile(store.traces, write('random.bin', Buffer.from([0xde, 0xad, 0xbe, 0xef, 1, 2, 3]))));
    expect(bin.message).toMatch(/random\.bin: not trace data/);
    expect(count(store)).toBe(0); // the first element of array.json was valid, and still nothing was stored
  });

  it('a truncated gzip gives a clear error and stores nothing from the broken part', async () => {
    const store = await freshStore();
    const whole = zlib.gzipSync(readFileSync(path.join(samples, 'vercel-ai-sdk.in.json')));
    const cut = whole.subarray(0, Math.floor(whole.length * 0.6));
    const e = await rejection(importFile(store.traces, write('cut.json.gz', cut)));
    expect(e.status).toBe(400);
    expect(e.message).toMatch(/cut\.json\.gz: gzip data is truncated or corrupt.*nothing was stored/);
    const b = await rejection(() => importBuffer(store.traces, cut, { contentType: 'application/json', contentEncoding: 'gzip' }));
    expect(b.message).toMatch(/gzip data is truncated or corrupt/);
    expect(count(store)).toBe(0);

    // JSONL: complete lines before the cut are kept, the partial line after it is not.
    const lines = Array.from({ length: 3000 }, (_, i) => requestLine(i)).join('\n');
    const gz = zlib.gzipSync(lines);
    const e2 = await rejection(importFile(store.traces, write('cut.jsonl.gz', gz.subarray(0, gz.length - 200))));
    expect(e2.message).toMatch(/gzip data is truncated or corrupt/);
    const kept = count(store);
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(3000);
  });

  it('a wrong content type is refused with 415 and nothing is stored', async () => {
    const store = await freshStore();
    const e = await rejection(() => importBuffer(store.traces, Buffer.from(requestLine(1)), { contentType: 'text/html; charset=utf-8' }));
    expect(e.status).toBe(415);
    expect(e.message).toMatch(/Unsupported content type "text\/html"/);
    const enc = await rejection(() => importBuffer(store.traces, Buffer.from(requestLine(1)), { contentType: 'application/json', contentEncoding: 'br' }));
    expect(enc.status).toBe(415);
    const notJson = await rejection(() => importBuffer(store.traces, pbFiles[0]!, { contentType: 'application/json' }));
    expect(notJson.status).toBe(400);
    expect(count(store)).toBe(0);
  });

  it('bodies: JSON, protobuf, gzip of each; the header project wins', async () => {
    const store = await freshStore();
    const json = readFileSync(path.join(samples, 'raw.otel-openai-v2.in.json'));
    expect(await importBuffer(store.traces, json, { contentType: 'application/json' })).toMatchObject({ format: 'otlp-json', spans_imported: 1 });
    expect(await importBuffer(store.traces, zlib.gzipSync(json), { contentType: 'application/json', contentEncoding: 'gzip' })).toMatchObject({
      format: 'otlp-json+gzip',
      spans_replaced: 1,
    });
    expect(await importBuffer(store.traces, pbFiles[0]!, { contentType: 'application/x-protobuf', projectId: 'team/p' })).toMatchObject({
      format: 'otlp-proto',
      projects: ['team/p'],
    });
    expect((await importBuffer(store.traces, zlib.gzipSync(pbFiles[1]!), { contentType: 'application/x-protobuf' })).format).toBe('otlp-proto+gzip');
    expect((await importBuffer(store.traces, Buffer.alloc(0), { contentType: 'application/x-protobuf' })).spans_imported).toBe(0);
  });

  it('JSONL read in 1 MiB chunks: characters cut by a chunk edge, CRLF, a line over several chunks and no final newline are read exactly', async () => {
    const names: string[] = [];
    const lines: string[] = [];
    for (let i = 0; i < 1500; i++) {
      // Mostly 3-byte and 4-byte characters, so the chunk edges fall inside characters.
      const name = `${i} ${'日本語のスパン🙂é'.repeat(10 + (i % 37))}`;
      const t = traceBuilder({ seed: `chunk-${i}`, start: 1_790_000_000_000 + i });
      // One line of ~2.5 MiB: it spans three chunks.
      t.span(name, { attributes: { 'gen_ai.operation.name': 'chat', ...(i === 700 ? { 'big.value': 'ü'.repeat(1_300_000) } : {}) } });
      names.push(name);
      lines.push(JSON.stringify(t.request()));
    }
    const text = lines.map((l, i) => (i % 3 === 0 ? `${l}\r\n` : i === lines.length - 1 ? l : `${l}\n`)).join('');
    const bytes = Buffer.from(text, 'utf8');
    // The test's own premise: some chunk edges (every MiB) cut a character (UTF-8 continuation byte there).
    const cut = [1, 2, 3, 4, 5, 6].filter((k) => k << 20 < bytes.length && (bytes[k << 20]! & 0xc0) === 0x80);
    expect(cut.length).toBeGreaterThan(0);
    const store = await freshStore();
    expect(await importFile(store.traces, write('chunks.jsonl', bytes), { thread: 'inline' })).toMatchObject({ spans_imported: 1500, error_count: 0 });
    const db = new Database(store.file, { readonly: true });
    try {
      const stored = (db.prepare('SELECT span_name FROM spans').pluck().all() as string[]).sort();
      expect(stored).toEqual([...names].sort());
    } finally {
      db.close();
    }
  });

  it('files: top-level array, pretty-printed JSON, length-prefixed protobuf and gzip of it', async () => {
    const reqs = readdirSync(samples).filter((f) => f.endsWith('.in.json')).sort().map((f) => JSON.parse(readFileSync(path.join(samples, f), 'utf8')));
    expect(await importFile((await freshStore()).traces, write('arr.json', JSON.stringify(reqs)))).toMatchObject({ format: 'otlp-json-array', spans_imported: 11 });
    expect(await importFile((await freshStore()).traces, write('pretty.json', JSON.stringify(reqs[0], null, 2)))).toMatchObject({ format: 'otlp-json', spans_imported: 2 });
    expect(await importFile((await freshStore()).traces, write('one.jsonl', jsonl([reqs[0]])))).toMatchObject({ format: 'otlp-json', spans_imported: 2 });
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    expect(await importFile((await freshStore()).traces, write('bom.json', Buffer.concat([bom, Buffer.from(JSON.stringify(reqs[0], null, 2))])))).toMatchObject({ spans_imported: 2 });
    expect(await importFile((await freshStore()).traces, write('bom.jsonl', Buffer.concat([bom, Buffer.from(jsonl(reqs))])))).toMatchObject({ spans_imported: 11, error_count: 0 });
    expect((await importBuffer((await freshStore()).traces, Buffer.concat([bom, Buffer.from(JSON.stringify(reqs[1]))]), { contentType: 'application/json' })).spans_imported).toBe(1);

    const delimited = Buffer.concat(pbFiles.flatMap((b) => [Buffer.from([0, 0, 0, 0]).fill(0), b]).map((b, i, all) => (i % 2 === 0 ? lengthOf(all[i + 1]!) : b)));
    expect(await importFile((await freshStore()).traces, write('all.binpb', delimited))).toMatchObject({ format: 'otlp-proto-delimited', spans_imported: 11 });
    expect(await importFile((await freshStore()).traces, write('all.binpb.gz', zlib.gzipSync(delimited)))).toMatchObject({
      format: 'otlp-proto-delimited+gzip',
      spans_imported: 11,
    });
    expect(await importFile((await freshStore()).traces, write('one.pb.gz', zlib.gzipSync(pbFiles[2]!)))).toMatchObject({ format: 'otlp-proto+gzip' });
  });
});

function lengthOf(b: Buffer): Buffer {
  const l = Buffer.alloc(4);
  l.writeUInt32BE(b.length);
  return l;
}
