/** The `loupe` command, spawned for real: serve prints its one listening line, port fallback, import, demo, key. */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import readline from 'node:readline';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot, samplesDir, spanCount, tempDir } from './server-harness.js';
import { spawnServe } from '../helpers/spawn-loupe.js';

const run = promisify(execFile);
const bin = path.join(repoRoot, 'bin/loupe.js');
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGTERM');
});

const serve = (args: string[], env: NodeJS.ProcessEnv = {}) => spawnServe(args, env, children);

describe('loupe serve', () => {
  it('prints exactly `listening on http://127.0.0.1:P` and serves', async () => {
    const dataDir = tempDir();
    const { line, child } = await serve(['--data-dir', dataDir, '--port', '0']);
    expect(line).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
    const url = line.slice('listening on '.length);
    const res = await fetch(`${url}/openapi.json`);
    expect(res.status).toBe(200);
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 60_000);

  it('says the port is taken and takes a free one (LOUPE_PORT honoured)', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const taken = (blocker.address() as net.AddressInfo).port;
    try {
      const { line, stderr } = await serve(['--data-dir', tempDir()], { LOUPE_PORT: String(taken) });
      expect(line).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
      expect(line).not.toContain(`:${taken}`);
      expect(stderr()).toContain(`port ${taken} is in use`);
    } finally {
      blocker.close();
    }
  }, 60_000);
});

describe('loupe import / demo / key', () => {
  it('imports files with a report, and exits non-zero when a file is refused', async () => {
    const dataDir = tempDir();
    const ok = await run(process.execPath, [bin, 'import', path.join(samplesDir, 'collector-fileexporter-style.jsonl'), '--project', 'cli/test', '--data-dir', dataDir]);
    expect(ok.stdout).toMatch(/collector-fileexporter-style\.jsonl: otlp-jsonl, \d+ spans imported/);
    expect(ok.stdout).toContain('cli/test');
    const bad = await run(process.execPath, [bin, 'import', path.join(samplesDir, 'README.md'), '--data-dir', dataDir]).then(
      () => null,
      (e: { code: number; stdout: string }) => e,
    );
    expect(bad?.code).toBe(1);
    expect(bad?.stdout).toMatch(/README\.md: refused/);
  }, 60_000);

  it('says what it read apart from what it stored, and warns about a file with no spans (issue 22.11)', async () => {
    const dataDir = tempDir();
    const ok = await run(process.execPath, [bin, 'import', path.join(samplesDir, 'collector-fileexporter-style.jsonl'), '--data-dir', dataDir]);
    // Not a TTY: the first progress line is printed at once, one per line.
    expect(ok.stderr).toMatch(/collector-fileexporter-style\.jsonl: read \d+%, [\d,]+ spans stored\n/);
    const empty = path.join(dataDir, 'nothing.json');
    fs.writeFileSync(empty, '{"resourceSpans":[]}');
    const none = await run(process.execPath, [bin, 'import', empty, '--data-dir', dataDir]);
    expect(none.stdout).toContain('0 spans imported');
    expect(none.stdout).toContain(`warning: no spans found in ${empty}`);
  }, 60_000);

  it('loads the demo and prints the key (same key on every call, file mode 0600)', async () => {
    const dataDir = tempDir();
    const demo = await run(process.execPath, [bin, 'demo', '--data-dir', dataDir]);
    expect(demo.stdout).toMatch(/demo data loaded into local\/demo: \d+ conversations, \d+ turns, \d+ spans, \d+ feedback records/);
    const k1 = (await run(process.execPath, [bin, 'key', '--data-dir', dataDir])).stdout.trim();
    const k2 = (await run(process.execPath, [bin, 'key'], { env: { ...process.env, LOUPE_DATA_DIR: dataDir } })).stdout.trim();
    expect(k1).toMatch(/^loupe-[\w-]{20,}$/);
    expect(k2).toBe(k1);
    expect(fs.statSync(path.join(dataDir, 'training.key')).mode & 0o777).toBe(0o600);
  }, 60_000);

  it('npm run serve -- --data-dir D --port P works from a checkout', async () => {
    const dataDir = tempDir();
    const child = spawn('npm', ['run', '--silent', 'serve', '--', '--data-dir', dataDir, '--port', '0'], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        readline.createInterface({ input: child.stdout }).once('line', resolve);
        child.once('exit', (code) => reject(new Error(`npm run serve exited ${code}`)));
      });
      expect(line).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
      expect(await spanCount(line.slice('listening on '.length), 'local/default')).toBe(0);
    } finally {
      process.kill(-child.pid!, 'SIGTERM');
    }
  }, 60_000);
});
