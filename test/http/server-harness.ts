/**
 * Shared set-up of the server tests: a real Loupe on port 0 in a temp data dir, and raw requests.
 *
 * HTTP conformance (issue 9): the vitest project `clickhouse` (vitest.config.ts) runs the conformance
 * files again with LOUPE_TEST_STORE=clickhouse, and then every server started here keeps its spans in
 * a new database on the run's private ClickHouse (test/helpers/clickhouse.ts; a missing
 * clickhouse-server fails the file with the fix, never skips it). The test files stay unchanged.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { startLoupe, type RunningLoupe, type StartOptions } from '../../src/main/serve.js';
import { freshClickHouseStore } from '../helpers/clickhouse.js';

export { repoRoot, samplesDir } from '../helpers/paths.js';

export const tempDir = (prefix = 'loupe-server-') => fs.mkdtempSync(path.join(os.tmpdir(), prefix));

/** The TraceStore adapter this run's servers use: 'clickhouse' in the vitest project of that name. */
export const TEST_STORE: 'sqlite' | 'clickhouse' = process.env.LOUPE_TEST_STORE === 'clickhouse' ? 'clickhouse' : 'sqlite';

/** The `store` option of a server of this run: a new ClickHouse database, or the data dir's file. */
export async function testStoreOption(): Promise<string | undefined> {
  return TEST_STORE === 'clickhouse' ? (await freshClickHouseStore('http')).url : undefined;
}

export async function startTestServer(opts: Partial<StartOptions> = {}): Promise<RunningLoupe & { dataDir: string }> {
  const dataDir = opts.dataDir ?? tempDir();
  const store = opts.store ?? (await testStoreOption());
  const running = await startLoupe({ rendererDir: null, ...opts, store, dataDir, port: 0 });
  return { ...running, dataDir };
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  json(): unknown;
}

/** A request with full control of headers (fetch forbids setting Host). */
export function rawRequest(
  port: number,
  opts: { method?: string; path: string; headers?: Record<string, string>; body?: Buffer | string },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    // An explicit length: Node sends DELETE bodies without one (no chunked encoding by default).
    const length = opts.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(opts.body)) };
    const req = http.request({ host: '127.0.0.1', port, method: opts.method ?? 'GET', path: opts.path, headers: { ...length, ...opts.headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body.toString('utf8')) });
      });
    });
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/** The Authorization header of a running server's key (what `loupe key` prints). */
export const keyHeader = (server: { ctx: { apiKey: string } }) => ({ authorization: `Bearer ${server.ctx.apiKey}` });
/** The key header of a `loupe serve` child on `dataDir` (its training.key, which only the user can read). */
export const folderKeyHeader = (dataDir: string) => ({ authorization: `Bearer ${fs.readFileSync(path.join(dataDir, 'training.key'), 'utf8').trim()}` });

export async function postJson(url: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

export async function spanCount(url: string, projectId: string): Promise<number> {
  const { body } = await postJson(url, '/app/projects', {});
  return (body.projects as { project_id: string; span_count: number }[]).find((p) => p.project_id === projectId)?.span_count ?? 0;
}
