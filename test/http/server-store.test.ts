/**
 * `loupe serve|import|demo --store clickhouse://…` (issue 9): spans in ClickHouse, feedback, settings
 * and training in the data folder's SQLite file (decision 0015); the store chosen by --store, else
 * $LOUPE_STORE, else the one saved in Settings; an unreachable server fails startup naming the URL
 * without its password. Runs the `loupe` command for real against the run's private ClickHouse
 * (test/helpers/clickhouse.ts), which fails this file with the fix when clickhouse-server is missing.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { folderKeyHeader, postJson, samplesDir, spanCount, tempDir } from './server-harness.js';
import { loupeBin, spawnServe, exited } from '../helpers/spawn-loupe.js';
import { freshClickHouseStore } from '../helpers/clickhouse.js';
import { TEST_USER } from '../helpers/clickhouse-server.js';

const run = promisify(execFile);
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGTERM');
});

const serve = (args: string[], env: NodeJS.ProcessEnv = {}) => spawnServe(args, env, children);
const loupe = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  run(process.execPath, [loupeBin, ...args], { env: { ...process.env, LOUPE_STORE: '', ...env } });
/** The password as it appears in the URL (percent-encoded) and as typed: neither may be shown. */
const secrets = [TEST_USER.password, encodeURIComponent(TEST_USER.password)];
const noPassword = (text: string) => {
  for (const s of secrets) expect(text).not.toContain(s);
};

describe('loupe serve --store clickhouse://', () => {
  it('keeps spans in ClickHouse and the app records in the data folder; Settings shows the store masked', async () => {
    const { url, database } = await freshClickHouseStore('serve');
    const dataDir = tempDir();
    // The CLI import writes into the same ClickHouse database the server then reads.
    const imported = await loupe(['import', path.join(samplesDir, 'vercel-ai-sdk.in.json'), '--project', 'ch/cli', '--data-dir', dataDir, '--store', url]);
    expect(imported.stdout).toMatch(/3 spans imported/);
    const served = await serve(['--data-dir', dataDir, '--port', '0', '--store', url], { LOUPE_STORE: '' });
    expect(await spanCount(served.url, 'ch/cli')).toBe(3);
    const settings = (await (await fetch(`${served.url}/app/settings`)).json()) as Record<string, any>;
    expect(settings.trace_store).toEqual({ adapter: 'clickhouse', location: expect.stringContaining(`:***@127.0.0.1:`) });
    expect(settings.trace_store.location).toContain(`/${database}`);
    expect(settings.database_file).toBe(path.join(dataDir, 'loupe.db'));
    noPassword(JSON.stringify(settings));
    noPassword(served.stderr());
    served.child.kill('SIGTERM');
    expect(await exited(served.child)).toBe(0);
    // The local file holds no span: a SQLite server on the same folder sees none of them.
    const local = await serve(['--data-dir', dataDir, '--port', '0', '--store', 'sqlite']);
    expect(await spanCount(local.url, 'ch/cli')).toBe(0);
  }, 120_000);

  it('fails startup when ClickHouse does not answer, naming the URL without the password', async () => {
    const dataDir = tempDir();
    const url = `clickhouse://${TEST_USER.name}:${encodeURIComponent(TEST_USER.password)}@127.0.0.1:1/nowhere`;
    const err = await serve(['--data-dir', dataDir, '--port', '0', '--store', url]).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(err?.code).toBe(1);
    expect(err?.stderr).toContain(`cannot open the ClickHouse store clickhouse://${TEST_USER.name}:***@127.0.0.1:1/nowhere`);
    expect(err?.stderr).toMatch(/ECONNREFUSED/);
    noPassword(err!.stderr);
    // The data folder is free again (the lock was released): a local server starts on it.
    const local = await serve(['--data-dir', dataDir, '--port', '0', '--store', 'sqlite']);
    expect(local.line).toMatch(/^listening on /);
  }, 120_000);

  it('fails startup when the host takes the connection and never answers, after 10 s, not minutes', async () => {
    // A host that swallows requests (a firewall, a wrong port on a busy box): the client would wait its
    // request timeout (minutes); startup bounds the first contact.
    const silent = net.createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const port = (silent.address() as net.AddressInfo).port;
      const url = `clickhouse://${TEST_USER.name}:${encodeURIComponent(TEST_USER.password)}@127.0.0.1:${port}/silent`;
      const err = await serve(['--data-dir', tempDir(), '--port', '0', '--store', url]).then(
        () => null,
        (e: { code: number; stderr: string }) => e,
      );
      expect(err?.code).toBe(1);
      expect(err?.stderr).toContain(`cannot open the ClickHouse store clickhouse://${TEST_USER.name}:***@127.0.0.1:${port}/silent: http://127.0.0.1:${port} did not answer within 10 s`);
      noPassword(err!.stderr);
    } finally {
      silent.close();
    }
  }, 120_000);

  it('refuses a store that is not a store URL, naming what is accepted', async () => {
    const err = await loupe(['import', path.join(samplesDir, 'vercel-ai-sdk.in.json'), '--data-dir', tempDir(), '--store', 'postgres://u:hunter2@h/db']).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(err?.code).toBe(1);
    expect(err?.stderr).toContain('expected clickhouse://user:password@host:8123/database');
    expect(err?.stderr).not.toContain('hunter2');
  }, 60_000);

  it('takes $LOUPE_STORE, else the store saved in Settings (at the next start); --store sqlite is the way back', async () => {
    const { url } = await freshClickHouseStore('saved');
    const dataDir = tempDir();
    await loupe(['demo', '--data-dir', dataDir, '--project', 'ch/demo'], { LOUPE_STORE: url });
    // $LOUPE_STORE reached ClickHouse: a plain local server does not see the demo.
    const local = await serve(['--data-dir', dataDir, '--port', '0']);
    expect(await spanCount(local.url, 'ch/demo')).toBe(0);
    const bad = await postJson(local.url, '/app/settings', { values: { 'store.url': 'mysql://root:hunter2@db' } }, folderKeyHeader(dataDir));
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'values', 'store.url']);
    expect(JSON.stringify(bad.body)).not.toContain('hunter2');
    const saved = await postJson(local.url, '/app/settings', { values: { 'store.url': url } }, folderKeyHeader(dataDir));
    expect(saved.status).toBe(200);
    expect(saved.body.values['store.url']).toMatch(/^clickhouse:\/\/loupe:\*\*\*@127\.0\.0\.1:\d+\/saved_/);
    noPassword(JSON.stringify(saved.body));
    // Takes effect at the next start, not now.
    expect(saved.body.trace_store.adapter).toBe('sqlite');
    // The password is kept out of loupe.db (in the private secrets file).
    noPassword(fs.readFileSync(path.join(dataDir, 'loupe.db')).toString('latin1'));
    local.child.kill('SIGTERM');
    await exited(local.child);

    const next = await serve(['--data-dir', dataDir, '--port', '0']);
    expect(await spanCount(next.url, 'ch/demo')).toBeGreaterThan(100);
    expect(next.stderr()).toContain('spans in clickhouse://loupe:***@');
    next.child.kill('SIGTERM');
    await exited(next.child);

    const back = await serve(['--data-dir', dataDir, '--port', '0', '--store', 'sqlite']);
    expect(await spanCount(back.url, 'ch/demo')).toBe(0);
    // Clearing the setting returns the next start to the local file.
    const cleared = await postJson(back.url, '/app/settings', { values: { 'store.url': null } }, folderKeyHeader(dataDir));
    expect(cleared.body.values['store.url']).toBeUndefined();
  }, 180_000);

  it('says a saved store that does not answer came from Settings, and how to start without it', async () => {
    const dataDir = tempDir();
    const local = await serve(['--data-dir', dataDir, '--port', '0']);
    const dead = `clickhouse://${TEST_USER.name}:${encodeURIComponent(TEST_USER.password)}@127.0.0.1:1/gone`;
    expect((await postJson(local.url, '/app/settings', { values: { 'store.url': dead } }, folderKeyHeader(dataDir))).status).toBe(200);
    local.child.kill('SIGTERM');
    await exited(local.child);
    const err = await serve(['--data-dir', dataDir, '--port', '0']).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(err?.code).toBe(1);
    expect(err?.stderr).toContain('the store saved in Settings; `--store sqlite` starts on the data folder');
    noPassword(err!.stderr);
  }, 120_000);
});
