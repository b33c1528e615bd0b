/**
 * Search what you see (issue 12 item 4), at 1440×900 and 1024×700: a word that appears only inside a
 * message ("refunded", in an assistant answer of the demo's order conversation) finds its
 * conversation in the list — the server searches message text (conversations.list over the full-text
 * index) — with the matched excerpt shown and the match marked; opening the result marks the word in
 * the chat (CSS Custom Highlight ranges over the rendered text). The spans explorer's search box
 * finds the spans that said it (`$search`), the same ones the API gives.
 * A hit in an early turn of a long conversation (issue 22.9): the page loads earlier turns down to the
 * match, opens there with it marked as current, and n / N and the arrows step through every mark. In a
 * trace, n / N keep stepping after Esc leaves the find box.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VIEWPORTS, openPage, startE2E, vpName, type E2E } from './fixture.js';
import { hash, screenshotBoth } from './helpers.js';
import { chatAttributes, otlpRequest, traceBuilder } from '../helpers/otlp.js';
import type { BrowserWindow } from './browser-globals.js';

declare const CSS: { highlights: { get(name: string): { size: number; forEach(f: (r: { getBoundingClientRect(): { top: number; bottom: number } }) => void): void } | undefined } };
declare const window: BrowserWindow;

const DEMO = 'local/demo';
const LONG = 'conv-long-search';

/** A 16-turn conversation; "quokka" is said in turns 3, 9 and 15 only (pages hold 10 turns, newest first). */
function longConversation() {
  const spans: Record<string, unknown>[] = [];
  const start = Date.now() - 3_600_000;
  for (let i = 1; i <= 16; i++) {
    const t = traceBuilder({ seed: `long-${i}`, start: start + i * 60_000 });
    const said = [3, 9, 15].includes(i) ? `Turn ${i}: the quokka answer, with padding words to make the turn tall. `.repeat(6) : `Turn ${i}: nothing special here, a plain answer. `.repeat(6);
    t.span('chat gpt-4o-mini', {
      kind: 'CLIENT',
      attributes: chatAttributes({ model: 'gpt-4o-mini', conversationId: LONG, input: [{ role: 'user', content: `Question ${i}?` }], output: [{ role: 'assistant', content: said }] }),
    });
    spans.push(...t.spans());
  }
  return otlpRequest(spans);
}

describe('search', () => {
  let e: E2E;
  beforeAll(async () => {
    e = await startE2E({ demo: true });
  }, 180_000);
  afterAll(async () => e?.close());

  for (const vp of VIEWPORTS) {
    it(`a hit in an early turn opens the conversation at the match, with next and previous (${vpName(vp)})`, async () => {
      if (vp === VIEWPORTS[0]) {
        const r = await fetch(`${e.loupe.url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-project-id': DEMO }, body: JSON.stringify(longConversation()) });
        expect(r.status).toBe(200);
      }
      const page = await openPage(e, vp);
      await page.goto(`${e.loupe.url}/${hash(DEMO, 'conversations')}`);
      await page.getByTestId('conversation-row').first().waitFor();
      await page.getByLabel('Search conversations').fill('quokka');
      await page.getByTestId('conversation-count').filter({ hasText: /^1 conversation$/ }).waitFor();
      await page.getByTestId('conversation-row').first().click();
      await page.waitForURL(/conversations\/conv-long-search\?q=quokka/);
      // Turn 3 is on the second page: loaded, and the first of its marks is the current one, on screen.
      const position = page.getByTestId('match-position');
      await position.filter({ hasText: /match 1 of \d+/ }).waitFor({ timeout: 20_000 });
      const total = Number((await position.textContent())!.match(/of (\d+)/)![1]);
      expect(total).toBe(18); // 6 repeats × 3 turns
      const currentOnScreen = () =>
        page.evaluate(() => {
          let box: { top: number; bottom: number } | null = null;
          CSS.highlights.get('loupe-match-current')?.forEach((r) => { box = r.getBoundingClientRect(); });
          const b = box as { top: number; bottom: number } | null;
          return b !== null && b.top >= 0 && b.bottom <= window.innerHeight;
        });
      expect(await currentOnScreen()).toBe(true);
      expect(await page.locator('[data-testid="turn"][aria-current="true"]').textContent()).toContain('Turn 3:');
      if (vp === VIEWPORTS[0]) await screenshotBoth(page, 'search-hit');
      // n steps forward (to turn 9's first mark after turn 3's six), N back; the arrows do the same.
      for (let i = 0; i < 6; i++) await page.keyboard.press('n');
      await position.filter({ hasText: 'match 7 of 18' }).waitFor();
      expect(await currentOnScreen()).toBe(true);
      await page.keyboard.press('N');
      await position.filter({ hasText: 'match 6 of 18' }).waitFor();
      await page.getByTestId('match-next').click();
      await position.filter({ hasText: 'match 7 of 18' }).waitFor();
      await page.context().close();
    }, 90_000);
  }

  it('in a trace, n / N keep stepping through the matches after Esc leaves the find box', async () => {
    const page = await openPage(e, VIEWPORTS[1]);
    const trace = (await (await fetch(`${e.loupe.url}/agents/spans/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ project_id: DEMO, query: { $expr: { $eq: [{ $getField: 'conversation_id' }, { $literal: 'conv-order-a1187' }] } }, limit: 1 }) })).json()) as { spans: { trace_id: string }[] };
    await page.goto(`${e.loupe.url}/${hash(DEMO, 'traces', trace.spans[0]!.trace_id)}`);
    await page.getByTestId('trace-find').fill('order');
    const count = page.getByTestId('find-count');
    await count.filter({ hasText: /\d+ match/ }).waitFor({ timeout: 20_000 });
    await page.keyboard.press('Escape');
    expect(await page.getByTestId('trace-find').inputValue()).toBe('order');
    await page.keyboard.press('n');
    await count.filter({ hasText: /^1 of \d+ match/ }).waitFor();
    await page.keyboard.press('n');
    await count.filter({ hasText: /^2 of \d+ match/ }).waitFor();
    await page.keyboard.press('N');
    await count.filter({ hasText: /^1 of \d+ match/ }).waitFor();
    await page.context().close();
  }, 60_000);

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
