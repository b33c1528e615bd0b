/**
 * Tables that fit (issue 12 item 3), at 1440×900 and 1024×700, on the conversations list:
 * - every sortable header says so (aria-sort, an indicator) and sorts on the server: the first row is
 *   the one conversations.list puts first for that column;
 * - columns fit the window (no sideways scroll at 1024, none narrower than its minimum);
 * - a column resized by dragging keeps its width after a reload; a double click fits it to its content;
 * - a cut cell shows its full value on hover;
 * - a trace without a conversation id reads "service: root operation", with span count and duration;
 * - the Spans table's default columns all fit (Started, Duration and Cost on screen, none below its
 *   minimum, no sideways scroll) and its failed spans are tinted (issue 22.10);
 * - the group-by table reads whole (issue 22.10): the count measure and the Spans total are one
 *   column, measures are formatted (an average duration as "1.97 s"), no header or number is cut,
 *   distributions are at least 170 px wide, an integer attribute's histogram has whole-number bins;
 *   the grouping and its order are in the link (a reload and a link opened elsewhere show the same);
 * - the trace view at 1024 with the span panel open keeps a usable time axis (issue 22.10).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { VIEWPORTS, openPage, startE2E, vpName, type E2E } from './fixture.js';
import { consoleErrors, hash, screenshotBoth } from './helpers.js';
import { samplesDir } from '../helpers/paths.js';
import type { BrowserDocument } from './browser-globals.js';

// Browser globals inside page.evaluate callbacks (see browser-globals.ts).
declare const document: BrowserDocument;
declare const getComputedStyle: (el: unknown) => { backgroundColor: string };

const DEMO = 'local/demo';
const SAMPLES = 'tables/samples';

async function post<T>(e: E2E, p: string, body: unknown): Promise<T> {
  const r = await fetch(`${e.loupe.url}${p}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(r.status).toBe(200);
  return (await r.json()) as T;
}

const colWidth = (page: Page, id: string) => page.locator(`[data-testid=conversations-table] th[data-col="${id}"]`).evaluate((th) => th.getBoundingClientRect().width);

describe('tables', () => {
  let e: E2E;
  beforeAll(async () => {
    e = await startE2E({ demo: true });
    await post(e, '/import', { content: readFileSync(path.join(samplesDir, 'collector-fileexporter-style.jsonl'), 'utf8'), file_name: 'six.jsonl', project_id: SAMPLES });
  }, 180_000);
  afterAll(async () => e?.close());

  for (const vp of VIEWPORTS) {
    it(`every sortable column sorts on the server and shows it; columns fit the window (${vpName(vp)})`, async () => {
      const page = await openPage(e, vp);
      await page.goto(`${e.loupe.url}/${hash(DEMO, 'conversations')}`);
      const rows = page.getByTestId('conversation-row');
      await rows.first().waitFor();
      const table = page.getByTestId('conversations-table');

      // Fits: no sideways scroll, every column at least its minimum (a few px of rounding allowed).
      const fit = await table.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth, widths: [...el.querySelectorAll('th')].map((th) => [th.getAttribute('data-col'), th.getBoundingClientRect().width] as const) }));
      expect(fit.scroll).toBeLessThanOrEqual(fit.client + 1);
      for (const [, w] of fit.widths) expect(w).toBeGreaterThanOrEqual(54);

      const sortable = await table.locator('th.sortable').evaluateAll((ths) => ths.map((th) => th.getAttribute('data-col')!));
      expect(sortable).toEqual(expect.arrayContaining(['turn_count', 'span_count', 'total_cost_usd', 'total_input_tokens', 'error_count', 'last_activity']));
      for (const th of await table.locator('th.sortable').all()) {
        expect(await th.getAttribute('aria-sort')).toMatch(/none|ascending|descending/);
        expect(await th.locator('.sort-ind').count()).toBe(1);
      }
      for (const col of sortable) {
        if (col === 'last_activity') continue; // the default order; checked last by toggling
        await table.locator(`th[data-col="${col}"]`).click(); // desc first
        await table.locator(`th[data-col="${col}"][aria-sort=descending]`).waitFor();
        const want = await post<{ conversations: { conversation_id: string; first_message: { text: string } | null }[] }>(e, '/app/conversations', { project_id: DEMO, sort_by: [{ field: col, direction: 'desc' }], limit: 1 });
        const first = want.conversations[0]!;
        await page.waitForFunction((x) => document.querySelector('[data-testid=conversation-row]')?.textContent?.includes(x) ?? false, first.first_message?.text ?? first.conversation_id);
      }
      await table.locator('th[data-col="last_activity"]').click();
      await table.locator('th[data-col="last_activity"][aria-sort=descending]').waitFor();
      if (vp === VIEWPORTS[1]) await screenshotBoth(page, 'conversations-1024');
      await page.context().close();
    }, 90_000); // a click and a server read per sortable column: ~30 s at load 33
  }

  for (const vp of VIEWPORTS) {
    it(`the Spans table fits its default columns and marks failed spans (${vpName(vp)})`, async () => {
      const page = await openPage(e, vp);
      await page.goto(`${e.loupe.url}/${hash(DEMO, 'spans')}`);
      const table = page.getByTestId('spans-table');
      await page.getByTestId('span-row').first().waitFor();
      const fit = await table.evaluate((el) => {
        const box = el.getBoundingClientRect();
        return {
          scroll: el.scrollWidth,
          client: el.clientWidth,
          right: box.left + box.width,
          cols: [...el.querySelectorAll('th')].map((th) => {
            const r = th.getBoundingClientRect();
            return { id: th.getAttribute('data-col'), width: r.width, right: r.left + r.width };
          }),
        };
      });
      expect(fit.scroll).toBeLessThanOrEqual(fit.client + 1);
      expect(fit.cols.map((c) => c.id)).toEqual(expect.arrayContaining(['started_at', 'duration', 'total_cost_usd', 'trace_id']));
      for (const c of fit.cols) {
        expect(c.width, c.id).toBeGreaterThanOrEqual(54);
        expect(c.right, c.id).toBeLessThanOrEqual(fit.right + 1);
      }
      // Values are readable, not cut: a duration and a time show whole in their cells.
      const cut = await page.locator('[data-testid=spans-table] td[data-col="duration"], [data-testid=spans-table] td[data-col="total_cost_usd"]').evaluateAll((tds) => tds.filter((td) => td.scrollWidth > td.clientWidth + 1).length);
      expect(cut).toBe(0);
      // Failed spans: their rows are tinted.
      // Sorted ascending by status: ERROR comes first (a click sorts descending, the second ascending).
      await table.locator('th[data-col="status_code"]').click();
      await table.locator('th[data-col="status_code"]').click();
      await table.locator('th[data-col="status_code"][aria-sort=ascending]').waitFor();
      const error = page.locator('[data-testid=span-row].row-error').first();
      await error.waitFor({ timeout: 20_000 });
      expect(await error.locator('td[data-col="status_code"]').textContent()).toBe('ERROR');
      const bg = (loc: typeof error) => loc.evaluate((tr) => getComputedStyle(tr).backgroundColor);
      const plain = page.locator('[data-testid=span-row]:not(.row-error):not(.selected)').first();
      expect(await bg(error)).not.toBe(await bg(plain));
      if (vp === VIEWPORTS[1]) await screenshotBoth(page, 'spans-1024');
      await page.context().close();
    }, 90_000);
  }

  const GROUPING = {
    keys: [{ source: 'field', key: 'agent_name' }],
    measures: [
      { alias: 'spans', aggregation: 'count' },
      { alias: 'avg_duration_ms', aggregation: 'avg', value: { source: 'derived', key: 'duration_ms' } },
    ],
    filters: [],
    distributions: [
      { alias: 'retries', value: { source: 'custom_attrs_int', key: 'app.retry_count' } },
      { alias: 'tier', value: { source: 'custom_attrs_string', key: 'app.customer_tier' } },
    ],
  };

  for (const vp of VIEWPORTS) {
    it(`the group-by table reads whole and its grouping lives in the link (${vpName(vp)})`, async () => {
      const page = await openPage(e, vp);
      const errors = consoleErrors(page);
      // A link someone shared: the grouping and order come from it (this browser never applied it).
      const link = `${e.loupe.url}/${hash(DEMO, 'spans')}?mode=group&g=${encodeURIComponent(JSON.stringify(GROUPING))}&sort=avg_duration_ms:desc`;
      await page.goto(link);
      const rows = page.getByTestId('group-row');
      await rows.first().waitFor();
      const table = page.getByTestId('groups-table');
      const api = await post<{ groups: { group_keys: { agent_name: string | null }; metrics: { avg_duration_ms: number | null } }[] }>(e, '/agents/spans/query', {
        project_id: DEMO, limit: 1000, group_by: [{ source: 'field', key: 'agent_name', alias: 'agent_name' }],
        measures: GROUPING.measures, sort_by: [{ field: 'avg_duration_ms', direction: 'desc' }],
      });
      await page.getByTestId('groups-total').filter({ hasText: `${api.groups.length} groups` }).waitFor();
      expect(await page.getByTestId('gk-agent_name').allTextContents()).toEqual(api.groups.map((g) => g.group_keys.agent_name ?? '(none)'));
      expect(await table.locator('th[data-col="avg_duration_ms"]').getAttribute('aria-sort')).toBe('descending');
      // The builder shows the linked grouping.
      expect(await page.getByTestId('distribution-key').evaluateAll((els) => els.map((el) => (el as unknown as { value: string }).value))).toEqual(['app.retry_count', 'app.customer_tier']);

      const look = await table.evaluate((el) => ({
        cols: [...el.querySelectorAll('th')].map((th) => {
          const label = th.querySelector('.th-label')!;
          return { id: th.getAttribute('data-col'), text: th.textContent, width: th.getBoundingClientRect().width, cut: label.scrollWidth > label.clientWidth + 1 };
        }),
        cutCells: [...el.querySelectorAll('td.num')].filter((td) => td.scrollWidth > td.clientWidth + 1).map((td) => td.textContent),
        measures: [...el.querySelectorAll('[data-testid="m-avg_duration_ms"]')].map((m) => m.textContent),
        bins: [...el.querySelectorAll('[data-testid=dist-histogram]')].map((h) => h.getAttribute('data-bins')),
      }));
      // One column counts spans: the measure "spans" (the fixed Spans total is left out).
      expect(look.cols.filter((c) => /^spans/i.test(c.text ?? '')).map((c) => c.id)).toEqual(['spans']);
      for (const c of look.cols) {
        expect(c.cut, `header ${c.id} is cut`).toBe(false);
        if (c.id?.startsWith('dist:')) expect(c.width, c.id).toBeGreaterThanOrEqual(170);
        else expect(c.width, c.id).toBeGreaterThanOrEqual(60);
      }
      expect(look.cutCells).toEqual([]);
      // "1.97 s", "505 ms": a duration, not a raw float like 1969.779.
      for (const m of look.measures) expect(m).toMatch(/^(–|\d+ ms|\d+\.\d+ s|\d+m \d+s)$/);
      // app.retry_count holds whole numbers: every bin is one.
      expect(look.bins.filter((b) => b).length).toBeGreaterThan(0);
      for (const b of look.bins) if (b) for (const x of b.split(',')) expect(x).toMatch(/^-?\d+(–-?\d+)?$/);
      // The histograms take the column's width (not a fixed 50–140 px drawing).
      const histWidth = await page.getByTestId('dist-histogram').first().locator('svg').evaluate((svg) => svg.getBoundingClientRect().width);
      expect(histWidth).toBeGreaterThanOrEqual(150);
      if (vp === VIEWPORTS[0]) await screenshotBoth(page, 'spans-group-1440');
      else await screenshotBoth(page, 'spans-group-1024');

      // A new order goes into the link; a reload keeps grouping and order.
      await table.locator('th[data-col="spans"]').click();
      await table.locator('th[data-col="spans"][aria-sort=descending]').waitFor();
      await page.waitForURL(/sort=spans%3Adesc|sort=spans:desc/);
      await page.reload();
      await page.getByTestId('group-row').first().waitFor();
      await table.locator('th[data-col="spans"][aria-sort=descending]').waitFor();
      expect(await page.getByTestId('distribution-key').count()).toBe(2);
      expect(errors).toEqual([]);
      await page.context().close();
    }, 120_000);
  }

  it('the trace view at 1024 with the span panel open keeps a usable timeline', async () => {
    const page = await openPage(e, VIEWPORTS[1]);
    const { spans } = await post<{ spans: { trace_id: string; span_id: string }[] }>(e, '/agents/spans/query', { project_id: DEMO, limit: 1, sort_by: [{ field: 'started_at', direction: 'desc' }] });
    const span = spans[0]!;
    await page.goto(`${e.loupe.url}/${hash(DEMO, 'traces', span.trace_id)}?span=${span.span_id}`);
    await page.getByTestId('span-detail').waitFor();
    await page.getByTestId('wf-ruler').waitFor();
    const widths = await page.evaluate(() => ({
      track: document.querySelector('[data-testid=wf-ruler]')!.getBoundingClientRect().width,
      panel: document.querySelector('[data-testid=span-detail]')!.getBoundingClientRect().width,
      waterfall: document.querySelector('[data-testid=waterfall]')!.getBoundingClientRect().width,
    }));
    // Before: a 420 px panel and a 300 px name column left about 60 px of time axis. Now the name
    // column gives way (40 % of the waterfall) and the panel keeps its default 420 px.
    expect(widths.track).toBeGreaterThanOrEqual(200);
    expect(widths.panel).toBeGreaterThanOrEqual(400);
    expect(widths.waterfall).toBeGreaterThanOrEqual(300);
    // A bar is drawn wide enough to see.
    const bar = await page.locator('.wf-bar').first().evaluate((b) => b.getBoundingClientRect().width);
    expect(bar).toBeGreaterThan(2);
    await screenshotBoth(page, 'trace-panel-1024');
    await page.context().close();
  }, 90_000);

  it('a dragged column keeps its width after a reload; a double click fits it; a cut cell shows all on hover', async () => {
    const page = await openPage(e, VIEWPORTS[0]);
    await page.goto(`${e.loupe.url}/${hash(DEMO, 'conversations')}`);
    await page.getByTestId('conversation-row').first().waitFor();
    const before = await colWidth(page, 'agents');
    const handle = page.locator('[data-testid=conversations-table] th[data-col="agents"] [data-testid=col-resize]');
    const box = (await handle.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + 40, box.y + box.height / 2, { steps: 4 });
    await page.mouse.move(box.x + 90, box.y + box.height / 2, { steps: 4 });
    await page.mouse.up();
    const dragged = await colWidth(page, 'agents');
    expect(dragged).toBeGreaterThan(before + 60);
    await page.reload();
    await page.getByTestId('conversation-row').first().waitFor();
    expect(Math.abs((await colWidth(page, 'agents')) - dragged)).toBeLessThan(3);

    // Double click: the Models column takes the width of its widest content.
    await page.locator('[data-testid=conversations-table] th[data-col="models"] [data-testid=col-resize]').dblclick();
    const fitted = await page.locator('[data-testid=conversations-table] td[data-col="models"]').evaluateAll((tds) => ({
      cut: tds.filter((td) => (td.scrollWidth > td.clientWidth + 1)).length,
    }));
    expect(fitted.cut).toBe(0);

    // A preview cut by its column shows the whole text as the title on hover.
    const cell = page.locator('[data-testid=conversations-table] td[data-col="last_activity"]').first();
    await cell.hover();
    expect(await cell.getAttribute('title')).toBeNull(); // short: not cut, no tooltip
    const preview = page.locator('.conv-last').first();
    expect(await preview.getAttribute('title')).toBeTruthy();
    const cutCell = page.locator('[data-testid=conversations-table] td[data-col="models"]').first();
    // Squeeze Models to its minimum: its pills are cut, and hovering shows them all.
    const mh = (await page.locator('[data-testid=conversations-table] th[data-col="models"] [data-testid=col-resize]').boundingBox())!;
    await page.mouse.move(mh.x + mh.width / 2, mh.y + mh.height / 2);
    await page.mouse.down();
    await page.mouse.move(mh.x - 200, mh.y + mh.height / 2, { steps: 5 });
    await page.mouse.up();
    await cutCell.hover();
    await page.waitForFunction(() => !!document.querySelector('[data-testid=conversations-table] td[data-col="models"][title]'));
    expect(await cutCell.getAttribute('title')).toMatch(/claude|gpt|o4/);
    await page.context().close();
  });

  it('a trace without a conversation id reads "service: root operation" with its span count and duration', async () => {
    const page = await openPage(e, VIEWPORTS[1]);
    await page.goto(`${e.loupe.url}/${hash(SAMPLES, 'conversations')}`);
    const trace = page.getByTestId('trace-row').first();
    await trace.locator('strong.svc').waitFor();
    const text = await trace.innerText();
    expect(text).toMatch(/^\S.*: \S/); // "service: root operation"
    expect(text).toMatch(/\d+ spans? · \d/);
    // Not the trace id twice.
    const id = await trace.locator('.mono').innerText();
    expect(text.split(id).length - 1).toBe(1);
    await screenshotBoth(page, 'traces-list');
    await page.context().close();
  });
});
