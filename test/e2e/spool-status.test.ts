/**
 * The OTLP spool's status line (docs/ingest.md "The OTLP spool"), real server and Chromium: a large
 * post kept while draining is held shows "N spans waiting to be imported" in the sidebar without a
 * reload (pushed by the `spool.status` event); the server restarted on the same port with draining
 * on imports it, and the line goes away. States, not timings: held, then drained (waited for).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoupe } from '../../src/main/serve.js';
import { RENDERER_DIR, startE2E, type E2E } from './fixture.js';
import { agentRunsBody } from '../helpers/spool-body.js';

const SPOOL = { minSpans: 400 };

describe('spool status', () => {
  let e: E2E;
  beforeAll(async () => {
    e = await startE2E({ demo: true, spool: { ...SPOOL, drain: false } });
  }, 180_000);
  afterAll(async () => e?.close());

  it('shows the spans waiting, then nothing once the restarted server has imported them', async () => {
    const { page } = e;
    await page.goto(`${e.loupe.url}/#/p/${encodeURIComponent('local/demo')}/conversations`);
    await page.getByTestId('conversation-row').first().waitFor();
    expect(await page.getByTestId('spool-status').count()).toBe(0);

    const res = await fetch(`${e.loupe.url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-project-id': 'spool/ui' }, body: agentRunsBody(300, 'ui') });
    expect(res.status).toBe(200);
    const status = page.getByTestId('spool-status');
    await status.waitFor();
    expect(await status.textContent()).toBe('600 spans waiting to be imported (draining is off)');

    const port = e.loupe.port;
    await e.loupe.close();
    e.loupe = await startLoupe({ dataDir: e.dataDir, port, rendererDir: RENDERER_DIR, log: () => {}, spool: SPOOL });
    const drained = await fetch(`${e.loupe.url}/app/spool/drained`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"timeout_ms":120000}' });
    expect(((await drained.json()) as { drained: boolean }).drained).toBe(true);
    // The page reconnects by itself (refetching what it shows) and the line goes.
    await status.waitFor({ state: 'detached', timeout: 60_000 });
  }, 180_000);
});
