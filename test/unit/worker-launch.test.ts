/**
 * Where worker threads start from (src/main/worker-launch.ts). The test run starts them from the built
 * out/cli bundle (test/global-setup.ts sets LOUPE_WORKER_BUNDLE after building it), which saves each
 * worker the TypeScript loader: ~0.8 s of CPU per worker, several per server start. `npm run serve` and
 * `npm run loupe` leave the variable unset and start them from the sources through tsx: that path is
 * checked here on a real server, so it cannot rot unnoticed.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { workerLaunch } from '../../src/main/worker-launch.js';
import { CLI_OUT, ensureCliBuilt } from '../../scripts/build-cli.mjs';
import { postJson, spanCount, startTestServer } from '../http/server-harness.js';

const saved = process.env.LOUPE_WORKER_BUNDLE;
afterEach(() => {
  if (saved === undefined) delete process.env.LOUPE_WORKER_BUNDLE;
  else process.env.LOUPE_WORKER_BUNDLE = saved;
});

const readWorker = new URL('../../src/main/store/sqlite/read-worker.ts', import.meta.url);

describe('worker threads', () => {
  it('start from the built bundle when LOUPE_WORKER_BUNDLE names it', async () => {
    await ensureCliBuilt({ quiet: true });
    process.env.LOUPE_WORKER_BUNDLE = CLI_OUT;
    const launch = workerLaunch(readWorker, 'sqlite-read-worker.js');
    expect(fileURLToPath(launch.file)).toBe(path.join(CLI_OUT, 'sqlite-read-worker.js'));
    expect(launch.entry).toBeUndefined();
  }, 300_000);

  it('start from the sources through tsx when it is unset, or names a folder without that bundle', () => {
    delete process.env.LOUPE_WORKER_BUNDLE;
    const fromSources = workerLaunch(readWorker, 'sqlite-read-worker.js');
    expect(path.basename(fileURLToPath(fromSources.file))).toBe('worker-bootstrap.mjs');
    expect(fromSources.entry).toBe(readWorker.href);
    process.env.LOUPE_WORKER_BUNDLE = path.dirname(fileURLToPath(import.meta.url));
    expect(workerLaunch(readWorker, 'sqlite-read-worker.js')).toEqual(fromSources);
  });

  it('serve a real server from the sources (writer, readers, demo data stored and read back)', async () => {
    delete process.env.LOUPE_WORKER_BUNDLE;
    const server = await startTestServer();
    try {
      expect((await postJson(server.url, '/app/demo', {})).status).toBe(200);
      expect(await spanCount(server.url, 'local/demo')).toBe(133);
    } finally {
      await server.close();
    }
  }, 120_000);
});
