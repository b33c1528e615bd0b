/**
 * The served page signs in with the one-time link `loupe serve` prints, in real Chromium (issue 13.4,
 * docs/security.md): the code leaves the address bar at once, the key is kept in the page's own
 * origin, live events then flow over the keyed /events stream; the same link does not work twice,
 * and a page that never signed in still reads traces but gets no event stream. A page left signed
 * out (bare URL, a link used twice) says so and how to sign in, on every view and where a keyed
 * feature is refused (issue 22.8).
 */
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureRendererBuilt, releaseBrowser, sharedBrowser, RENDERER_DIR, VIEWPORTS, vpName } from './fixture.js';
import { startLoupe, type RunningLoupe } from '../../src/main/serve.js';
import { tempDir } from '../http/server-harness.js';
import type { Browser } from 'playwright-core';

type Doc = { documentElement: { getAttribute(n: string): string | null } };
const themeOf = () => (globalThis as unknown as { document: Doc }).document.documentElement.getAttribute('data-theme');

describe('signing the served page in', () => {
  let loupe: RunningLoupe;
  let browser: Browser;
  beforeAll(async () => {
    await ensureRendererBuilt();
    loupe = await startLoupe({ dataDir: tempDir('loupe-e2e-login-'), port: 0, rendererDir: RENDERER_DIR, log: () => {} });
    browser = await sharedBrowser();
  }, 180_000);
  afterAll(async () => {
    await releaseBrowser(browser);
    await loupe?.close();
  });

  /** Whether the page's event stream is live: a toggle-theme event sent on the bus flips its theme. */
  async function eventsReachPage(context: BrowserContext): Promise<boolean> {
    const page = context.pages()[0]!;
    const before = await page.evaluate(themeOf);
    for (let i = 0; i < 10; i++) {
      loupe.ctx.events.emit({ type: 'ui.command', command: 'toggle-theme' });
      const flipped = await page
        .waitForFunction((b) => (globalThis as unknown as { document: Doc }).document.documentElement.getAttribute('data-theme') !== b, before, { timeout: 800 })
        .then(() => true, () => false);
      if (flipped) return true;
    }
    return false;
  }

  it('the login link signs in: code gone from the address, key in localStorage, live events flow', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const sessions: number[] = [];
    page.on('response', (r) => {
      if (r.url().endsWith('/app/session')) sessions.push(r.status());
    });
    await page.goto(`${loupe.loginUrl}#/p/local%2Fdefault/conversations`);
    await page.getByTestId('empty-state').waitFor();
    await page.waitForFunction(() => !(globalThis as unknown as { location: { href: string } }).location.href.includes('login='));
    expect(sessions).toEqual([200]);
    expect(page.url()).toContain('#/p/local%2Fdefault/conversations');
    const stored = await page.evaluate(() => (globalThis as unknown as { localStorage: { getItem(k: string): string | null } }).localStorage.getItem('loupe.key'));
    expect(stored).toBe(loupe.ctx.apiKey);
    expect(await eventsReachPage(context)).toBe(true);

    // The same link in another browser profile: the code was used, nothing is handed out.
    const other = await browser.newContext();
    const second = await other.newPage();
    const again: number[] = [];
    second.on('response', (r) => {
      if (r.url().endsWith('/app/session')) again.push(r.status());
    });
    await second.goto(`${loupe.loginUrl}#/p/local%2Fdefault/conversations`);
    await second.getByTestId('empty-state').waitFor();
    await second.waitForFunction(() => !(globalThis as unknown as { location: { href: string } }).location.href.includes('login='));
    expect(again).toEqual([401]);
    expect(await second.evaluate(() => (globalThis as unknown as { localStorage: { getItem(k: string): string | null } }).localStorage.getItem('loupe.key'))).toBeNull();
    // Not signed in: the page still reads traces, but the event stream is refused.
    expect(await eventsReachPage(other)).toBe(false);
    // And it says why and how to sign in.
    const note = (await second.getByTestId('signin-note').textContent()) ?? '';
    expect(note).toContain('already used or has expired');
    expect(note).toContain('loupe url');
    await context.close();
    await other.close();
  }, 90_000);

  for (const vp of VIEWPORTS) {
    it(`a bare URL says how to sign in, on the page and where training is refused (${vpName(vp)})`, async () => {
      const context = await browser.newContext({ viewport: vp });
      const page = await context.newPage();
      await page.goto(`${loupe.url}/#/p/local%2Fdefault/conversations`);
      await page.getByTestId('empty-state').waitFor();
      const note = page.getByTestId('signin-note');
      await note.waitFor();
      expect(await note.textContent()).toMatch(/not signed in to Loupe.*loupe url/);
      // The note fits the window (nothing cut at the right edge).
      const box = (await note.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(vp.width);
      await page.getByRole('link', { name: 'Training', exact: true }).first().click();
      const refused = page.getByRole('alert').filter({ hasText: 'not signed in' }).first();
      await refused.waitFor({ timeout: 20_000 });
      expect(await refused.textContent()).toContain('loupe url');
      expect(await refused.textContent()).not.toContain('Missing or invalid API key');
      // Hidden for this tab once closed.
      await page.getByRole('button', { name: 'Hide this note' }).click();
      await note.waitFor({ state: 'detached' });
      await page.reload();
      await page.locator('.page').first().waitFor();
      expect(await note.count()).toBe(0);
      await context.close();
    }, 90_000);
  }
});
