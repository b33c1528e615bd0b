/**
 * A private clickhouse-server for tests and the bench: Debian's binary with (a copy of) the system
 * config file, every path and port overridden so it lives in a temp folder on free loopback ports. Never the
 * system service. Stopped by pid; a watchdog shell stops it too when the process that asked for it
 * (the vitest main process, the bench) disappears without cleaning up.
 *
 * A missing binary is an error with the fix in the message: a suite that needs ClickHouse must fail,
 * not pass silently.
 */
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ClickHouse, parseStoreUrl } from '../../src/main/store/clickhouse/connection.js';

export const CLICKHOUSE_SERVER = process.env.LOUPE_CLICKHOUSE_SERVER ?? '/usr/sbin/clickhouse-server';
const CONFIG = process.env.LOUPE_CLICKHOUSE_CONFIG ?? '/etc/clickhouse-server/config.xml';

/** A user with a password besides `default`, so tests exercise credentials in `clickhouse://user:pass@…`. */
export const TEST_USER = { name: 'loupe', password: 'l0upe:p@ss/wörd' };

export interface ClickHouseServer {
  /** http://127.0.0.1:<port> (the HTTP interface @clickhouse/client speaks). */
  httpUrl: string;
  httpPort: number;
  tcpPort: number;
  interserverPort?: number;
  pid: number;
  dir: string;
  version: string;
}

export interface StartOptions {
  /** Folder to hold data, logs and config (created; default a new temp folder). */
  dir?: string;
  /** Pid whose exit stops the server (default: this process). */
  ownerPid?: number;
  /** Server-wide compression of parts: LZ4 (the server's default) or zstd (level 1..22). */
  zstdLevel?: number;
  timeoutMs?: number;
  /** Fixed ports (a server restarted on its folder answers where it did before); default free ones. */
  ports?: { http: number; tcp: number; interserver: number };
}

export function clickhouseMissing(): string | null {
  if (fs.existsSync(CLICKHOUSE_SERVER)) return null;
  return (
    `clickhouse-server not found at ${CLICKHOUSE_SERVER}: the ClickHouse adapter's tests need it. ` +
    `Install Debian's package (apt-get install clickhouse-server; .ci/run does this) or point ` +
    `LOUPE_CLICKHOUSE_SERVER at the binary. The system service is never used: tests start their own server.`
  );
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

const xmlText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** users.xml of the private server: `default` without a password (loopback only) and TEST_USER. */
function usersXml(): string {
  const user = (name: string, password: string) => `
    <${name}>
      <password>${xmlText(password)}</password>
      <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
      <profile>default</profile>
      <quota>default</quota>
    </${name}>`;
  return `<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>4000000000</max_memory_usage><log_queries>1</log_queries></default></profiles>
  <users>${user('default', '')}${user(TEST_USER.name, TEST_USER.password)}
  </users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors>
    <result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
`;
}

/**
 * The substitutions file (the system config's `incl=` elements read it). Only compression is
 * substituted: zstd for every part when asked (the system config leaves it to LZ4).
 */
function compressionXml(level: number): string {
  return `<?xml version="1.0"?>
<yandex>
  <clickhouse_compression>
    <case><min_part_size>0</min_part_size><min_part_size_ratio>0</min_part_size_ratio><method>zstd</method><level>${level}</level></case>
  </clickhouse_compression>
</yandex>
`;
}

async function ping(url: string): Promise<string | null> {
  try {
    const res = await fetch(`${url}/?query=${encodeURIComponent('SELECT version()')}`, { signal: AbortSignal.timeout(1000) });
    return res.ok ? (await res.text()).trim() : null;
  } catch {
    return null;
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Starts a server and resolves once it answers queries. Retries with new ports if one was taken meanwhile. */
export async function startClickHouse(opts: StartOptions = {}): Promise<ClickHouseServer> {
  const missing = clickhouseMissing();
  if (missing) throw new Error(missing);
  const dir = opts.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-clickhouse-'));
  let lastError = '';
  for (let attempt = 0; attempt < 3; attempt++) {
    const r = await startOnce(dir, opts);
    if ('server' in r) return r.server;
    lastError = r.error;
    if (!/address already in use|bind/i.test(lastError)) break;
  }
  throw new Error(`clickhouse-server did not start (folder ${dir}): ${lastError}`);
}

async function startOnce(dir: string, opts: StartOptions): Promise<{ server: ClickHouseServer } | { error: string }> {
  for (const sub of ['data', 'tmp', 'uf', 'fs']) fs.mkdirSync(path.join(dir, sub), { recursive: true });
  fs.rmSync(path.join(dir, 'server.pid'), { force: true }); // a server restarted in its folder: not the old pid
  fs.writeFileSync(path.join(dir, 'users.xml'), usersXml());
  const include = path.join(dir, 'metrika.xml');
  fs.writeFileSync(include, opts.zstdLevel ? compressionXml(opts.zstdLevel) : '<?xml version="1.0"?>\n<yandex/>\n');
  // The system config with one element added: include_from is read while the config is preprocessed,
  // before command-line overrides apply, so it has to be in the file.
  const config = path.join(dir, 'config.xml');
  const system = fs.readFileSync(CONFIG, 'utf8');
  if (!/<yandex>/.test(system)) throw new Error(`${CONFIG}: no <yandex> root element; cannot derive a private config from it`);
  fs.writeFileSync(config, system.replace('<yandex>', `<yandex>\n    <include_from>${xmlText(include)}</include_from>`));
  const [httpPort, tcpPort, interPort] = opts.ports ? [opts.ports.http, opts.ports.tcp, opts.ports.interserver] : [await freePort(), await freePort(), await freePort()];
  const args = [
    `--config-file=${config}`,
    '--',
    `--path=${dir}/data/`,
    `--http_port=${httpPort}`,
    `--tcp_port=${tcpPort}`,
    `--interserver_http_port=${interPort}`,
    `--tmp_path=${dir}/tmp/`,
    `--user_files_path=${dir}/uf/`,
    `--format_schema_path=${dir}/fs/`,
    `--users_config=${dir}/users.xml`,
    `--logger.log=${dir}/log`,
    `--logger.errorlog=${dir}/err`,
    // Small caches: several engineers' servers share this machine's memory.
    '--mark_cache_size=268435456',
    '--uncompressed_cache_size=268435456',
  ];
  const owner = opts.ownerPid ?? process.pid;
  // The watchdog: the server runs as a child of a small shell that kills it when the owner is gone.
  // The shell is detached so the server outlives a recycled test worker; `stopClickHouse` kills it by pid.
  const quoted = [CLICKHOUSE_SERVER, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const script = `${quoted} >"${dir}/stdout" 2>&1 & ch=$!; echo $ch >"${dir}/server.pid"; ` +
    `while kill -0 ${owner} 2>/dev/null && kill -0 $ch 2>/dev/null; do sleep 1; done; kill $ch 2>/dev/null; wait $ch`;
  const sh = spawn('/bin/sh', ['-c', script], { detached: true, stdio: 'ignore' });
  sh.unref();
  const url = `http://127.0.0.1:${httpPort}`;
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  for (;;) {
    const version = await ping(url);
    const pid = Number(fs.existsSync(path.join(dir, 'server.pid')) ? fs.readFileSync(path.join(dir, 'server.pid'), 'utf8') : 0);
    if (version && pid) {
      fs.writeFileSync(path.join(dir, 'server.json'), JSON.stringify({ httpPort, tcpPort, pid, watchdog: sh.pid, version }));
      return { server: { httpUrl: url, httpPort, tcpPort, interserverPort: interPort, pid, dir, version } };
    }
    const exited = sh.exitCode !== null || (sh.pid !== undefined && !alive(sh.pid));
    if (exited || Date.now() > deadline) {
      const pid = fs.existsSync(path.join(dir, 'server.pid')) ? Number(fs.readFileSync(path.join(dir, 'server.pid'), 'utf8')) : 0;
      for (const p of [pid, sh.pid ?? 0]) if (p && alive(p)) process.kill(p, 'SIGKILL');
      const err = ['err', 'stdout'].map((f) => path.join(dir, f)).filter((f) => fs.existsSync(f))
        .map((f) => fs.readFileSync(f, 'utf8')).join('\n').split('\n').filter((l) => /error|exception|address/i.test(l)).slice(-5).join('\n');
      return { error: exited ? err || 'exited during start-up' : `no answer within ${opts.timeoutMs ?? 60_000} ms. ${err}` };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Stops a server started by startClickHouse (by pid: SIGTERM, then SIGKILL after a grace period). */
export async function stopClickHouse(server: Pick<ClickHouseServer, 'pid' | 'dir'>, opts: { removeDir?: boolean } = {}): Promise<void> {
  if (alive(server.pid)) {
    process.kill(server.pid, 'SIGTERM');
    const deadline = Date.now() + 10_000;
    while (alive(server.pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    if (alive(server.pid)) process.kill(server.pid, 'SIGKILL');
  }
  if (opts.removeDir) fs.rmSync(server.dir, { recursive: true, force: true });
}

/** Bytes on disk of a server's data folder (du), for the bench's bytes-per-span figure. */
export function dataBytes(server: Pick<ClickHouseServer, 'dir'>, database: string): number {
  const out = execFileSync('du', ['-sb', path.join(server.dir, 'data', 'data', database)], { encoding: 'utf8' });
  return Number(out.split('\t')[0]);
}

/** Runs `fn` on a connection of its own to the store at `url`, closed after (tests that read system tables). */
export async function withConnection<T>(url: string, fn: (ch: ClickHouse) => Promise<T>): Promise<T> {
  const ch = await ClickHouse.connect(parseStoreUrl(url));
  try {
    return await fn(ch);
  } finally {
    await ch.close();
  }
}

