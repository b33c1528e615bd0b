/**
 * Search what you see (issue 12 item 4), at 1440×900 and 1024×700: a word that appears only inside a
 * message ("refunded", in an assistant answer of the demo's order conversation) finds its
 * conversation in the list — the server searches message text (conversations.list over the full-text
 * index) — with the matched excerpt shown and the match marked; opening the result marks the word in
 * the chat (CSS Custom Highlight ranges over the rendered text). The spans explorer's search box
 * finds the spans that said it (`$search`), the same ones the API gives.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VIEWPORTS, openPage, startE2E, vpName, type E2E } from './fixture.js';
import { hash, screenshotBoth } from './helpers.js';

declare const CSS: { highlights: { get(name: string): { size: number } | undefined } };

const DEMO = 'local/demo';

describe('search', () => {
  let e: E2E;
  beforeAll(async () => {
    e = await startE2E({ demo: true });
  }, 180_000);
  afterAll(async () => e?.close());

  for (const vp of VIEWPORTS) {
    it(`a word inside a message finds its conversation, marked in the list and in the chat (${vpName(vp)})`, async () => {
      const page = await openPage(e, vp);
      await page.goto(`${e.loupe.url}/${hash(DEMO, 'conversations')}`);
      const rows = page.getByTestId('conversation-row');
      await rows.nth(2).waitFor();
      // Not a title, id or first/last preview: "refunded" is said mid-conversation.
      await page.getByLabel('Search conversations').fill('refunded');
      await page.getByTestId('conversation-count').filter({ hasText: /^1 conversation$/ }).waitFor();
      const snippet = rows.first().getByTestId('search-snippet');
      expect((await snippet.locator('mark').innerText()).toLowerCase()).toBe('refunded');
      if (vp === VIEWPORTS[0]) await screenshotBoth(page, 'search');
      await rows.first().click();
      await page.waitForURL(/conversations\/conv-order-a1187\?q=refunded/);
      await page.getByTestId('search-marks').filter({ hasText: /marked \d+ time/ }).waitFor();
      expect(await page.evaluate(() => CSS.highlights.get('loupe-match')?.size ?? 0)).toBeGreaterThan(0);
      await page.context().close();
    });
  }

  it('the spans explorer finds the spans that said a word', async () => {
    const page = await openPage(e, VIEWPORTS[1]);
    await page.goto(`${e.loupe.url}/${hash(DEMO, 'spans')}`);
    await page.getByTestId('span-row').first().waitFor();
    await page.getByTestId('spans-search').fill('refunded');
    const api = (await (await fetch(`${e.loupe.url}/agents/spans/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ project_id: DEMO, query: { $expr: { $search: 'refunded' } } }) })).json()) as { total_count: number; spans: { span_id: string }[] };
    expect(api.total_count).toBeGreaterThan(0);
    await page.getByTestId('spans-range').filter({ hasText: new RegExp(`of ${api.total_count} spans`) }).waitFor();
    expect(page.url()).toContain('q=refunded');
    await page.context().close();
  });
});
