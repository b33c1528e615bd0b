/**
 * Large bodies are parsed off the server thread (service/ingest/body-ingest.ts, issue 13.7): what the
 * worker stores equals what an in-thread import stores, for plain and gzip bodies, with per-span
 * rejections still reported; too much waiting is a 429 with Retry-After, not unbounded memory.
 */
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { rawRequest, spanCount, startTestServer, tempDir } from './server-harness.js';
import { openTestStores, type TestStores } from '../helpers/temp-store.js';
import { importBuffer } from '../../src/main/service/ingest/index.js';
import { BodyIngester, INLINE_MAX_BYTES } from '../../src/main/service/ingest/body-ingest.js';
import { generateDemo } from '../../src/main/demo/generate.js';
import { summaryTables } from '../helpers/store-consistency.js';

const stores: TestStores[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
});
const store = async () => {
  const s = await openTestStores(tempDir('loupe-body-'));
  stores.push(s);
  return s;
};

/** One OTLP/JSON request of the demo's conversations, over `bytes`, with one span whose start is past 2^63 ns. */
function body(bytes: number): Buffer {
  const resourceSpans: { scopeSpans: { spans: Record<string, unknown>[] }[] }[] = [];
  for (let seed = 1, size = 0; size < bytes; seed++) {
    for (const r of generateDemo({ seed, now: Date.UTC(2026, 10, 22), fillers: 10 }).requests as { resourceSpans: typeof resourceSpans }[]) {
      resourceSpans.push(...r.resourceSpans);
      size += JSON.stringify(r).length;
    }
  }
  resourceSpans[3]!.scopeSpans[0]!.spans[0]!.startTimeUnixNano = (2n ** 63n + 1n).toString();
  return Buffer.from(JSON.stringify({ resourceSpans }));
}

describe('bodies through the ingest worker', () => {
  const big = body(2 * INLINE_MAX_BYTES);

  it('a body past the inline size stores exactly what an in-thread import stores, plain and gzip', async () => {
    const inline = await store();
    const expected = await importBuffer(inline.traces, big, { contentType: 'application/json', projectId: 'p' });
    for (const [encoding, payload] of [[undefined, big], ['gzip', gzipSync(big)]] as const) {
      const viaWorker = await store();
      const ingester = new BodyIngester(viaWorker.traces);
      const report = await ingester.import(payload, { contentType: 'application/json', contentEncoding: encoding, projectId: 'p' });
      await ingester.close();
      expect(report.spans_imported).toBe(expected.spans_imported);
      expect(report.spans_skipped).toBe(1);
      expect(report.errors[0]!.message).toMatch(/start_time_unix_nano out of range/);
      expect(summaryTables(viaWorker.file)).toEqual(summaryTables(inline.file));
    }
  }, 60_000);

  it('over POST /v1/traces: the same partial success, and the server answers others meanwhile', async () => {
    const s = await startTestServer();
    try {
      const posted = rawRequest(s.port, { method: 'POST', path: '/v1/traces', headers: { 'content-type': 'application/json', 'x-project-id': 'big' }, body: big });
      const health = await rawRequest(s.port, { path: '/v1/health' });
      expect(health.status).toBe(200);
      const res = await posted;
      expect(res.status).toBe(200);
      expect((res.json() as { partialSuccess: { rejectedSpans: string } }).partialSuccess.rejectedSpans).toBe('1');
    } finally {
      await s.close();
    }
  }, 60_000);

  it('a cheap request is answered in the middle of a large post\'s writes, before the post, which then stores every span', async () => {
    // Writes run on the store's writer thread (store/sqlite/writer.ts): the server thread stays free
    // to answer while the post's batches are written. Ordering, not timing: the cheap answer comes
    // while part of the post is stored and the post has not answered yet.
    const large = body(8 * 1024 * 1024);
    // The synchronous path (a body this large is otherwise spooled and answered at once: otlp-spool.test.ts).
    const s = await startTestServer({ spool: null });
    try {
      let postAnswered = false;
      const posted = rawRequest(s.port, { method: 'POST', path: '/v1/traces', headers: { 'content-type': 'application/json', 'x-project-id': 'large' }, body: large }).then((r) => {
        postAnswered = true;
        return r;
      });
      let stored = 0;
      while (stored === 0 && !postAnswered) stored = await spanCount(s.url, 'large');
      const health = await rawRequest(s.port, { path: '/v1/health' });
      const answeredBeforePost = !postAnswered;
      expect(health.status).toBe(200);
      const res = await posted;
      expect(res.status).toBe(200);
      const total = await spanCount(s.url, 'large');
      // The post's first batch was stored, the cheap request answered, and only then the post.
      expect(stored).toBeGreaterThan(0);
      expect(stored).toBeLessThan(total);
      expect(answeredBeforePost).toBe(true);
      expect((res.json() as { partialSuccess: { rejectedSpans: string } }).partialSuccess.rejectedSpans).toBe('1');
    } finally {
      await s.close();
    }
  }, 180_000);

  it('more than the queue holds is a 429 with Retry-After; what was accepted is stored', async () => {
    const ingester = new BodyIngester((await store()).traces, big.length + 1024);
    const first = ingester.import(big, { contentType: 'application/json', projectId: 'q1' });
    const second = ingester.import(big, { contentType: 'application/json', projectId: 'q2' }).then(
      () => null,
      (e: { status: number; retryAfterSeconds?: number }) => e,
    );
    const refused = await second;
    expect(refused?.status).toBe(429);
    expect(refused?.retryAfterSeconds).toBeGreaterThan(0);
    expect((await first).spans_imported).toBeGreaterThan(0);
    await ingester.close();
  }, 60_000);
});

