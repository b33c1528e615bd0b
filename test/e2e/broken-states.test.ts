/**
 * Broken states end to end (real server, real Chromium), at 1440×900 and 1024×700:
 * - a mistyped route shows the not-found page with a way back (no redirect loop);
 * - no console error on load on any page (the CSP/bundle conflict is gone);
 * - the server is stopped: one offline banner, the open conversation keeps its turns, no raw browser
 *   error text; the server comes back on the same port: the banner goes and data written meanwhile
 *   appears, in the same document (no reload);
 * - views never visited before are opened while the server is stopped (their code not yet loaded):
 *   each says it waits for the server — no white page — and the open one comes back by itself when
 *   the server returns, the others open after (issue 22.7).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoupe } from '../../src/main/serve.js';
import { RENDERER_DIR, VIEWPORTS, openPage, startE2E, vpName, type E2E } from './fixture.js';
import { consoleErrors, hash, screenshotBoth } from './helpers.js';
import type { BrowserWindow } from './browser-globals.js';

declare const window: BrowserWindow;

const DEMO = 'local/demo';
const CONV = 'conv-order-a1187';

describe('broken states', () => {
  let e: E2E;
  beforeAll(async () => {
    e = await startE2E({ demo: true });
  }, 180_000);
  afterAll(async () => e?.close());

  for (const vp of VIEWPORTS) {
    it(`a mistyped route shows not-found with a way back (${vpName(vp)})`, async () => {
      const page = await openPage(e, vp);
      await page.goto(`${e.loupe.url}/#/p/${encodeURIComponent(DEMO)}/conversation`);
      await page.getByTestId('not-found').waitFor();
      expect(await page.getByTestId('not-found').textContent()).toContain('/p/local/demo/conversation');
      // Still the same URL: nothing redirected.
      expect(page.url()).toContain('/conversation');
      await page.getByRole('link', { name: 'Back to conversations' }).click();
      await page.getByTestId('conversation-row').first().waitFor();
      // A top-level path that is no view.
      await page.goto(`${e.loupe.url}/#/no-such-view/at-all`);
      await page.getByTestId('not-found').waitFor();
      if (vp === VIEWPORTS[0]) await screenshotBoth(page, 'not-found');
      await page.context().close();
    }, 90_000);
  }

  it('no console error on load, on every page', async () => {
    const page = await openPage(e, VIEWPORTS[0]);
    const errors = consoleErrors(page);
    const views = ['conversations', `conversations/${CONV}`, 'agents', 'spans', 'threads', 'training', 'settings'];
    for (const v of views) {
      await page.goto(`${e.loupe.url}/${hash(DEMO, ...v.split('/'))}`);
      await page.reload(); // a fresh load each time: the CSP report fired once per load
      await page.locator('.page').first().waitFor();
      await page.waitForLoadState('networkidle');
    }
    expect(errors).toEqual([]);
    await page.context().close();
  }, 120_000);

  it('a stopped server shows one banner, views keep their data, and a restarted server is picked up without reload', async () => {
    const page = await openPage(e, VIEWPORTS[1]);
    const errors = consoleErrors(page);
    await page.goto(`${e.loupe.url}/${hash(DEMO, 'conversations', CONV)}`);
    await page.getByTestId('turn').first().waitFor();
    const turns = await page.getByTestId('turn').count();
    const countText = await page.getByTestId('turn-count').textContent();
    await page.evaluate(() => { window.__sameDocument = true; });

    const { port, dataDir } = { port: e.loupe.port, dataDir: e.dataDir };
    await e.loupe.close();
    // The event stream breaks at once; the probe confirms the server is gone.
    await page.getByTestId('offline-banner').waitFor({ timeout: 15_000 });
    // Navigating inside the app while offline: the list request cannot be answered, the banner stays single.
    await page.getByRole('link', { name: 'Conversations', exact: true }).first().click();
    await page.waitForTimeout(1500);
    await page.goBack();
    await page.getByTestId('turn').first().waitFor();
    expect(await page.getByTestId('turn').count()).toBe(turns);
    expect(await page.getByTestId('turn-count').textContent()).toBe(countText);
    expect(await page.getByTestId('offline-banner').count()).toBe(1);
    const body = (await page.textContent('body')) ?? '';
    expect(body).not.toMatch(/Failed to fetch|NetworkError|TypeError/);
    if (vpName(VIEWPORTS[1]) === '1024x700') await screenshotBoth(page, 'offline');

    // Back on the same port and data folder; a span written meanwhile (another turn) must show up.
    e.loupe = await startLoupe({ dataDir, port, rendererDir: RENDERER_DIR, log: () => {} });
    await page.getByTestId('offline-banner').waitFor({ state: 'detached', timeout: 15_000 });
    const traceId = 'e'.repeat(32);
    const span = {
      resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 't' }, spans: [{
        traceId, spanId: '1'.repeat(16), name: 'chat gpt-4o-mini', kind: 3,
        startTimeUnixNano: String(BigInt(Date.now()) * 1_000_000n), endTimeUnixNano: String(BigInt(Date.now() + 5) * 1_000_000n),
        attributes: [
          { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
          { key: 'gen_ai.conversation.id', value: { stringValue: CONV } },
          { key: 'gen_ai.input.messages', value: { stringValue: JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'Back again after the restart?' }] }]) } },
        ],
      }] }] }],
    };
    const r = await fetch(`${e.loupe.url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-project-id': DEMO }, body: JSON.stringify(span) });
    expect(r.status).toBe(200);
    await page.getByText('Back again after the restart?').waitFor({ timeout: 15_000 });
    expect(await page.evaluate(() => window.__sameDocument)).toBe(true);
    // The failed requests while the server was away are the browser's own network log lines, not the app's.
    expect(errors.filter((x) => !/Failed to load resource|ERR_CONNECTION_REFUSED|net::/.test(x))).toEqual([]);
    await page.context().close();
  }, 90_000);

  for (const vp of VIEWPORTS) {
    it(`views first opened while the server is stopped wait for it and come back by themselves (${vpName(vp)})`, async () => {
      const page = await openPage(e, vp);
      const errors = consoleErrors(page);
      await page.goto(`${e.loupe.url}/${hash(DEMO, 'conversations')}`);
      await page.getByTestId('conversation-row').first().waitFor();
      await page.evaluate(() => { window.__sameDocument = true; });
      const { port, dataDir } = { port: e.loupe.port, dataDir: e.dataDir };
      await e.loupe.close();
      // Each of these views loads its code on first visit: none was visited in this page.
      for (const name of ['Agents', 'Spans', 'Threads', 'Compare', 'Training', 'Settings']) {
        await page.getByRole('link', { name, exact: true }).first().click();
        await page.getByTestId('view-offline').waitFor({ timeout: 15_000 });
        expect(await page.getByTestId('offline-banner').count()).toBe(1);
        // The shell stays: the navigation is there to go elsewhere.
        expect(await page.getByRole('link', { name: 'Conversations', exact: true }).count()).toBeGreaterThan(0);
      }
      if (vp === VIEWPORTS[0]) await screenshotBoth(page, 'view-offline');
      // The Settings view is open; the server returns on the same port: the view opens without a click.
      e.loupe = await startLoupe({ dataDir, port, rendererDir: RENDERER_DIR, log: () => {} });
      await page.getByTestId('view-offline').waitFor({ state: 'detached', timeout: 20_000 });
      await page.getByTestId('offline-banner').waitFor({ state: 'detached', timeout: 15_000 });
      await page.getByRole('heading', { name: 'Settings' }).first().waitFor();
      // The views that failed while it was away open now.
      await page.getByRole('link', { name: 'Spans', exact: true }).first().click();
      await page.getByTestId('spans-table').waitFor({ timeout: 20_000 });
      await page.getByRole('link', { name: 'Agents', exact: true }).first().click();
      await page.getByTestId('agent-row').first().waitFor({ timeout: 20_000 });
      expect(await page.evaluate(() => window.__sameDocument)).toBe(true);
      expect(errors.filter((x) => !/Failed to load resource|ERR_CONNECTION_REFUSED|ERR_INCOMPLETE_CHUNKED_ENCODING|net::/.test(x))).toEqual([]);
      await page.context().close();
    }, 120_000);
  }
});
