/**
 * Group-by on any attribute name (issue 12 item 8): in the Spans page, grouping by the dotted custom
 * attribute `app.customer_tier` shows its groups (the server derives the alias app_customer_tier),
 * the header names the key as typed, and no 422 or endless "Loading…" appears.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VIEWPORTS, openPage, startE2E, vpName, type E2E } from './fixture.js';

const P = 'groups/dotted';

describe('group-by on a dotted attribute', () => {
  let e: E2E;
  beforeAll(async () => {
    e = await startE2E();
    const t0 = BigInt(Date.now() - 60_000) * 1_000_000n;
    const spans = ['gold', 'gold', 'silver'].map((tier, i) => ({
      traceId: `${i + 1}`.padStart(32, '0'), spanId: `${i + 1}`.padStart(16, '0'), name: 'chat gpt-4o-mini', kind: 3,
      startTimeUnixNano: String(t0 + BigInt(i) * 1_000_000n), endTimeUnixNano: String(t0 + BigInt(i) * 1_000_000n + 500_000n),
      attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'chat' } }, { key: 'app.customer_tier', value: { stringValue: tier } }],
    }));
    const r = await fetch(`${e.loupe.url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-project-id': P }, body: JSON.stringify({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 't' }, spans }] }] }) });
    expect(r.status).toBe(200);
  }, 180_000);
  afterAll(async () => e?.close());

  for (const vp of VIEWPORTS) {
    it(`groups by app.customer_tier (${vpName(vp)})`, async () => {
      const page = await openPage(e, vp);
      await page.goto(`${e.loupe.url}/#/p/${encodeURIComponent(P)}/spans?mode=group`);
      const builder = page.getByTestId('group-builder');
      await builder.waitFor();
      // Replace the default key with the custom attribute.
      const key = builder.getByTestId('group-key').first();
      await key.getByLabel('Key source').selectOption('custom_attrs_string');
      await key.getByTestId('group-key-input').fill('app.customer_tier');
      await page.getByTestId('apply-group').click();
      await page.getByTestId('groups-total').filter({ hasText: '2 groups' }).waitFor();
      expect(await page.getByTestId('group-error').count()).toBe(0);
      expect(await page.getByTestId('gk-app_customer_tier').allInnerTexts()).toEqual(expect.arrayContaining(['gold', 'silver']));
      expect(await page.getByRole('columnheader', { name: 'app.customer_tier' }).count()).toBe(1);
      await page.context().close();
    }, 90_000); // the first page of the file takes ~30 s at load 43
  }
});
