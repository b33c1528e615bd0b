/**
 * Desktop menu commands in the real renderer (Chromium): Electron main sends `ui.command` events to
 * its window over the event channel; here the same events go out on the server's event bus, which
 * reaches the page as server-sent events through the same subscription. Toggle theme flips the
 * theme, Import… opens the import picker (and the chosen file is imported), Load demo data loads it.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startE2E, type E2E } from './fixture.js';
import { samplesDir } from '../helpers/paths.js';

const samples = samplesDir;

describe('ui.command events', () => {
  let e: E2E;
  beforeAll(async () => {
    e = await startE2E();
  }, 180_000);
  afterAll(async () => e?.close());

  const send = (command: 'import' | 'load-demo' | 'toggle-theme') => e.loupe.ctx.events.emit({ type: 'ui.command', command });
  const theme = () => e.page.evaluate(() => (globalThis as unknown as { document: { documentElement: { getAttribute(n: string): string | null } } }).document.documentElement.getAttribute('data-theme'));

  const waitTheme = (t: string | null, timeout = 10_000) =>
    e.page.waitForFunction((want) => (globalThis as unknown as { document: { documentElement: { getAttribute(n: string): string | null } } }).document.documentElement.getAttribute('data-theme') === want, t, { timeout });
  /** The page's event subscription is open once a toggle comes through (events sent earlier are not replayed). */
  async function liveSubscription(): Promise<void> {
    const before = await theme();
    for (let i = 0; i < 20; i++) {
      send('toggle-theme');
      if (await waitTheme(before === 'dark' ? 'light' : 'dark', 1500).then(() => true, () => false)) break;
    }
    send('toggle-theme');
    await waitTheme(before);
  }

  it('toggle-theme flips the theme, and again back', async () => {
    const { page } = e;
    await page.goto(`${e.loupe.url}/#/p/local%2Fdefault/conversations`);
    await page.getByTestId('empty-state').waitFor();
    await liveSubscription();
    const before = await theme();
    expect(['light', 'dark']).toContain(before);
    send('toggle-theme');
    await waitTheme(before === 'dark' ? 'light' : 'dark');
    send('toggle-theme');
    await waitTheme(before);
  }, 60_000);

  it('import opens the import picker; the chosen file is imported with a summary', async () => {
    const { page } = e;
    await page.goto(`${e.loupe.url}/#/p/local%2Fdefault/conversations`);
    await page.getByTestId('empty-state').waitFor();
    await liveSubscription();
    // Listen first: Playwright starts intercepting file pickers when a listener is added.
    const chooser = page.waitForEvent('filechooser', { timeout: 15_000 });
    // Electron gives the window a user activation before sending (a menu click is a gesture);
    // a click on the page stands for it here: Chromium opens file pickers only after one.
    await page.getByTestId('empty-state').locator('h2').click();
    send('import');
    const fc = await chooser;
    expect(fc.isMultiple()).toBe(true);
    await fc.setFiles(path.join(samples, 'collector-fileexporter-style.jsonl'));
    await page.getByTestId('import-confirm').click();
    await page.getByTestId('import-summary').filter({ hasText: 'spans' }).waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('import-file').getAttribute('data-state')).toBe('done');
  }, 60_000);

  it('load-demo loads the demo data and opens its conversations', async () => {
    const { page } = e;
    await page.goto(`${e.loupe.url}/#/p/local%2Fdefault/conversations`);
    await liveSubscription();
    send('load-demo');
    await page.waitForURL(/#\/p\/local%2Fdemo\/conversations/, { timeout: 60_000 });
    const projects = (await (await fetch(`${e.loupe.url}/app/projects`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json()) as { projects: { project_id: string; span_count: number }[] };
    expect(projects.projects.find((p) => p.project_id === 'local/demo')?.span_count).toBeGreaterThan(100);
  }, 90_000);
});
