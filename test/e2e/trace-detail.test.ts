/**
 * One trace's header and span panel (issue 12 item 2), at 1440×900 and 1024×700: the header names
 * the service and root operation with status, spans, duration, tokens and cost; the span panel shows
 * span events with the exception first (type, message, folded stack trace); attribute values stay
 * readable (long text wraps at word boundaries in a wide value column, JSON is folded); the panel is
 * resized by dragging its edge and keeps that width after a reload.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VIEWPORTS, openPage, startE2E, vpName, type E2E } from './fixture.js';
import { hash, screenshotBoth } from './helpers.js';

declare const getComputedStyle: (el: unknown) => { fontSize: string };

const P = 'detail/e2e';
const TRACE = 'd'.repeat(31) + '1';
const LONG = 'The customer asked twice about the refund for order A-1187 and was told to wait for the supervisor. '.repeat(6).trim();

function trace() {
  const t0 = BigInt(Date.now() - 120_000) * 1_000_000n;
  const at = (ms: number) => String(t0 + BigInt(ms) * 1_000_000n);
  const attr = (key: string, v: string) => ({ key, value: { stringValue: v } });
  return {
    resourceSpans: [{ resource: { attributes: [attr('service.name', 'billing-api')] }, scopeSpans: [{ scope: { name: 'e2e' }, spans: [
      { traceId: TRACE, spanId: '1'.padStart(16, '0'), name: 'POST /refunds', kind: 2, startTimeUnixNano: at(0), endTimeUnixNano: at(1200), attributes: [attr('http.route', '/refunds')], status: { code: 2, message: 'refund failed' } },
      { traceId: TRACE, spanId: '2'.padStart(16, '0'), parentSpanId: '1'.padStart(16, '0'), name: 'chat gpt-4o-mini', kind: 3, startTimeUnixNano: at(100), endTimeUnixNano: at(700),
        attributes: [attr('gen_ai.operation.name', 'chat'), attr('gen_ai.request.model', 'gpt-4o-mini'), { key: 'gen_ai.usage.input_tokens', value: { intValue: '1200' } }, { key: 'gen_ai.usage.output_tokens', value: { intValue: '80' } }] },
      { traceId: TRACE, spanId: '3'.padStart(16, '0'), parentSpanId: '1'.padStart(16, '0'), name: 'payments.charge', kind: 3, startTimeUnixNano: at(800), endTimeUnixNano: at(1150),
        attributes: [attr('app.note', LONG), attr('app.request', JSON.stringify({ order: 'A-1187', amount: 249, currency: 'USD', lines: [{ sku: 'JKT-1', qty: 1 }] }))],
        events: [
          { name: 'retry', timeUnixNano: at(900), attributes: [{ key: 'attempt', value: { intValue: '2' } }] },
          { name: 'exception', timeUnixNano: at(1100), attributes: [attr('exception.type', 'GatewayTimeout'), attr('exception.message', 'the payment gateway did not answer in 30 s'), attr('exception.stacktrace', 'GatewayTimeout: the payment gateway did not answer\n  at charge (payments.ts:42)\n  at refund (refunds.ts:17)')] },
        ],
        status: { code: 2, message: 'gateway timeout' } },
    ] }] }],
  };
}

describe('trace header and span panel', () => {
  let e: E2E;
  beforeAll(async () => {
    e = await startE2E();
    const r = await fetch(`${e.loupe.url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-project-id': P }, body: JSON.stringify(trace()) });
    expect(r.status).toBe(200);
  }, 180_000);
  afterAll(async () => e?.close());

  for (const vp of VIEWPORTS) {
    it(`header, events and exceptions, readable values, a resizable panel (${vpName(vp)})`, async () => {
      const page = await openPage(e, vp);
      await page.goto(`${e.loupe.url}/${hash(P, 'traces', TRACE)}?span=${'3'.padStart(16, '0')}`);
      const header = page.getByTestId('trace-header');
      await header.getByText('1.2k → 80 tok').waitFor();
      // The title comes from the span tree, the tokens from the chat's first page: two requests, either first.
      await page.getByTestId('trace-title').filter({ hasText: 'POST /refunds' }).waitFor();
      expect(await page.getByTestId('trace-title').innerText()).toBe('billing-api: POST /refunds');
      expect(await page.getByTestId('trace-status').innerText()).toBe('2 failed spans');
      expect(await page.getByTestId('trace-span-count').innerText()).toBe('3 spans');
      expect(await page.getByTestId('trace-facts').innerText()).toContain('1.20 s');

      const panel = page.getByTestId('span-detail');
      const events = panel.getByTestId('span-events');
      await events.waitFor();
      expect(await events.locator('h3').innerText()).toMatch(/events \(2\)/i);
      const ex = events.getByTestId('span-exception');
      expect(await ex.locator('.error-line').innerText()).toContain('GatewayTimeout: the payment gateway did not answer in 30 s');
      expect(await ex.locator('details').getAttribute('open')).toBeNull(); // the stack trace is folded
      expect(await events.locator('.span-event').nth(1).innerText()).toContain('retry');

      // Values: the long text wraps in a wide column; the JSON value is folded, not a wall of characters.
      const attrs = panel.getByTestId('span-attributes');
      const note = attrs.locator('dd').filter({ hasText: 'The customer asked twice' });
      const box = (await note.boundingBox())!;
      const panelBox = (await panel.boundingBox())!;
      expect(box.width).toBeGreaterThan(panelBox.width * 0.45);
      const lines = await note.evaluate((dd) => Math.round(dd.getBoundingClientRect().height / (Number.parseFloat(getComputedStyle(dd).fontSize) * 1.25)));
      expect(lines).toBeLessThan(20); // a few characters per line would be 100+
      const json = attrs.locator('dd').filter({ has: page.locator('.json') }).first();
      expect(await json.innerText()).not.toContain('"currency"'); // folded at the top level

      // Drag the splitter 120 px to the left: the panel widens, and stays so after a reload. At 1024 it
      // widens only as far as leaves the waterfall 300 px (a name column and a time axis, issue 22.10).
      const split = page.getByTestId('splitter');
      const s = (await split.boundingBox())!;
      await page.mouse.move(s.x + s.width / 2, s.y + 40);
      await page.mouse.down();
      await page.mouse.move(s.x - 60, s.y + 40, { steps: 4 });
      await page.mouse.move(s.x - 120, s.y + 40, { steps: 4 });
      await page.mouse.up();
      const wide = (await panel.boundingBox())!.width;
      const waterfall = (await page.getByTestId('waterfall').boundingBox())!.width;
      expect(wide).toBeGreaterThan(panelBox.width + (vp === VIEWPORTS[0] ? 100 : 40));
      expect(waterfall).toBeGreaterThanOrEqual(vp === VIEWPORTS[0] ? 400 : 299);
      await page.reload();
      await page.getByTestId('span-events').waitFor();
      expect(Math.abs((await page.getByTestId('span-detail').boundingBox())!.width - wide)).toBeLessThan(3);
      if (vp === VIEWPORTS[0]) await screenshotBoth(page, 'trace-detail');
      await page.context().close();
    }, 90_000); // ~30 s at load 43
  }
});
