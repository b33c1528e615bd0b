/**
 * The ClickHouse server of a test run: one per `vitest run`, started by the first test file that asks
 * for it (so runs that need no ClickHouse start none) and stopped by the global teardown
 * (test/global-setup.ts). Each caller gets its own database on it, so test files stay independent.
 * Outside vitest's global setup (a script, the bench), a private server is started and stopped at exit.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { startClickHouse, stopClickHouse, TEST_USER, type ClickHouseServer } from './clickhouse-server.js';

/** Set by the global setup: the run's folder (lock, server.json, data) and the vitest main pid. */
export const RUN_DIR_ENV = 'LOUPE_TEST_CLICKHOUSE_DIR';
export const OWNER_ENV = 'LOUPE_TEST_OWNER_PID';

let mine: Promise<ClickHouseServer> | null = null;

async function withLock<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const lock = path.join(dir, 'lock');
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`test ClickHouse: ${lock} held for 2 minutes`);
      await new Promise((r) => setTimeout(r, 100)); // another test process is starting the server
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

/** The run's server (started on first use). */
export function testClickHouse(): Promise<ClickHouseServer> {
  if (mine) return mine;
  const dir = process.env[RUN_DIR_ENV];
  if (!dir) {
    // No global setup: a server of this process only.
    mine = startClickHouse();
    void mine.then((s) => process.once('exit', () => void stopClickHouse(s, { removeDir: true })));
    return mine;
  }
  mine = withLock(dir, async () => {
    const info = path.join(dir, 'server', 'server.json');
    if (fs.existsSync(info)) {
      const s = JSON.parse(fs.readFileSync(info, 'utf8')) as { httpPort: number; tcpPort: number; pid: number; version: string };
      return { ...s, httpUrl: `http://127.0.0.1:${s.httpPort}`, dir: path.join(dir, 'server') };
    }
    return startClickHouse({ dir: path.join(dir, 'server'), ownerPid: Number(process.env[OWNER_ENV]) || process.pid });
  });
  return mine;
}

/** A new, empty database name on the run's server, and the store URL that reaches it as TEST_USER. */
export async function freshClickHouseStore(prefix = 't'): Promise<{ url: string; database: string; server: ClickHouseServer }> {
  const server = await testClickHouse();
  const database = `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
  const user = `${encodeURIComponent(TEST_USER.name)}:${encodeURIComponent(TEST_USER.password)}`;
  return { url: `clickhouse://${user}@127.0.0.1:${server.httpPort}/${database}`, database, server };
}

/** Global setup side: the run folder (created) and the teardown that stops the server if one was started. */
export function clickhouseRunFolder(): { dir: string; teardown: () => Promise<void> } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-test-ch-'));
  return {
    dir,
    teardown: async () => {
      const info = path.join(dir, 'server', 'server.json');
      if (fs.existsSync(info)) {
        const s = JSON.parse(fs.readFileSync(info, 'utf8')) as { pid: number };
        await stopClickHouse({ pid: s.pid, dir: path.join(dir, 'server') });
      }
      // The server's folder holds thousands of part files by the end of a run: removing them
      // in this process held `npm test` 1.5–6 min after the last test under load (issue 22.6), so a
      // detached `rm` removes them while the run ends.
      spawn('rm', ['-rf', dir], { detached: true, stdio: 'ignore' }).unref();
    },
  };
}
