/**
 * Issue 13, defects 4 and 5 as tests: what any local process can reach on the loopback port, and
 * what needs the key (the app's own window is trusted over IPC). Real server on port 0, real files,
 * and the real `loupe serve` / `loupe url` for the login link.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { keyHeader, postJson, rawRequest, samplesDir, startTestServer, tempDir } from './server-harness.js';
import { exited, loupeBin, spawnServe } from '../helpers/spawn-loupe.js';
import { handleIpcCall } from '../../src/main/transport/ipc.js';

const run = promisify(execFile);
let server: Awaited<ReturnType<typeof startTestServer>>;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

const sample = path.join(samplesDir, 'raw.otel-openai-v2.in.json');

describe('the key and the event stream are for the user alone (13.4)', () => {
  it('GET /app/key: 401 without the key or with a wrong one', async () => {
    expect((await rawRequest(server.port, { path: '/app/key' })).status).toBe(401);
    expect((await rawRequest(server.port, { path: '/app/key', headers: { authorization: 'Bearer nope' } })).status).toBe(401);
    const ok = await rawRequest(server.port, { path: '/app/key', headers: keyHeader(server) });
    expect(ok.json()).toEqual({ key: server.ctx.apiKey });
  });

  it('GET /events: 401 without the key (it carries training events and file paths), a stream with it', async () => {
    const refused = await rawRequest(server.port, { path: '/events' });
    expect(refused.status).toBe(401);
    expect((refused.json() as { detail: string }).detail).toMatch(/needs the API key/);
    const abort = new AbortController();
    const res = await fetch(`${server.url}/events`, { headers: keyHeader(server), signal: abort.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    abort.abort();
  });
});

describe('the page event stream opens with an events-only ticket (EventSource sends no header)', () => {
  it('the key buys a ticket; the ticket opens /events and nothing else', async () => {
    expect((await postJson(server.url, '/app/events-ticket', {})).status).toBe(401);
    const { ticket } = (await postJson(server.url, '/app/events-ticket', {}, keyHeader(server))).body as { ticket: string };
    expect(ticket).not.toContain(server.ctx.apiKey);
    const abort = new AbortController();
    const res = await fetch(`${server.url}/events?ticket=${encodeURIComponent(ticket)}`, { signal: abort.signal });
    expect(res.status).toBe(200);
    abort.abort();
    expect((await rawRequest(server.port, { path: `/events?ticket=${ticket.slice(1)}x` })).status).toBe(401);
    expect((await rawRequest(server.port, { path: '/app/key', headers: { authorization: `Bearer ${ticket}` } })).status).toBe(401);
    expect((await rawRequest(server.port, { path: '/v1/preview/models', headers: { authorization: `Bearer ${ticket}` } })).status).toBe(401);
  });
});

describe('path-taking operations probe nothing without the key (13.5)', () => {
  it('POST /import {paths} is 401 before any file is touched: an existing file, a missing one and /etc/shadow answer alike', async () => {
    const answers = await Promise.all(
      [sample, '/no/such/file.json', '/etc/shadow'].map((p) => postJson(server.url, '/import', { paths: [p] })),
    );
    for (const a of answers) expect(a.status).toBe(401);
    expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).toBe(1);
    expect(answers[0]!.body.detail).toMatch(/importing files by path needs the API key/);
  });

  it('with the key, and over IPC (the app itself), paths import; an uploaded body needs no key', async () => {
    const byKey = await postJson(server.url, '/import', { paths: [sample], project_id: 'access/key' }, keyHeader(server));
    expect(byKey.status).toBe(200);
    expect(byKey.body.files[0].report.spans_imported).toBeGreaterThan(0);
    const byIpc = await handleIpcCall(server.ctx, 'system.import', { paths: [sample], project_id: 'access/ipc' });
    expect(byIpc.ok).toBe(true);
    const upload = await postJson(server.url, '/import', { content: fs.readFileSync(sample, 'utf8'), project_id: 'access/upload' });
    expect(upload.status).toBe(200);
    expect(upload.body.files[0].report.spans_imported).toBe(byKey.body.files[0].report.spans_imported);
  });

  it('/openapi.json says which operations take the key for some inputs', async () => {
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { security?: unknown[] }>> };
    expect(doc.paths['/import']!.post!.security).toEqual([{}, { bearer: [] }]);
  });
});

describe('the served page signs in with a one-time login code', () => {
  it('a code gives the key once; a used, unknown or missing code gives nothing', async () => {
    const code = new URL(server.loginUrl).searchParams.get('login')!;
    expect(code.length).toBeGreaterThanOrEqual(20);
    const first = await postJson(server.url, '/app/session', { code });
    expect(first).toEqual({ status: 200, body: { key: server.ctx.apiKey } });
    const again = await postJson(server.url, '/app/session', { code });
    expect(again.status).toBe(401);
    expect(again.body.detail).toMatch(/used already or has expired/);
    expect((await postJson(server.url, '/app/session', { code: 'x'.repeat(24) })).status).toBe(401);
    expect((await postJson(server.url, '/app/session', {})).status).toBe(422);
  });

  it('a fresh link needs the key', async () => {
    expect((await postJson(server.url, '/app/login-link', {})).status).toBe(401);
    const link = await postJson(server.url, '/app/login-link', {}, keyHeader(server));
    expect(link.body.url).toMatch(new RegExp(`^${server.url}/\\?login=`));
    const code = new URL(link.body.url).searchParams.get('login');
    expect((await postJson(server.url, '/app/session', { code })).status).toBe(200);
  });

  it('`loupe serve` prints the link on stderr (stdout keeps its one line); `loupe url` makes a fresh one for the running server', async () => {
    const dataDir = tempDir();
    const s = await spawnServe(['--data-dir', dataDir, '--port', '0'], {}, children);
    const deadline = Date.now() + 10_000;
    while (!/open the UI/.test(s.stderr()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50)); // stderr follows stdout's line
    const printed = /open the UI[^:]*: (\S+)/.exec(s.stderr())?.[1];
    expect(printed).toMatch(new RegExp(`^${s.url}/\\?login=`));
    const { stdout } = await run(process.execPath, [loupeBin, 'url', '--data-dir', dataDir]);
    const fresh = stdout.trim();
    expect(fresh).not.toBe(printed);
    for (const link of [printed!, fresh]) {
      const res = await postJson(s.url, '/app/session', { code: new URL(link).searchParams.get('login') });
      expect(res.status).toBe(200);
      expect(res.body.key).toBe(fs.readFileSync(path.join(dataDir, 'training.key'), 'utf8').trim());
    }
    s.child.kill('SIGTERM');
    await exited(s.child);
    const none = await run(process.execPath, [loupeBin, 'url', '--data-dir', dataDir]).catch((e: { code: number; stderr: string }) => e);
    expect((none as { code: number }).code).toBe(1);
    expect((none as { stderr: string }).stderr).toMatch(/no Loupe is serving/);
  }, 60_000);
});
