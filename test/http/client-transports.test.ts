/**
 * The renderer's one client (src/renderer/src/api/client.ts) over both of its transports, against one
 * real server: over HTTP (what a browser on `loupe serve` uses) and over the Electron IPC path (a
 * `window.api` whose `call` is transport/ipc.ts handleIpcCall — what ipcMain.handle runs in the desktop
 * app — with the structured clone IPC applies). The Electron window cannot be opened on the build
 * machines; this pins that the desktop app's renderer gets the same answers and the same errors as
 * the browser.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handleIpcCall } from '../../src/main/transport/ipc.js';
import { ServiceError } from '../../src/shared/errors.js';
import type { OpName } from '../../src/shared/contract/index.js';
import { startTestServer } from './server-harness.js';

/** The renderer client's call (its module is typed for the browser; this test runs it under Node). */
type Client = { call(name: OpName, input: never): Promise<unknown> };
// A path the type checker does not follow into browser-only code (the node tsconfig has no DOM types).
const CLIENT = '../../src/renderer/src/api/client.js';

const g = globalThis as unknown as { window?: Record<string, unknown>; fetch: typeof fetch };

/** The little of a browser window the client touches outside `api` (its session code reads the address and storage). */
const page = (api?: unknown) => ({
  ...(api ? { api } : {}),
  location: { href: 'http://127.0.0.1/' },
  history: { state: null, replaceState: () => {} },
  localStorage: { getItem: () => null, setItem: () => {}, removeItem: () => {} },
});

describe('renderer client: HTTP and IPC give the same answers', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let client: Client;
  const realFetch = globalThis.fetch;
  beforeAll(async () => {
    server = await startTestServer();
    // The client calls relative URLs, as a page served by Loupe does.
    g.fetch = ((url: string | URL, init?: RequestInit) => realFetch(new URL(String(url), server.url), init)) as typeof fetch;
    g.window = page();
    client = (await import(CLIENT)) as Client;
    await realFetch(`${server.url}/app/demo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  });
  afterAll(async () => {
    g.fetch = realFetch;
    delete g.window;
    await server?.close();
  });

  const viaHttp = async (name: OpName, input: unknown) => {
    g.window = page();
    return client.call(name, input as never);
  };
  const viaIpc = async (name: OpName, input: unknown) => {
    g.window = page({
      call: async (op: string, inp: unknown) => structuredClone(await handleIpcCall(server.ctx, op, structuredClone(inp))),
      onEvent: () => () => {},
    });
    try {
      return await client.call(name, input as never);
    } finally {
      g.window = page();
    }
  };
  const outcome = async (f: () => Promise<unknown>) => {
    try {
      return { ok: await f() };
    } catch (e) {
      return e instanceof ServiceError ? { status: e.status, detail: e.detail } : { thrown: String(e) };
    }
  };

  const calls: Array<[OpName, unknown]> = [
    ['system.projects', {}],
    ['chat.conversation', { project_id: 'local/demo', conversation_id: 'conv-order-a1187', limit: 3, include_feedback: true }],
    ['agents.query', { project_id: 'local/demo', include_costs: true }],
    ['spans.query', { project_id: 'local/demo', group_by: [{ key: 'agent_name' }], measures: [{ alias: 'n', aggregation: 'count' }] }],
    ['threads.query', { project_id: 'local/demo' }],
    ['system.getSettings', {}],
    // Errors: a 422 with its detail array, an unknown sort field (422 from the service).
    ['spans.query', { project_id: 'local/demo', bogus: 1 }],
    ['agents.query', { project_id: 'local/demo', sort_by: [{ field: 'nope', direction: 'asc' }] }],
  ];

  it.each(calls)('%s', async (name, input) => {
    const http = await outcome(() => viaHttp(name, input));
    const ipc = await outcome(() => viaIpc(name, input));
    expect(ipc).toEqual(http);
    expect(JSON.stringify(http)).not.toContain('thrown');
  });

  it('the paged trace chat and feedback writes behave the same on both', async () => {
    const conv = (await viaHttp('chat.conversation', { project_id: 'local/demo', conversation_id: 'conv-order-a1187', limit: 1 })) as { turns: { trace_id: string }[] };
    const trace = conv.turns[0]!.trace_id;
    const page = { project_id: 'local/demo', trace_id: trace, limit: 2 };
    expect(await viaIpc('chat.tracePage', page)).toEqual(await viaHttp('chat.tracePage', page));
    const made = (await viaIpc('feedback.create', { svc_ref: `svc:///local/demo/trace/${trace}`, feedback_type: 'thumbs', payload: { value: 'up' }, creator: 'loupe-ui' })) as { id: string };
    const changed = await viaHttp('feedback.update', { project_id: 'local/demo', id: made.id, payload: { value: 'down' } });
    expect(changed).toMatchObject({ id: made.id, payload: { value: 'down' } });
    expect(await viaIpc('feedback.delete', { project_id: 'local/demo', id: made.id })).toEqual({ deleted: true });
    const gone = await outcome(() => viaHttp('feedback.delete', { project_id: 'local/demo', id: made.id }));
    expect(gone).toMatchObject({ status: 404 });
    expect(await outcome(() => viaIpc('feedback.delete', { project_id: 'local/demo', id: made.id }))).toEqual(gone);
  });
});
