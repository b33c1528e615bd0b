/**
 * Shell and navigation end to end (real server, real Chromium):
 * - keyboard only: `/` focuses search, j/k + Enter open a conversation, j/k move between turns,
 *   Enter opens the turn's trace, Esc walks back, `?` shows the key overlay;
 * - spans POSTed to /v1/traces appear in the open list live (server-sent data.changed), no reload;
 * - deep links: a trace URL with ?span= opens the timeline with that span's detail panel;
 * - feedback added from the trace's chat view is stored ('feedback.query' returns it) and shown as the control's state;
 * - settings show the data folder, reveal the training key; the theme toggle persists across a reload;
 *   screenshots in light and dark.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startE2E, type E2E } from './fixture.js';
import { hash, screenshotBoth } from './helpers.js';
import type { BrowserDocument, BrowserWindow } from './browser-globals.js';

// Browser globals inside page.evaluate callbacks (see browser-globals.ts).
declare const document: BrowserDocument;
declare const window: BrowserWindow;

const DEMO = 'local/demo';

async function post<T>(e: E2E, p: string, body: unknown, headers: Record<string, string> = {}): Promise<T> {
  const r = await fetch(`${e.loupe.url}${p}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  expect(r.status).toBe(200);
  return (await r.json()) as T;
}

const selectedTurn = (e: E2E) => e.page.locator('[data-testid=turn][aria-current=true]').getAttribute('data-trace');

describe('navigation', () => {
  let e: E2E;
  beforeAll(async () => {
    e = await startE2E();
    await post(e, '/app/demo', {});
  }, 180_000);
  afterAll(async () => e?.close());

  it('works keyboard-only: open a conversation, move between turns, open a trace, go back', async () => {
    const { page } = e;
    await page.goto(`${e.loupe.url}/${hash(DEMO, 'conversations')}`);
    const rows = page.getByTestId('conversation-row');
    await rows.nth(1).waitFor();

    await page.keyboard.press('/');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Search conversations');
    await page.keyboard.press('Escape');
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('BODY');

    // Row 0 is selected; j moves to row 1, k back to row 0; Enter opens the selected conversation.
    await page.keyboard.press('j');
    await page.locator('[data-testid=conversation-row][aria-selected=true]').nth(0).waitFor();
    expect(await rows.nth(1).getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('k');
    expect(await rows.nth(0).getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/conversations\/[^/]+$/);
    await page.getByTestId('turn').first().waitFor();

    const turns = await page.getByTestId('turn').evaluateAll((els) => els.map((el) => el.getAttribute('data-trace')));
    expect(turns.length).toBeGreaterThan(2);
    // The newest turn starts selected; k/↑ go to older turns, j/↓ to newer ones.
    await page.waitForFunction(() => document.querySelector('[data-testid=turn][aria-current=true]'));
    expect(await selectedTurn(e)).toBe(turns[turns.length - 1]);
    await page.keyboard.press('k');
    expect(await selectedTurn(e)).toBe(turns[turns.length - 2]);
    await page.keyboard.press('ArrowUp');
    expect(await selectedTurn(e)).toBe(turns[turns.length - 3]);
    await page.keyboard.press('ArrowDown');
    expect(await selectedTurn(e)).toBe(turns[turns.length - 2]);
    const inView = await page.locator('[data-testid=turn][aria-current=true]').evaluate((el) => {
      const r = el.getBoundingClientRect();
      return r.top < window.innerHeight && r.bottom > 0;
    });
    expect(inView).toBe(true);

    // Enter opens the selected turn's trace; Esc comes back to the conversation, Esc again to the list.
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`/traces/${turns[turns.length - 2]}`));
    await page.getByTestId('wf-row').first().waitFor();
    await page.keyboard.press('j');
    await page.getByTestId('span-detail').waitFor();
    await page.keyboard.press('Escape');
    await page.getByTestId('span-detail').waitFor({ state: 'detached' });
    await page.keyboard.press('Escape');
    await page.waitForURL(/\/conversations\/[^/]+$/);
    await page.keyboard.press('Escape');
    await page.waitForURL(/\/conversations$/);

    await page.keyboard.press('?');
    await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
    await screenshotBoth(page, 'keyboard-help');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor({ state: 'detached' });
  }, 90_000);

  it('shows spans arriving on /v1/traces live, without a reload', async () => {
    const { page } = e;
    const project = 'live/otlp';
    await page.goto(`${e.loupe.url}/${hash(project, 'conversations')}`);
    await page.getByTestId('empty-state').waitFor();
    const marker = await page.evaluate(() => ((window as unknown as { __marker: number }).__marker = Math.random()));
    const now = BigInt(Date.now()) * 1_000_000n;
    const body = {
      resourceSpans: [{
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'live-test' } }] },
        scopeSpans: [{ scope: { name: 'e2e' }, spans: [{
          traceId: '5'.repeat(32), spanId: '6'.repeat(16), name: 'chat gpt-4o-mini', kind: 3,
          startTimeUnixNano: String(now - 2_000_000_000n), endTimeUnixNano: String(now - 1_000_000_000n),
          attributes: [
            { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
            { key: 'gen_ai.conversation.id', value: { stringValue: 'conv-live-1' } },
            { key: 'gen_ai.request.model', value: { stringValue: 'gpt-4o-mini' } },
            { key: 'gen_ai.input.messages', value: { stringValue: JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'Is the live view live?' }] }]) } },
            { key: 'gen_ai.output.messages', value: { stringValue: JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'Yes, it is.' }], finish_reason: 'stop' }]) } },
          ],
        }] }],
      }],
    };
    await post(e, '/v1/traces', body, { 'x-project-id': project });
    await page.locator('[data-testid=conversation-row]', { hasText: 'Is the live view live?' }).waitFor();
    // Same document: the page was not reloaded.
    expect(await page.evaluate(() => (window as unknown as { __marker?: number }).__marker)).toBe(marker);
  }, 60_000);

  it('opens a span from a deep link, stores feedback from the chat view, and shows settings', async () => {
    const { page } = e;
    const spans = await post<{ spans: Array<{ trace_id: string; span_id: string; operation_name: string | null }> }>(e, '/agents/spans/query', {
      project_id: DEMO, query: { $expr: { $eq: [{ $getField: 'operation_name' }, { $literal: 'execute_tool' }] } }, limit: 1,
    });
    const tool = spans.spans[0]!;
    await page.goto(`${e.loupe.url}/${hash(DEMO, 'traces', tool.trace_id)}?span=${tool.span_id}`);
    await page.getByTestId('span-detail').waitFor();
    await page.locator('[data-testid=span-columns] dd', { hasText: tool.span_id }).first().waitFor();
    expect(await page.locator(`[data-testid=wf-row][data-span="${tool.span_id}"]`).getAttribute('class')).toContain('selected');
    await screenshotBoth(page, 'trace');

    await page.getByRole('tab', { name: 'Chat' }).click();
    const chat = page.getByTestId('trace-chat');
    await chat.locator('.vrow [data-testid]').first().waitFor();
    await screenshotBoth(page, 'trace-chat');
    const control = chat.locator('.trace-turn-head').getByTestId('feedback-control');
    // The first thumb's record reaches the page (a refetch) while its note is being typed: held here
    // until the note is in, as a slow server does (the box was emptied then, and Save lost the note).
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await page.route(/\/(app\/traces\/chat-page|agents\/traces\/chat|feedback\/query)$/, async (route) => {
      await held;
      await route.continue();
    });
    await control.getByRole('button', { name: 'Thumbs down for this turn' }).click();
    await control.getByLabel('Feedback note').fill('wrong carrier');
    release();
    await control.getByTestId('feedback-delete').waitFor(); // the stored record is the page's now
    expect(await control.getByLabel('Feedback note').inputValue()).toBe('wrong carrier');
    await page.unrouteAll();
    await control.getByRole('button', { name: 'Save' }).click();
    await control.getByTestId('feedback-note-button').filter({ hasText: 'wrong carrier' }).waitFor();
    expect(await control.getAttribute('data-state')).toBe('down');
    const fb = await post<{ feedback: Array<{ svc_ref: string; payload: Record<string, unknown> }> }>(e, '/feedback/query', { project_id: DEMO, svc_ref: `svc:///${DEMO}/trace/${tool.trace_id}` });
    expect(fb.feedback.some((f) => f.payload.value === 'down' && f.payload.note === 'wrong carrier')).toBe(true);

    await page.goto(`${e.loupe.url}/${hash(DEMO, 'settings')}`);
    await page.getByTestId('data-dir').filter({ hasText: e.dataDir }).waitFor();
    // The store's size per project (system.storage): the demo project with its span count.
    const demoSpans = (await post<{ projects: { project_id: string; span_count: number }[] }>(e, '/app/projects', {})).projects.find((p) => p.project_id === DEMO)!.span_count;
    await page.getByTestId('storage-per-project').locator('tr', { hasText: DEMO }).filter({ hasText: demoSpans.toLocaleString('en-US') }).waitFor();
    await page.getByRole('button', { name: 'Reveal' }).click();
    const key = await page.getByTestId('training-key').innerText();
    expect(key).toBe(e.loupe.ctx.apiKey);
    await page.getByRole('button', { name: 'Hide' }).click();
    await screenshotBoth(page, 'settings');

    // The theme toggle overrides the OS setting and is remembered across reloads (UI store, persisted).
    const themeIs = (t: string) => page.waitForFunction((want) => document.documentElement.dataset.theme === want, t);
    await themeIs('light');
    await page.getByTestId('theme-toggle').click();
    await themeIs('dark');
    await page.reload();
    await page.getByTestId('settings-page').waitFor();
    await themeIs('dark'); // a fresh document: only the persisted preference can make it dark (the OS says light)
    await page.keyboard.press('t');
    await themeIs('light');
  }, 90_000);
});
