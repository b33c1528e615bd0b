/**
 * A server whose web app was never built (`npm run serve` in a fresh checkout, issue 22.4): a browser
 * at '/' or at the printed sign-in link gets a page saying how to build the app, not the API's
 * `{"detail":"Not Found"}`; API callers still get the JSON 404, and the API itself answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, startTestServer } from './server-harness.js';

let server: Awaited<ReturnType<typeof startTestServer>>;
beforeAll(async () => {
  server = await startTestServer({ rendererDir: null });
});
afterAll(() => server.close());

const html = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

describe('a server with no built app', () => {
  it('answers a browser at / and at the sign-in link with how to build the app', async () => {
    for (const at of ['/', '/?login=abc123', '/#/p/local%2Fdemo/conversations']) {
      const res = await rawRequest(server.port, { path: at, headers: html });
      expect(res.status, at).toBe(404);
      expect(res.headers['content-type'], at).toMatch(/^text\/html/);
      const text = res.body.toString('utf8');
      expect(text, at).toContain('npm run build:web');
      expect(text, at).toContain('npm run serve');
      expect(text, at).not.toContain('"detail"');
    }
    // curl's plain GET / (accept */*) reads it too: '/' is the app's address.
    expect((await rawRequest(server.port, { path: '/' })).body.toString('utf8')).toContain('npm run build:web');
  });

  it('keeps the JSON 404 for API callers and answers the API', async () => {
    const res = await rawRequest(server.port, { path: '/agents/nope', headers: { accept: 'application/json' } });
    expect(res.status).toBe(404);
    expect(res.json()).toEqual({ detail: 'Not Found' });
    expect((await rawRequest(server.port, { path: '/openapi.json' })).status).toBe(200);
  });
});
