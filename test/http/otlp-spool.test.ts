/**
 * The OTLP spool (service/ingest/spool.ts, decision 0025): a large OTLP body is answered once it is
 * on disk, and drained into the store after. Real servers on port 0, real spool files; the file runs
 * in the ClickHouse project too (vitest.config.ts), where every server keeps its spans in ClickHouse.
 * Deterministic: "answered before readable" is shown with draining held (LOUPE_SPOOL_DRAIN=0 /
 * `drain: false`), the drain is waited for with POST /app/spool/drained, never slept for.
 */
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { postJson, rawRequest, spanCount, startTestServer, tempDir, testStoreOption } from './server-harness.js';
import { agentRunsBody as body } from '../helpers/spool-body.js';
import { exited, spawnServe } from '../helpers/spawn-loupe.js';
import { INLINE_MAX_BYTES } from '../../src/main/service/ingest/body-ingest.js';

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

const TRACES = 300; // 600 spans, 10 input + 3 output tokens per trace
const SPOOL_AT = 400; // spans: this body is "large" for these servers, a 100-span one is not

const post = (port: number, payload: Buffer | string, project: string, headers: Record<string, string> = {}) =>
  rawRequest(port, { method: 'POST', path: '/v1/traces', headers: { 'content-type': 'application/json', 'x-project-id': project, ...headers }, body: payload });

const health = async (url: string) => (await (await fetch(`${url}/app/health`)).json()) as { spooled: { bodies: number; spans: number; bytes: number; oldest_age_s: number | null; held: boolean } | null };

async function drained(url: string): Promise<void> {
  const r = await postJson(url, '/app/spool/drained', { timeout_ms: 120_000 });
  expect(r.status).toBe(200);
  expect(r.body.drained, JSON.stringify(r.body)).toBe(true);
  expect(r.body.spooled.bodies).toBe(0);
}

/** Spans and the agent's tokens as the summaries count them. */
async function counts(url: string, project: string) {
  const agents = await postJson(url, '/agents/query', { project_id: project });
  const a = (agents.body.agents as { agent_name: string; total_input_tokens: number; total_output_tokens: number }[]).find((x) => x.agent_name === 'spooler');
  return { spans: await spanCount(url, project), input: a?.total_input_tokens ?? 0, output: a?.total_output_tokens ?? 0 };
}

const expected = (traces: number) => ({ spans: 2 * traces, input: 10 * traces, output: 3 * traces });
const spoolFiles = (dataDir: string) => (fs.existsSync(path.join(dataDir, 'spool')) ? fs.readdirSync(path.join(dataDir, 'spool')).filter((n) => n !== 'failed') : []);

describe('OTLP spool', () => {
  const big = body(TRACES);

  it('a large post is answered once on disk (0600), before its spans are readable; drained after a restart, exactly once', async () => {
    expect(big.length).toBeGreaterThan(INLINE_MAX_BYTES); // goes through the body worker
    const store = await testStoreOption();
    const dataDir = tempDir('loupe-spool-');
    const held = await startTestServer({ dataDir, store, spool: { minSpans: SPOOL_AT, drain: false } });
    const announced: unknown[] = [];
    held.ctx.events.on((e) => e.type === 'spool.status' && announced.push(e));
    try {
      const res = await post(held.port, big, 'spool/a');
      expect(res.status).toBe(200);
      expect(res.json()).toEqual({});
      const gz = await post(held.port, gzipSync(body(TRACES, 'gz')), 'spool/a', { 'content-encoding': 'gzip' });
      expect(gz.status).toBe(200);
      // A small body keeps the synchronous path: readable as soon as it is answered.
      expect((await post(held.port, body(50, 'small'), 'spool/small')).status).toBe(200);
      expect(await spanCount(held.url, 'spool/small')).toBe(100);

      expect(await spanCount(held.url, 'spool/a')).toBe(0);
      const files = spoolFiles(dataDir);
      expect(files).toHaveLength(2);
      for (const f of files) expect(fs.statSync(path.join(dataDir, 'spool', f)).mode & 0o777).toBe(0o600);
      const h = await health(held.url);
      expect(h.spooled).toMatchObject({ bodies: 2, spans: 4 * TRACES, held: true });
      expect(h.spooled!.bytes).toBeGreaterThan(big.length);
      expect(h.spooled!.oldest_age_s).toBeGreaterThanOrEqual(0);
      expect(announced.at(-1)).toEqual({ type: 'spool.status', bodies: 2, spans: 4 * TRACES, held: true }); // the sidebar's status line
      const waited = await postJson(held.url, '/app/spool/drained', { timeout_ms: 50 });
      expect(waited.body).toMatchObject({ drained: false, spooled: { bodies: 2 } });
    } finally {
      await held.close();
    }

    const s = await startTestServer({ dataDir, store, spool: { minSpans: SPOOL_AT } });
    try {
      await drained(s.url);
      expect(await counts(s.url, 'spool/a')).toEqual(expected(2 * TRACES));
      expect(spoolFiles(dataDir)).toEqual([]);
      expect((await health(s.url)).spooled).toMatchObject({ bodies: 0, spans: 0, bytes: 0, oldest_age_s: null, failed: 0, last_error: null });
    } finally {
      await s.close();
    }
  }, 180_000);

  it('drains while serving: the same spans posted twice are stored once (no doubled spans or tokens); skipped spans still in partial_success', async () => {
    const s = await startTestServer({ spool: { minSpans: SPOOL_AT } });
    try {
      const bad = JSON.parse(big.toString('utf8')) as { resourceSpans: { scopeSpans: { spans: { startTimeUnixNano: string }[] }[] }[] };
      bad.resourceSpans[7]!.scopeSpans[0]!.spans[0]!.startTimeUnixNano = (2n ** 63n + 1n).toString();
      const first = await post(s.port, JSON.stringify(bad), 'spool/b');
      expect(first.status).toBe(200);
      const partial = (first.json() as { partialSuccess: { rejectedSpans: string; errorMessage: string } }).partialSuccess;
      expect(partial.rejectedSpans).toBe('1');
      expect(partial.errorMessage).toMatch(/start_time_unix_nano out of range/);
      expect((await post(s.port, big, 'spool/b')).status).toBe(200);
      await drained(s.url);
      expect(await counts(s.url, 'spool/b')).toEqual(expected(TRACES));
      expect(spoolFiles(s.dataDir)).toEqual([]);
    } finally {
      await s.close();
    }
  }, 180_000);

  it('a bad large body is still a 400 naming what is wrong, and leaves nothing in the spool', async () => {
    // 300 kB: every body below is checked in the worker for the spool (by bytes when no span is counted).
    const s = await startTestServer({ spool: { minSpans: SPOOL_AT, minBytes: 300_000 } });
    try {
      const broken = Buffer.concat([big.subarray(0, big.length - 40), Buffer.from('}}}')]);
      const r1 = await post(s.port, broken, 'spool/c');
      expect(r1.status).toBe(400);
      expect(r1.body.toString()).toMatch(/not valid JSON/);
      const notOtlp = Buffer.from(JSON.stringify({ name: 'x', items: Array.from({ length: 20_000 }, (_, i) => ({ i, pad: 'ab'.repeat(10) })) }));
      const r2 = await post(s.port, notOtlp, 'spool/c');
      expect(r2.status).toBe(400);
      expect(r2.body.toString()).toMatch(/not OTLP trace data/);
      const r3 = await post(s.port, Buffer.from('not gzip at all, but said to be'.repeat(20_000)), 'spool/c', { 'content-encoding': 'gzip' });
      expect(r3.status).toBe(400);
      expect(spoolFiles(s.dataDir)).toEqual([]);
      expect((await health(s.url)).spooled).toMatchObject({ bodies: 0 });
      expect(await spanCount(s.url, 'spool/c')).toBe(0);
    } finally {
      await s.close();
    }
  }, 120_000);

  it('past its byte cap the spool answers 503 with Retry-After and says so; the backlog shows in health', async () => {
    const s = await startTestServer({ spool: { minSpans: SPOOL_AT, drain: false, maxBytes: Math.round(big.length * 1.5) } });
    try {
      expect((await post(s.port, big, 'spool/d')).status).toBe(200);
      const full = await post(s.port, body(TRACES, 'other'), 'spool/d');
      expect(full.status).toBe(503);
      expect(Number(full.headers['retry-after'])).toBeGreaterThan(0);
      expect(full.body.toString()).toMatch(/OTLP spool is full/);
      expect(spoolFiles(s.dataDir)).toHaveLength(1);
      expect((await health(s.url)).spooled).toMatchObject({ bodies: 1, spans: 2 * TRACES });
      // A body below the spool's threshold is stored as ever, full spool or not.
      expect((await post(s.port, body(50, 'small'), 'spool/d')).status).toBe(200);
      expect(await spanCount(s.url, 'spool/d')).toBe(100);
    } finally {
      await s.close();
    }
  }, 120_000);

  it('loupe serve killed (SIGKILL) after answering replays the spool at its next start, exactly once', async () => {
    const store = await testStoreOption();
    const dataDir = tempDir('loupe-spool-kill-');
    const args = ['--data-dir', dataDir, '--port', '0', ...(store ? ['--store', store] : [])];
    const env = { LOUPE_SPOOL_MIN_SPANS: String(SPOOL_AT) };
    // Killed with the body on disk and not imported (draining held), then killed again in the middle
    // of whatever the drain is doing (it may have stored some, all or none of the spans).
    const a = await spawnServe(args, { ...env, LOUPE_SPOOL_DRAIN: '0' }, children);
    const port = Number(new URL(a.url).port);
    expect((await post(port, big, 'spool/e')).status).toBe(200);
    expect((await post(port, body(TRACES, 'second'), 'spool/e')).status).toBe(200);
    a.child.kill('SIGKILL');
    await exited(a.child);
    expect(spoolFiles(dataDir)).toHaveLength(2);

    const b = await spawnServe(args, env, children);
    expect((await post(Number(new URL(b.url).port), big, 'spool/e')).status).toBe(200); // the same spans once more
    b.child.kill('SIGKILL');
    await exited(b.child);

    const c = await spawnServe(args, env, children);
    try {
      await drained(c.url);
      expect(await counts(c.url, 'spool/e')).toEqual(expected(2 * TRACES));
      expect(spoolFiles(dataDir)).toEqual([]);
    } finally {
      c.child.kill('SIGTERM');
      await exited(c.child);
    }
  }, 240_000);
});
