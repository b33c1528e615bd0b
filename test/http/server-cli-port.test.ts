/**
 * `loupe serve` port precedence, spawned for real: --port > LOUPE_PORT > the `server.port` setting
 * saved through Settings (POST /app/settings, the path the Settings page uses) > 4318.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import readline from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { folderKeyHeader, postJson, repoRoot, tempDir } from './server-harness.js';

const bin = path.join(repoRoot, 'bin/loupe.js');
const children: ChildProcess[] = [];
afterEach(async () => {
  await Promise.all(children.splice(0).map(stop));
});

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  return exited;
}

/** Spawns `loupe serve` with only the given env additions; resolves with the URL it prints. */
function serve(args: string[], env: Record<string, string | undefined> = {}): Promise<{ url: string; port: number; child: ChildProcess; stderr: () => string }> {
  const base = { ...process.env };
  delete base.LOUPE_PORT;
  const child = spawn(process.execPath, [bin, 'serve', ...args], { env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    readline.createInterface({ input: child.stdout }).once('line', (line) => {
      const m = /^listening on (http:\/\/127\.0\.0\.1:(\d+))$/.exec(line);
      if (!m) return reject(new Error(`unexpected first line: ${line}`));
      resolve({ url: m[1]!, port: Number(m[2]), child, stderr: () => stderr });
    });
    child.once('exit', (code) => reject(new Error(`loupe serve exited with ${code}: ${stderr}`)));
  });
}

/** Distinct ports free right now (held together so they differ, then released). */
async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from({ length: n }, () => new Promise<net.Server>((r) => { const s = net.createServer(); s.listen(0, '127.0.0.1', () => r(s)); })),
  );
  const ports = servers.map((s) => (s.address() as net.AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}

/** Saves `server.port` the way the Settings page does, on a server started on any port. */
async function savePortSetting(dataDir: string, value: string): Promise<void> {
  const first = await serve(['--data-dir', dataDir, '--port', '0']);
  const r = await postJson(first.url, '/app/settings', { values: { 'server.port': value } }, folderKeyHeader(dataDir));
  expect(r.status).toBe(200);
  expect(r.body.values['server.port']).toBe(value);
  await stop(first.child);
}

describe('loupe serve port precedence', () => {
  it('flag > env > saved setting', async () => {
    const [saved, fromEnv, fromFlag] = await freePorts(3);
    const dataDir = tempDir();
    await savePortSetting(dataDir, String(saved));

    const bySetting = await serve(['--data-dir', dataDir]);
    expect(bySetting.port).toBe(saved);
    expect((await fetch(`${bySetting.url}/v1/health`)).status).toBe(200);
    await stop(bySetting.child);

    const byEnv = await serve(['--data-dir', dataDir], { LOUPE_PORT: String(fromEnv) });
    expect(byEnv.port).toBe(fromEnv);
    await stop(byEnv.child);

    const byFlag = await serve(['--data-dir', dataDir, '--port', String(fromFlag)], { LOUPE_PORT: String(fromEnv) });
    expect(byFlag.port).toBe(fromFlag);
  }, 90_000);

  it('a saved port that is taken falls back to a free one and says so', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const taken = (blocker.address() as net.AddressInfo).port;
    try {
      const dataDir = tempDir();
      await savePortSetting(dataDir, String(taken));
      const s = await serve(['--data-dir', dataDir]);
      expect(s.port).not.toBe(taken);
      expect(s.stderr()).toContain(`port ${taken} is in use`);
    } finally {
      blocker.close();
    }
  }, 90_000);

  it('a saved value that is not a port is named and ignored (default 4318, or a free port when 4318 is taken)', async () => {
    const dataDir = tempDir();
    await savePortSetting(dataDir, 'eighty');
    const s = await serve(['--data-dir', dataDir]);
    expect(s.stderr()).toContain('setting server.port = "eighty" is not a port (1-65535); ignoring it');
    if (s.port !== 4318) expect(s.stderr()).toContain('port 4318 is in use');
  }, 90_000);
});
