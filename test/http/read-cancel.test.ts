/**
 * Reads off the main thread, end to end (issue 8 item 2): a real server with ONE read worker, a slow
 * spans query and cheap requests. While the slow read runs, ingest and the health check still answer
 * (they never wait for a reader); when the HTTP client of the slow read hangs up, its read is stopped,
 * so the next read is answered at once instead of after it; an IPC call is stopped by its cancel.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from './server-harness.js';
import type { RunningLoupe } from '../../src/main/serve.js';
import { handleIpcCall, handleIpcCancel } from '../../src/main/transport/ipc.js';
import { blank } from '../store/fixture.js';
import type { SpanRecord } from '../../src/main/domain/span.js';

const P = 'cancel/slow';
let s: RunningLoupe & { dataDir: string };

/** A spans query that reads every span's tool result 60 times: seconds over 20k spans on any machine. */
const SLOW = {
  project_id: P,
  limit: 10,
  query: { $expr: { $or: Array.from({ length: 60 }, (_, i) => ({ $contains: { input: { $getField: 'tool_call_result' }, substr: { $literal: `absent-${i}` }, case_insensitive: true } })) } },
};

const post = (path: string, body: unknown, signal?: AbortSignal) =>
  fetch(`${s.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal });

beforeAll(async () => {
  s = await startTestServer({ readers: 1 });
  const spans: SpanRecord[] = [];
  for (let i = 0; i < 20_000; i++) {
    spans.push(blank({ project_id: P, trace_id: (0x7000 + Math.floor(i / 20)).toString(16).padStart(32, '0'), span_id: (0x20000 + i).toString(16).padStart(16, '0'),
      start_ns: 1_800_000_000_000_000_000n + BigInt(i), tool_call_result: `result ${i} `.repeat(20) }));
  }
  await s.ctx.traces.writeSpans(spans);
  // Start the reader before timing anything.
  expect((await post('/app/projects', {})).status).toBe(200);
}, 120_000);
afterAll(() => s.close());

describe('a slow read off the main thread', () => {
  it('takes its time, while ingest and the health check answer at once', async () => {
    const t0 = performance.now();
    const slow = post('/agents/spans/query', SLOW).then(async (r) => ({ status: r.status, ms: performance.now() - t0, body: (await r.json()) as { total_count: number } }));
    await new Promise((r) => setTimeout(r, 100));
    const body = JSON.stringify({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ spans: [{ traceId: 'ab'.repeat(16), spanId: 'cd'.repeat(8), name: 'chat', startTimeUnixNano: '1800000000000000000', endTimeUnixNano: '1800000000100000000' }] }] }] });
    const t1 = performance.now();
    const ingest = await fetch(`${s.url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-project-id': 'cancel/live' }, body });
    const ingestMs = performance.now() - t1;
    const health = await fetch(`${s.url}/v1/health`);
    const r = await slow;
    expect(ingest.status).toBe(200);
    expect(health.status).toBe(200);
    expect(r.status).toBe(200);
    expect(r.body.total_count).toBe(0);
    expect(ingestMs, `ingest took ${ingestMs.toFixed(0)} ms beside a read of ${r.ms.toFixed(0)} ms`).toBeLessThan(r.ms / 2);
  }, 120_000);

  it('stops when its HTTP client hangs up: the next read does not wait for it', async () => {
    // Baseline: how long the slow read takes when it runs to the end.
    const t0 = performance.now();
    expect((await post('/agents/spans/query', SLOW)).status).toBe(200);
    const fullMs = performance.now() - t0;
    // The same read, abandoned by its client after 200 ms (the only reader is busy with it).
    const gone = new AbortController();
    const abandoned = post('/agents/spans/query', SLOW, gone.signal).catch((e: Error) => e.name);
    await new Promise((r) => setTimeout(r, 200));
    gone.abort();
    expect(await abandoned).toBe('AbortError');
    const t1 = performance.now();
    const next = await post('/app/projects', {});
    const nextMs = performance.now() - t1;
    expect(next.status).toBe(200);
    expect(nextMs, `a read after the hang-up took ${nextMs.toFixed(0)} ms; the full slow read takes ${fullMs.toFixed(0)} ms`).toBeLessThan(fullMs / 2);
  }, 120_000);

  it('an IPC call stops when the renderer cancels it (499), and the bridge keeps answering', async () => {
    const call = handleIpcCall(s.ctx, 'spans.query', SLOW, 'call-1');
    setTimeout(() => handleIpcCancel('call-1'), 100);
    expect(await call).toEqual({ ok: false, error: { status: 499, detail: expect.stringMatching(/cancel/) } });
    expect((await handleIpcCall(s.ctx, 'system.projects', {})).ok).toBe(true);
  }, 120_000);
});
