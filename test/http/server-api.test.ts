/**
 * The generated API surface: every contract op routed and listed in /openapi.json, FastAPI-shaped
 * 422s (body, query and malformed JSON), JSON 404, jsonl streaming, /events, /app/key, the renderer.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contract } from '../../src/shared/contract/index.js';
import { postJson, rawRequest, samplesDir, startTestServer, tempDir, keyHeader } from './server-harness.js';

let server: Awaited<ReturnType<typeof startTestServer>>;
let rendererDir: string;
beforeAll(async () => {
  rendererDir = tempDir('loupe-renderer-');
  fs.mkdirSync(path.join(rendererDir, 'assets'));
  fs.writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html><title>Loupe</title><div id="root"></div>');
  fs.writeFileSync(path.join(rendererDir, 'assets', 'app-1234.js'), 'console.log("app")');
  server = await startTestServer({ rendererDir });
});
afterAll(() => server.close());

describe('routes from the contract', () => {
  it('/openapi.json lists every contract operation under its method and path (aliases too)', async () => {
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as { openapi: string; paths: Record<string, Record<string, { operationId: string }>> };
    expect(doc.openapi).toBe('3.1.0');
    const ops = Object.entries(contract);
    expect(ops.length).toBeGreaterThan(5);
    for (const [name, def] of ops) {
      for (const p of [def.path, ...((def as { aliases?: string[] }).aliases ?? [])]) {
        const oa = p.replace(/:([A-Za-z_]+)/g, '{$1}');
        expect(doc.paths[oa]?.[def.method.toLowerCase()]?.operationId, `${def.method} ${p}`).toBe(name);
      }
    }
  });

  it('every contract route answers (no 404 from the router) for its method and path', async () => {
    for (const [name, def] of Object.entries(contract)) {
      const p = def.path.replace(/:([A-Za-z_]+)/g, 'x');
      const res = await rawRequest(server.port, { method: def.method, path: p, headers: def.method === 'GET' ? {} : { 'content-type': 'application/json' }, body: def.method === 'GET' ? undefined : '{"__probe__": 1}' });
      // Reaching dispatch gives 401 (keyed op), 422 (the probe key is refused) or a domain answer — never the router's 404.
      expect(res.json(), `${name} ${def.method} ${p}`).not.toEqual({ detail: 'Not Found' });
    }
  });

  it('answers unknown routes with 404 {"detail":"Not Found"}', async () => {
    const res = await rawRequest(server.port, { path: '/agents/nope', headers: { accept: 'application/json' } });
    expect(res.status).toBe(404);
    expect(res.json()).toEqual({ detail: 'Not Found' });
  });
});

describe('422 over HTTP', () => {
  it('has the FastAPI detail shape with loc starting at "body"', async () => {
    const res = await postJson(server.url, '/app/projects', { limit: 3 });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [{ loc: ['body', 'limit'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input: 3 }] });
  });

  it('answers malformed JSON with 422 json_invalid in the same shape', async () => {
    const res = await rawRequest(server.port, { method: 'POST', path: '/app/projects', headers: { 'content-type': 'application/json' }, body: '{"a": ' });
    expect(res.status).toBe(422);
    const detail = (res.json() as { detail: { loc: unknown[]; type: string; msg: string }[] }).detail;
    expect(detail).toHaveLength(1);
    expect(detail[0]).toMatchObject({ type: 'json_invalid', msg: 'JSON decode error' });
    expect(detail[0]!.loc[0]).toBe('body');
  });

  it('says "query" for a bad query-string parameter of a GET operation', async () => {
    const res = await rawRequest(server.port, { path: '/app/settings?bogus=1' });
    expect(res.status).toBe(422);
    expect((res.json() as { detail: { loc: unknown[] }[] }).detail[0]!.loc).toEqual(['query', 'bogus']);
  });

  it('a jsonl operation still answers 422 (not a broken 200 stream) for a semantic error', async () => {
    const res = await postJson(server.url, '/threads/stream_query', { project_id: 'x', sort_by: [{ field: 'no_such_field', direction: 'asc' }] });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body.detail)).toContain('no_such_field');
  });

  it('names a semantic error of a body field (system.import needs exactly one source)', async () => {
    const res = await postJson(server.url, '/import', { content: '{}', paths: ['/x'] });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc[0]).toBe('body');
    expect(res.body.detail[0].msg).toMatch(/exactly one of paths, content or content_base64/);
  });
});

describe('system operations over HTTP', () => {
  it('imports a sample by path and by uploaded body, then exports it as application/jsonl', async () => {
    const file = path.join(samplesDir, 'raw.otel-openai-v2.in.json');
    const byPath = await postJson(server.url, '/import', { paths: [file], project_id: 'api/path' }, keyHeader(server));
    expect(byPath.status).toBe(200);
    expect(byPath.body.files[0].report.spans_imported).toBeGreaterThan(0);
    const byBody = await postJson(server.url, '/import', { content: fs.readFileSync(file, 'utf8'), project_id: 'api/body', file_name: 'raw.json' });
    expect(byBody.body.files[0]).toMatchObject({ file: 'raw.json', error: null });
    expect(byBody.body.files[0].report.spans_imported).toBe(byPath.body.files[0].report.spans_imported);
    const refused = await postJson(server.url, '/import', { paths: [path.join(samplesDir, 'README.md')] }, keyHeader(server));
    expect(refused.body.files[0].report).toBeNull();
    expect(refused.body.files[0].error).toMatch(/README\.md/);

    const res = await fetch(`${server.url}/export`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ project_id: 'api/path' }) });
    expect(res.headers.get('content-type')).toMatch(/^application\/jsonl/);
    const lines = (await res.text()).trim().split('\n').map((l) => JSON.parse(l));
    const spans = lines.flatMap((l) => l.resourceSpans.flatMap((r: any) => r.scopeSpans.flatMap((s: any) => s.spans)));
    expect(spans.length).toBe(byPath.body.files[0].report.spans_imported);
    // Round trip: the export imports back to the same number of spans.
    const again = await postJson(server.url, '/import', { content: lines.map((l) => JSON.stringify(l)).join('\n'), project_id: 'api/roundtrip' });
    expect(again.body.files[0].report.spans_imported).toBe(spans.length);
  });

  it('keeps settings and reports where the data lives', async () => {
    const set = await postJson(server.url, '/app/settings', { values: { 'ui.default_project': 'local/demo' } });
    expect(set.status).toBe(200);
    const got = (await (await fetch(`${server.url}/app/settings`)).json()) as { database_bytes: number };
    expect(got).toMatchObject({ data_dir: server.dataDir, values: { 'ui.default_project': 'local/demo' } });
    expect(got.database_bytes).toBeGreaterThan(0);
    const bad = await postJson(server.url, '/app/settings', { values: { 'Bad Key': 'x' } });
    expect(bad.status).toBe(422);
  });

  it('/app/key returns the training key from the data dir, to a caller holding it (issue 13.4)', async () => {
    expect((await fetch(`${server.url}/app/key`)).status).toBe(401);
    const { key } = (await (await fetch(`${server.url}/app/key`, { headers: keyHeader(server) })).json()) as { key: string };
    expect(fs.readFileSync(path.join(server.dataDir, 'training.key'), 'utf8').trim()).toBe(key);
    expect((fs.statSync(path.join(server.dataDir, 'training.key')).mode & 0o777).toString(8)).toBe('600');
  });
});

describe('GET /events', () => {
  it('streams data.changed as server-sent events when spans arrive', async () => {
    const abort = new AbortController();
    const res = await fetch(`${server.url}/events`, { signal: abort.signal, headers: keyHeader(server) });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    await postJson(server.url, '/app/demo', { project_id: 'events/demo' });
    let text = '';
    while (!text.includes('events/demo')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    abort.abort();
    const event = text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6))).find((e) => e.project_id === 'events/demo');
    expect(event).toMatchObject({ type: 'data.changed', project_id: 'events/demo' });
  });
});

describe('the renderer at /', () => {
  it('serves index.html, assets, and index.html for client-side routes; API 404s stay JSON', async () => {
    const index = await fetch(`${server.url}/`, { headers: { accept: 'text/html' } });
    expect(index.headers.get('content-type')).toMatch(/text\/html/);
    expect(await index.text()).toContain('<div id="root">');
    expect(await (await fetch(`${server.url}/`)).text()).toContain('<div id="root">'); // curl-style, no Accept
    const asset = await fetch(`${server.url}/assets/app-1234.js`);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    const route = await fetch(`${server.url}/p/local%2Fdemo/conversations`, { headers: { accept: 'text/html' } });
    expect(await route.text()).toContain('<title>Loupe</title>');
    const escape = await rawRequest(server.port, { path: '/..%2f..%2fetc%2fpasswd', headers: { accept: 'application/json' } });
    expect(escape.status).toBe(404);
  });
});
