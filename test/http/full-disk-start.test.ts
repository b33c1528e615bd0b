/**
 * A Loupe started on a full disk (issue 23.3): read-only on the folder's reserve, or a clear refusal
 * naming the folder and the free space; never a damaged store. On a real full filesystem (a tmpfs
 * filled to ENOSPC), with `loupe serve` in a child process: a crash of SQLite on a full disk (a
 * signal) would end the child and fail an assertion here, rather than end the test runner's worker.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { rawRequest } from './server-harness.js';
import { otlpRequest } from '../helpers/otlp.js';
import { fillDisk, mountTmpfs, unmountTmpfs } from '../helpers/small-disk.js';
import { exited, spawnServe } from '../helpers/spawn-loupe.js';
import { RESERVE_BYTES, RESERVE_FILE } from '../../src/main/settings/disk-reserve.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

/** n spans of one trace, their ids made from `seed`. */
const otlp = (n: number, seed: string) =>
  JSON.stringify(
    otlpRequest(
      Array.from({ length: n }, (_, i) => ({
        traceId: Buffer.from(`${seed}-trace`.padEnd(16, '.').slice(0, 16)).toString('hex'),
        spanId: Buffer.from(`${seed}-${i}`.padEnd(8, '.').slice(-8)).toString('hex'),
        name: `s${i}`,
        startTimeUnixNano: '1763800000000000000',
        endTimeUnixNano: '1763800000500000000',
      })),
    ),
  );

const spansStored = async (port: number) => {
  const res = await rawRequest(port, { method: 'POST', path: '/app/projects', headers: { 'content-type': 'application/json' }, body: '{}' });
  expect(res.status).toBe(200);
  return (res.json() as { projects: { span_count: number }[] }).projects.reduce((n, p) => n + p.span_count, 0);
};
const post = (port: number, body: string) => rawRequest(port, { method: 'POST', path: '/v1/traces', headers: { 'content-type': 'application/json' }, body });
const portOf = (url: string) => Number(new URL(url).port);

/** SIGTERM and the exit: 0, not a signal (a SIGBUS of SQLite on the full disk would show here). */
async function stop(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM');
  expect(await exited(child)).toBe(0);
}

describe('a full disk at start (23.3)', () => {
  it('starts read-only on the reserve (reads answer, writes 503 naming the disk); without a reserve it refuses naming the folder and the free space; with room again it writes, nothing lost', async (ctx) => {
    const disk = mountTmpfs('48m', 'full-disk start test');
    if (!disk) return ctx.skip();
    const dataDir = path.join(disk, 'data');
    const filler = path.join(disk, 'filler');
    const serve = () => spawnServe(['--data-dir', dataDir, '--port', '0'], {}, children);
    try {
      // A store with spans, closed cleanly: SQLite deletes its -shm, so the next start must create one.
      const first = await serve();
      for (let i = 0; i < 4; i++) expect((await post(portOf(first.url), otlp(25, `a${i}`))).status).toBe(200);
      expect(fs.statSync(path.join(dataDir, RESERVE_FILE)).size).toBe(RESERVE_BYTES);
      await stop(first.child);
      expect(fs.existsSync(path.join(dataDir, 'loupe.db-shm'))).toBe(false);
      const before = fs.readFileSync(path.join(dataDir, 'loupe.db'));

      fillDisk(filler);
      expect(fs.statfsSync(disk).bavail).toBe(0);
      const ro = await serve();
      expect(fs.existsSync(path.join(dataDir, RESERVE_FILE))).toBe(false);
      expect(await spansStored(portOf(ro.url))).toBe(100);
      const refused = await post(portOf(ro.url), otlp(5, 'ro'));
      expect(refused.status).toBe(503);
      expect((refused.json() as { detail: string }).detail).toMatch(/disk holding .* is full/);
      const health = (await rawRequest(portOf(ro.url), { path: '/app/health' })).json() as { database: { read_only: boolean; reason: string } };
      expect(health.database).toMatchObject({ read_only: true, reason: expect.stringMatching(/restart Loupe to write again/) });
      await stop(ro.child);
      expect(ro.stderr()).toMatch(new RegExp(`the disk holding ${dataDir} is full \\(0 bytes free\\): Loupe runs READ-ONLY on the 1024 KiB it kept in reserve; free some space and restart it to write again`));
      // Read-only connections write nothing: the database file is byte for byte what the first server left.
      expect(fs.readFileSync(path.join(dataDir, 'loupe.db')).equals(before)).toBe(true);

      // No reserve left (used above) and no index file (as after a clean close): a refusal that says why.
      fs.rmSync(path.join(dataDir, 'loupe.db-shm'), { force: true });
      fs.rmSync(path.join(dataDir, 'loupe.db-wal'), { force: true });
      fillDisk(`${filler}-2`); // the reserve's room, taken by something else
      expect(fs.statfsSync(disk).bavail).toBe(0);
      const no = await serve().then(
        () => null,
        (e: { code: number; stderr: string }) => e,
      );
      expect(no?.code).toBe(1);
      expect(no?.stderr).toMatch(new RegExp(`Loupe cannot start on ${dataDir}: the disk is full \\(\\d+ bytes free; SQLite needs room for its 32 KiB shared-memory index: .*\\); free some space and start again`));
      expect(fs.readFileSync(path.join(dataDir, 'loupe.db')).equals(before)).toBe(true);

      // Room again: writable, the reserve written back, every span there.
      fs.rmSync(filler);
      fs.rmSync(`${filler}-2`);
      const again = await serve();
      expect((await post(portOf(again.url), otlp(5, 'b'))).status).toBe(200);
      expect(await spansStored(portOf(again.url))).toBe(105);
      expect(fs.statSync(path.join(dataDir, RESERVE_FILE)).size).toBe(RESERVE_BYTES);
      const check = await rawRequest(portOf(again.url), { method: 'POST', path: '/app/integrity-check', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(check.json()).toMatchObject({ ok: true, full: true, problems: [], read_only: false });
      await stop(again.child);
    } finally {
      const left = children.splice(0);
      for (const c of left) c.kill('SIGKILL');
      await Promise.all(left.map(exited));
      unmountTmpfs(disk);
    }
  }, 180_000);
});
