/**
 * Fault suite, issue 23.2: hostile bodies against a real `loupe serve` (its own process, so its
 * memory is its own). Each bomb shape — on /v1/traces, as an /import upload, by path and through
 * `loupe import` — is a 413 naming the decode limit it passed, while valid bodies posted beside it
 * (large enough to go through the same ingest worker) are answered and stored; the server's peak
 * memory while answering them stays within 256 MiB of its RSS before. How long each answer took is printed
 * here; the figures are `npm run bench -- bombs`' (timings are never asserted).
 */
import { execFile, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { folderKeyHeader, postJson, spanCount, tempDir } from './server-harness.js';
import { exited, loupeBin, spawnServe, type Served } from '../helpers/spawn-loupe.js';
import { BOMBS, jsonEmptySpans, protoEmptyResourcesGzip, jsonHugeAttributeGzip, validBody, type Bomb } from '../helpers/bombs.js';

const run = promisify(execFile);
const MiB = 1024 * 1024;
const children: ChildProcess[] = [];
let served: Served;
let dataDir: string;

/** A line of the server's /proc status, in MiB; NaN where /proc is not there. */
const statusMb = (pid: number, field: 'VmHWM' | 'VmRSS') => {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
};

/**
 * Starts a peak-memory window: the kernel's high-water mark is reset to the current RSS (Linux:
 * `5 > /proc/PID/clear_refs`, the process's owner may). Returns the RSS it starts from, or a reason
 * why the window cannot be measured here.
 */
function startPeakWindow(pid: number): number | string {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch (e) {
    return `peak memory not measured: cannot reset the high-water mark (${(e as Error).message})`;
  }
  const rss = statusMb(pid, 'VmRSS');
  return Number.isNaN(rss) ? 'peak memory not measured: no /proc status' : rss;
}

const post = async (url: string, body: Buffer, headers: Record<string, string>) => {
  const t = performance.now();
  const res = await fetch(`${url}/v1/traces`, { method: 'POST', headers, body });
  return { status: res.status, text: await res.text(), ms: performance.now() - t };
};
const headersOf = (b: Pick<Bomb, 'contentType' | 'gzip'>, project: string) => ({ 'content-type': b.contentType, 'x-project-id': project, ...(b.gzip ? { 'content-encoding': 'gzip' } : {}) });

beforeAll(async () => {
  dataDir = tempDir('loupe-bombs-');
  served = await spawnServe(['--data-dir', dataDir, '--port', '0'], {}, children);
  // Warm: one valid body through the ingest worker, so the baseline holds the worker and its code.
  const warm = await post(served.url, validBody(650 * 1024, 7), { 'content-type': 'application/json', 'x-project-id': 'bombs/warm' });
  expect(warm.status).toBe(200);
}, 120_000);

afterAll(async () => {
  for (const c of children.splice(0)) {
    c.kill('SIGTERM');
    await exited(c);
  }
});

describe('bombs on /v1/traces: 413 naming the limit; valid bodies beside them answered', () => {
  it.each(BOMBS.map((make) => [make.name, make] as const))('%s', async (_name, make) => {
    const bomb = make();
    const n = BOMBS.indexOf(make);
    const pid = served.child.pid!;
    const window = startPeakWindow(pid);
    // Three valid 650 KB bodies (over the inline size: the same worker as the bomb) and a health check, sent with it.
    const valid = [0, 1, 2].map((i) => post(served.url, validBody(650 * 1024, 100 * n + i + 1), { 'content-type': 'application/json', 'x-project-id': `bombs/valid-${n}-${i}` }));
    const refused = post(served.url, bomb.body, headersOf(bomb, `bombs/${bomb.name}`));
    const health = fetch(`${served.url}/v1/health`).then((r) => r.status);
    const answer = await refused;
    console.log(`${bomb.name} (${bomb.what}, ${(bomb.body.length / MiB).toFixed(2)} MiB sent): ${answer.status} in ${answer.ms.toFixed(0)} ms`);
    expect(answer.status, answer.text).toBe(413);
    expect(JSON.parse(answer.text).detail).toContain(`decode limit "${bomb.limit}"`);
    expect(await health).toBe(200);
    for (const v of await Promise.all(valid)) expect(v.status, v.text).toBe(200);
    for (const i of [0, 1, 2]) expect(await spanCount(served.url, `bombs/valid-${n}-${i}`)).toBeGreaterThan(0);
    expect(await spanCount(served.url, `bombs/${bomb.name}`)).toBe(0);
    // Memory: the bomb and the three valid bodies beside it together stay within 256 MiB of the RSS before them.
    if (typeof window === 'string') return console.log(window);
    const grew = statusMb(pid, 'VmHWM') - window;
    console.log(`${bomb.name}: server peak ${grew.toFixed(0)} MiB over its ${window.toFixed(0)} MiB before`);
    expect(grew).toBeLessThan(256);
  }, 120_000);
});

describe('the same limits on the other ways in', () => {
  it('/v1/logs: 300,000 empty log records are a 413 naming the limit (log records)', async () => {
    const head = '{"resourceLogs":[{"scopeLogs":[{"logRecords":[';
    const body = Buffer.concat([Buffer.from(head), Buffer.alloc(300_000 * 3 - 1, '{},'), Buffer.from('{}]}]}]}')]);
    const res = await fetch(`${served.url}/v1/logs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { detail: string }).detail).toContain('more than 200,000 log records in one request (decode limit "records")');
  }, 120_000);

  it('/import upload: a gzip bomb, the 63 MiB of empty resources and a 100 MiB attribute are 413s', async () => {
    const cases: [string, Buffer, string][] = [
      ['zeros.gz', gzipSync(Buffer.alloc(200 * MiB), { level: 9 }), 'bytes'],
      ['resources.pb.gz', protoEmptyResourcesGzip().body, 'resources'],
      ['attribute.json.gz', jsonHugeAttributeGzip().body, 'bytes'],
    ];
    for (const [name, body, limit] of cases) {
      const t = performance.now();
      const r = await postJson(served.url, '/import', { content_base64: body.toString('base64'), file_name: name, project_id: 'bombs/upload' });
      console.log(`/import upload ${name}: ${r.status} in ${(performance.now() - t).toFixed(0)} ms`);
      expect(r.status, JSON.stringify(r.body)).toBe(413);
      expect(r.body.detail).toContain(`decode limit "${limit}"`);
    }
    expect(await spanCount(served.url, 'bombs/upload')).toBe(0);
  }, 120_000);

  it('/import by path (with the key) and `loupe import`: the file is refused naming the limit', async () => {
    const dir = tempDir('loupe-bomb-files-');
    const file = path.join(dir, 'resources.pb.gz');
    fs.writeFileSync(file, protoEmptyResourcesGzip().body);
    const r = await postJson(served.url, '/import', { paths: [file], project_id: 'bombs/path' }, folderKeyHeader(dataDir));
    expect(r.status).toBe(200);
    expect(r.body.files[0].error).toContain('decode limit "resources"');
    const cli = await run(process.execPath, [loupeBin, 'import', file, '--data-dir', tempDir('loupe-bomb-cli-')]).catch((e: { code: number; stdout: string }) => e);
    expect((cli as { code: number }).code).toBe(1);
    expect((cli as { stdout: string }).stdout).toMatch(/resources\.pb\.gz: refused: .*more than 10,000 resources \(resourceSpans\) in one request \(decode limit "resources"\)/);
  }, 120_000);
});

describe('a refused body leaves the connection usable', () => {
  // The 413 leaves while the body is still arriving; the rest is drained and the connection kept. Before,
  // the refusal went out with `Connection: close` and the socket ended under the client's writes: a client
  // (fetch, an OTLP exporter) still sending could get EPIPE instead of the answer (a CI run did).
  it('a client that writes all 60 MiB of a bomb reads the 413, then its next request on the same socket is answered', async () => {
    const { port } = new URL(served.url);
    const bomb = jsonEmptySpans();
    const socket = net.connect(Number(port), '127.0.0.1');
    let received = '';
    socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('error', (e) => (received += `\n[socket error ${e.message}]`));
    socket.write(`POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nX-Project-Id: bombs/socket\r\nContent-Length: ${bomb.body.length}\r\n\r\n`);
    for (let off = 0; off < bomb.body.length; off += MiB) {
      if (!socket.write(bomb.body.subarray(off, off + MiB))) await new Promise((r) => socket.once('drain', r));
    }
    socket.write(`GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
    await closed;
    const statuses = [...received.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
    expect(statuses, received).toEqual([413, 200]);
    expect(received).toContain('decode limit \\"records\\"');
    expect(received).not.toContain('socket error');
  }, 120_000);
});
