/**
 * The Electron IPC bridge under Node: transport/ipc.ts is what ipcMain.handle('loupe:call') runs,
 * so these calls are exactly what the desktop app's renderer gets.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStores, type Stores } from '../../src/main/store/index.js';
import { EventBus } from '../../src/main/service/events.js';
import type { ServiceContext } from '../../src/main/service/context.js';
import { CALL_CHANNEL, EVENT_CHANNEL, forwardEvents, handleIpcCall, isAppUrl, isWebUrl } from '../../src/main/transport/ipc.js';
import type { LoupeEvent } from '../../src/shared/events.js';
import { contract } from '../../src/shared/contract/index.js';

let store: Stores;
let ctx: ServiceContext;
beforeAll(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-ipc-'));
  store = await openStores(dir);
  ctx = { traces: store.traces, app: store.app, events: new EventBus(), dataDir: dir, apiKey: 'secret-key' };
});
afterAll(() => store.close());

describe('handleIpcCall', () => {
  it('uses the two channel names the preload uses', () => {
    const preload = fs.readFileSync(path.resolve(__dirname, '../../src/preload/index.ts'), 'utf8');
    expect(preload).toContain(`'${CALL_CHANNEL}'`);
    expect(preload).toContain(`'${EVENT_CHANNEL}'`);
    expect(preload).not.toMatch(/exposeInMainWorld\('(?!api')/);
  });

  it('returns {ok: true, result} from the same handler as HTTP', async () => {
    const demo = await handleIpcCall(ctx, 'system.loadDemo', { project_id: 'ipc/demo' });
    expect(demo).toMatchObject({ ok: true, result: { project_id: 'ipc/demo' } });
    const projects = await handleIpcCall(ctx, 'system.projects', {});
    expect(projects.ok && (projects.result as { projects: { project_id: string }[] }).projects.map((p) => p.project_id)).toContain('ipc/demo');
  });

  it('returns the 422 detail shape as {ok: false, error: {status, detail}}', async () => {
    const res = await handleIpcCall(ctx, 'system.projects', { nope: true });
    expect(res).toEqual({ ok: false, error: { status: 422, detail: [{ loc: ['body', 'nope'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input: true }] } });
  });

  it('refuses unknown operations and non-string names without throwing', async () => {
    expect(await handleIpcCall(ctx, 'fs.readFile', {})).toEqual({ ok: false, error: { status: 404, detail: 'Unknown operation: fs.readFile' } });
    expect(await handleIpcCall(ctx, 42, {})).toMatchObject({ ok: false, error: { status: 400 } });
  });

  it('trusts the app renderer for keyed operations (no bearer key over IPC)', async () => {
    const keyed = Object.entries(contract).find(([, d]) => d.auth === 'key' && d.method === 'GET' && !d.path.includes(':'));
    expect(keyed).toBeDefined();
    const res = await handleIpcCall(ctx, keyed![0], {});
    expect(res.ok || (res as { error: { status: number } }).error.status !== 401).toBe(true);
  });

  it('collects jsonl operations into arrays (structured clone cannot carry iterators)', async () => {
    const res = await handleIpcCall(ctx, 'system.export', { project_id: 'ipc/demo', conversation_ids: ['conv-order-a1187'] });
    expect(res.ok).toBe(true);
    const lines = (res as { result: { resourceSpans: unknown[] }[] }).result;
    expect(Array.isArray(lines)).toBe(true);
    expect(lines).toHaveLength(7); // one ExportTraceServiceRequest per turn
    expect(structuredClone(lines)).toEqual(lines);
  });
});

describe('forwardEvents', () => {
  it('sends every service event on loupe:event until unsubscribed', () => {
    const sent: [string, LoupeEvent][] = [];
    const stop = forwardEvents(ctx, (channel, event) => sent.push([channel, event]));
    ctx.events.emit({ type: 'data.changed', project_id: 'p', tables: ['spans'] });
    stop();
    ctx.events.emit({ type: 'data.changed', project_id: 'q', tables: ['spans'] });
    expect(sent).toEqual([[EVENT_CHANNEL, { type: 'data.changed', project_id: 'p', tables: ['spans'] }]]);
  });
});

describe('isAppUrl (IPC sender check and navigation guard of the desktop shell)', () => {
  const app = 'http://127.0.0.1:4318';
  it.each([
    ['http://127.0.0.1:4318/#/p/local%2Fdemo/conversations', true],
    ['http://127.0.0.1:4318', true],
    ['http://127.0.0.1:4319/', false],
    ['http://localhost:4318/', false],
    ['https://127.0.0.1:4318/', false],
    ['http://evil.example/', false],
    ['file:///etc/passwd', false],
    ['not a url', false],
    ['', false],
    [null, false],
  ])('%s → %s', (url, expected) => {
    expect(isAppUrl(url, app)).toBe(expected);
  });
});

describe('isWebUrl (what the desktop shell may hand to shell.openExternal, issue 13.9)', () => {
  it.each([
    ['https://example.com/docs', true],
    ['http://127.0.0.1:4318/', true],
    ['file:///etc/passwd', false],
    ['smb://host/share', false],
    ['javascript:alert(1)', false],
    ['vscode://open?file=/x', false],
    ['ms-msdt:/id', false],
    ['not a url', false],
  ])('%s → %s', (url, expected) => {
    expect(isWebUrl(url)).toBe(expected);
  });
});
