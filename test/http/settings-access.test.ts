/**
 * Issue 23.1 as tests: settings that move where data goes (`store.url`) or where Loupe listens
 * (`server.port`) are the user's to change — over HTTP they need the key, the app's own window
 * (IPC) is trusted — and unknown or prototype keys are a 422 naming the key. Real server on port 0,
 * real HTTP; the probe as another local OS user runs a real process under that user's uid.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyHeader, postJson, rawRequest, startTestServer } from './server-harness.js';
import { handleIpcCall } from '../../src/main/transport/ipc.js';

let server: Awaited<ReturnType<typeof startTestServer>>;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const settings = async () => (await (await fetch(`${server.url}/app/settings`)).json()) as { values: Record<string, string> };
const elsewhere = 'clickhouse://u:p@elsewhere.example:8123/x';

describe('settings that redirect data need the key (23.1)', () => {
  it('store.url and server.port: 401 without the key or with a wrong one, nothing saved', async () => {
    for (const values of [{ 'store.url': elsewhere }, { 'server.port': '8080' }, { 'store.url': null }, { 'ui.theme': 'dark', 'server.port': '9' }]) {
      for (const headers of [{}, { authorization: 'Bearer nope' }] as Record<string, string>[]) {
        const r = await postJson(server.url, '/app/settings', { values }, headers);
        expect(r.status, JSON.stringify(values)).toBe(401);
        expect(r.body.detail).toMatch(/^changing (store\.url|server\.port) \(.*\) needs the API key/);
      }
    }
    const now = await settings();
    expect(now.values['store.url']).toBeUndefined();
    expect(now.values['server.port']).toBeUndefined();
    expect(now.values['ui.theme']).toBeUndefined();
  });

  it('accepted with the key over HTTP, and over IPC (the app window)', async () => {
    const byKey = await postJson(server.url, '/app/settings', { values: { 'server.port': '8080', 'store.url': elsewhere } }, keyHeader(server));
    expect(byKey.status).toBe(200);
    expect(byKey.body.values).toMatchObject({ 'server.port': '8080', 'store.url': 'clickhouse://u:***@elsewhere.example:8123/x' });
    const byIpc = await handleIpcCall(server.ctx, 'system.setSettings', { values: { 'server.port': null, 'store.url': null } });
    expect(byIpc.ok).toBe(true);
    const now = await settings();
    expect(now.values['server.port']).toBeUndefined();
    expect(now.values['store.url']).toBeUndefined();
  });

  it('the page’s own preferences (ui.*) need no key', async () => {
    const r = await postJson(server.url, '/app/settings', { values: { 'ui.default_project': 'local/demo' } });
    expect(r.status).toBe(200);
    expect(r.body.values['ui.default_project']).toBe('local/demo');
  });

  it('unknown and prototype keys are a 422 naming the key, even with the key', async () => {
    for (const key of ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'store.URL', 'server.port.x', 'bogus']) {
      // Written by hand: JSON.stringify of an object literal would not carry an own __proto__.
      const body = `{"values":{${JSON.stringify(key)}:"x"}}`;
      const r = await rawRequest(server.port, { method: 'POST', path: '/app/settings', headers: { 'content-type': 'application/json', ...keyHeader(server) }, body });
      expect(r.status, key).toBe(422);
      const detail = (r.json() as { detail: Array<{ loc: string[]; msg: string }> }).detail;
      expect(detail[0]!.loc).toEqual(['body', 'values', key]);
      expect(detail[0]!.msg).toContain(`Unknown setting "${key}"`);
      expect(detail[0]!.msg).toContain('store.url');
    }
    expect(Object.keys((await settings()).values)).not.toContain('constructor');
  });

  it('/openapi.json says the operation takes the key for some inputs', async () => {
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { security?: unknown[]; description?: string }>> };
    expect(doc.paths['/app/settings']!.post!.security).toEqual([{}, { bearer: [] }]);
    expect(doc.paths['/app/settings']!.post!.description).toMatch(/store\.url, server\.port/);
  });
});

/**
 * The probe as another local account: a process running under another uid can connect to the port
 * but cannot read the key file (0600 in a 0700 folder), so it cannot redirect the spans. Needs root
 * to run a process as another user; uses the system's `nobody` account (nothing is created).
 */
const asOtherUser = (() => {
  if (process.platform === 'win32') return { reason: 'Windows has no uid to switch to' };
  if (process.getuid?.() !== 0) return { reason: `running as uid ${process.getuid?.()}, not root: cannot start a process as another user` };
  const line = fs.readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('nobody:'));
  if (!line) return { reason: 'no `nobody` account in /etc/passwd' };
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
})();
if ('reason' in asOtherUser) console.log(`settings probe as another OS user not run: ${asOtherUser.reason}`);

describe.runIf(!('reason' in asOtherUser))('a probe as another local OS user (nobody)', () => {
  it('can reach the port but neither read the key nor change store.url / server.port', async () => {
    const { uid, gid } = asOtherUser as { uid: number; gid: number };
    const script = `
      const fs = require('node:fs');
      let key = 'unreadable';
      try { key = fs.readFileSync(process.argv[2], 'utf8'); key = 'READ'; } catch (e) { key = e.code; }
      const post = (values, auth) => fetch(process.argv[1] + '/app/settings', { method: 'POST', headers: { 'content-type': 'application/json', ...(auth ? { authorization: auth } : {}) }, body: JSON.stringify({ values }) }).then((r) => r.status);
      (async () => {
        const health = await fetch(process.argv[1] + '/v1/health').then((r) => r.status);
        const store = await post({ 'store.url': ${JSON.stringify(elsewhere)} });
        const port = await post({ 'server.port': '9999' });
        const guessed = await post({ 'store.url': ${JSON.stringify(elsewhere)} }, 'Bearer guessed');
        console.log(JSON.stringify({ uid: process.getuid(), key, health, store, port, guessed }));
      })();`;
    const child = spawn(process.execPath, ['-e', script, server.url, path.join(server.dataDir, 'training.key')], { uid, gid, cwd: os.tmpdir(), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    expect(code, err).toBe(0);
    const seen = JSON.parse(out) as Record<string, unknown>;
    expect(seen).toEqual({ uid, key: 'EACCES', health: 200, store: 401, port: 401, guessed: 401 });
    expect((await settings()).values['store.url']).toBeUndefined();
  });
});
