/** The loopback door: Host/Origin guard (DNS rebinding, cross-site), no CORS, body caps with 413. */
import net from 'node:net';
import os from 'node:os';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, startTestServer } from './server-harness.js';

let server: Awaited<ReturnType<typeof startTestServer>>;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const projects = (headers: Record<string, string>, body = '{}') =>
  rawRequest(server.port, { method: 'POST', path: '/app/projects', headers: { 'content-type': 'application/json', ...headers }, body });

describe('Host and Origin guard', () => {
  it('binds 127.0.0.1 only: the machine\'s other addresses refuse the connection', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const others = Object.values(os.networkInterfaces()).flat().filter((a) => a && a.family === 'IPv4' && !a.internal);
    for (const a of others) {
      const outcome = await new Promise<string>((resolve) => {
        const sock = net.connect({ host: a!.address, port: server.port });
        sock.once('connect', () => (sock.destroy(), resolve('connected')));
        sock.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
      });
      expect(outcome, a!.address).toBe('ECONNREFUSED');
    }
  });

  it('refuses Origin: http://evil.example with 403 and no CORS header', async () => {
    const res = await projects({ origin: 'http://evil.example' });
    expect(res.status).toBe(403);
    expect(res.json()).toEqual({ detail: expect.stringContaining('cross-origin') });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('refuses Host: attacker.example (DNS rebinding) with 403, on every kind of route', async () => {
    const routes: [string, string][] = [['POST', '/app/projects'], ['GET', '/openapi.json'], ['GET', '/events'], ['POST', '/v1/traces'], ['GET', '/app/key']];
    for (const [method, path] of routes) {
      const res = await rawRequest(server.port, { method, path, headers: { host: `attacker.example:${server.port}`, 'content-type': 'application/json' }, body: method === 'POST' ? '{}' : undefined });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(JSON.stringify(res.json())).toContain('Host');
    }
  });

  it('refuses an Origin on another port or scheme, and the opaque "null" origin', async () => {
    for (const origin of [`http://127.0.0.1:${server.port + 1}`, `https://127.0.0.1:${server.port}`, 'null', `http://localhost.evil.example:${server.port}`]) {
      expect((await projects({ origin })).status, origin).toBe(403);
    }
  });

  it('lets loopback names with any port and its own origin through', async () => {
    for (const host of [`127.0.0.1:${server.port}`, `localhost:${server.port}`, `[::1]:${server.port}`, 'localhost']) {
      expect((await projects({ host })).status, host).toBe(200);
    }
    for (const origin of [`http://127.0.0.1:${server.port}`, `http://localhost:${server.port}`]) {
      expect((await projects({ origin })).status, origin).toBe(200);
    }
  });
});

describe('body caps', () => {
  it('answers 413 with a clear detail for a query body over 1 MiB', async () => {
    const big = JSON.stringify({ pad: 'x'.repeat(1024 * 1024) });
    const res = await projects({}, big);
    expect(res.status).toBe(413);
    expect((res.json() as { detail: string }).detail).toMatch(/at most 1048576 bytes/);
  });

  it('answers 413 for an OTLP body over 64 MiB once decompressed (gzip bomb)', async () => {
    const bomb = gzipSync(Buffer.alloc(65 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const res = await rawRequest(server.port, {
      method: 'POST',
      path: '/v1/traces',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: bomb,
    });
    expect(res.status).toBe(413);
    expect((res.json() as { detail: string }).detail).toMatch(/64 MiB/);
  });
});
