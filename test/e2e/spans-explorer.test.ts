/**
 * Spans explorer end to end: the demo spans grouped by agent with two measures and two distributions
 * (a numeric histogram and a top-values bar list) built in the UI; every number on screen must equal
 * POST /agents/spans/query for the same request. The distributions read the demo's own custom
 * attributes (app.retry_count on chat spans, app.customer_tier on chat and root spans). Then the list
 * mode filter, the Agents link, server sorting and a custom attribute column.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot, startE2E, type E2E } from './fixture.js';
import { textOf } from '../../src/shared/text.js';

const PROJECT = 'local/demo';

/** How the table writes a duration (ms): "505 ms", "1.97 s", "12.3 s", "2m 5s". */
const fmtDuration = (ms: number) =>
  ms < 1000 ? `${Math.round(ms)} ms` : ms < 60_000 ? `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s` : `${Math.floor(ms / 60_000)}m ${Math.round((ms % 60_000) / 1000)}s`;

describe('spans explorer', () => {
  let e: E2E;
  beforeAll(async () => {
    e = await startE2E({ demo: true });
  }, 180_000);
  afterAll(async () => e?.close());

  it('groups the demo spans by agent with two measures and distributions equal to the API', async () => {
    const { page } = e;
    await page.goto(`${e.loupe.url}/#/p/${encodeURIComponent(PROJECT)}/spans?mode=group`);
    const builder = page.getByTestId('group-builder');
    await builder.waitFor();
    // The builder starts with agent_name and two measures; set them explicitly, then add two distributions.
    await builder.getByTestId('group-key-input').first().fill('agent_name');
    const measures = builder.getByTestId('measure');
    expect(await measures.count()).toBe(2);
    await measures.nth(0).getByLabel('Measure alias').fill('spans');
    await measures.nth(0).getByLabel('Aggregation').selectOption('count');
    await measures.nth(1).getByLabel('Measure alias').fill('avg_duration_ms');
    await measures.nth(1).getByLabel('Aggregation').selectOption('avg');
    await measures.nth(1).getByLabel('Value source').selectOption('derived');
    await measures.nth(1).getByLabel('Value key').fill('duration_ms');
    await builder.getByTestId('add-distribution').click();
    await builder.getByTestId('add-distribution').click();
    const dists = builder.getByTestId('distribution');
    await dists.nth(0).getByLabel('Distribution alias').fill('retries');
    await dists.nth(0).getByLabel('Distribution source').selectOption('custom_attrs_int');
    await dists.nth(0).getByLabel('Distribution key').fill('app.retry_count');
    await dists.nth(1).getByLabel('Distribution alias').fill('tier');
    await dists.nth(1).getByLabel('Distribution source').selectOption('custom_attrs_string');
    await dists.nth(1).getByLabel('Distribution key').fill('app.customer_tier');
    await page.getByTestId('apply-group').click();

    const request = {
      project_id: PROJECT,
      include_costs: true,
      limit: 1000,
      group_by: [{ source: 'field', key: 'agent_name', alias: 'agent_name' }],
      measures: [
        { alias: 'spans', aggregation: 'count' },
        { alias: 'avg_duration_ms', aggregation: 'avg', value: { source: 'derived', key: 'duration_ms' } },
      ],
      group_distributions: [
        { alias: 'retries', value: { source: 'custom_attrs_int', key: 'app.retry_count' } },
        { alias: 'tier', value: { source: 'custom_attrs_string', key: 'app.customer_tier' } },
      ],
    };
    const res = await fetch(`${e.loupe.url}/agents/spans/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) });
    expect(res.status).toBe(200);
    const api = (await res.json()) as { groups: { group_keys: Record<string, unknown>; metrics: Record<string, number | null>; span_count: number; error_count: number; distributions: Record<string, any> }[]; total_count: number };
    expect(api.groups.length).toBeGreaterThanOrEqual(3); // triage, billing, researcher… plus spans without an agent
    // The exact number of spans per agent and retry count, from a two-key grouping (no bins involved).
    const byValue = (await (await fetch(`${e.loupe.url}/agents/spans/query`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ project_id: PROJECT, limit: 1000, group_by: [{ source: 'field', key: 'agent_name', alias: 'agent_name' }, { source: 'custom_attrs_int', key: 'app.retry_count', alias: 'retries' }] }),
    })).json()) as { groups: { group_keys: { agent_name: string | null; retries: number | null }; span_count: number }[] };
    const retryCounts = new Map<string, Map<number, number>>();
    for (const g of byValue.groups) {
      if (g.group_keys.retries === null) continue;
      const agent = textOf(g.group_keys.agent_name);
      if (!retryCounts.has(agent)) retryCounts.set(agent, new Map());
      retryCounts.get(agent)!.set(g.group_keys.retries, g.span_count);
    }

    const rows = page.getByTestId('group-row');
    await page.getByTestId('groups-total').filter({ hasText: `${api.total_count} groups` }).waitFor();
    await rows.nth(api.groups.length - 1).waitFor();
    expect(await rows.count()).toBe(api.groups.length);
    // The page sends exactly the request the test built.
    expect(JSON.parse(await page.getByTestId('group-request').textContent() ?? '{}')).toEqual(request);

    let histograms = 0;
    for (const [i, g] of api.groups.entries()) {
      const row = rows.nth(i);
      const key = g.group_keys.agent_name === null ? '(none)' : textOf(g.group_keys.agent_name);
      expect(await row.getByTestId('gk-agent_name').textContent()).toBe(key);
      // Measures read as what they measure (issue 22.10): a count with separators, an average duration as a duration.
      expect(await row.getByTestId('m-spans').textContent()).toBe(g.metrics.spans!.toLocaleString('en-US'));
      expect(Number(await row.getByTestId('m-spans').getAttribute('data-value'))).toBe(g.span_count);
      expect(await row.getByTestId('m-avg_duration_ms').textContent()).toBe(g.metrics.avg_duration_ms === null || g.metrics.avg_duration_ms === undefined ? '–' : fmtDuration(g.metrics.avg_duration_ms));
      expect(Number(await row.getByTestId('m-avg_duration_ms').getAttribute('data-value'))).toBe(g.metrics.avg_duration_ms);
      // The plain count is the Spans total: shown once, as the measure.
      expect(await row.getByTestId('g-span_count').count()).toBe(0);
      expect(await row.getByTestId('g-error_count').textContent()).toBe(String(g.error_count));
      // app.retry_count is an integer attribute: one bar per value, each with that value's span count.
      const r = g.distributions.retries;
      const perValue = retryCounts.get(textOf(g.group_keys.agent_name)) ?? new Map<number, number>();
      const values = [...perValue.keys()].sort((a, b) => a - b);
      const hist = row.getByTestId('dist-histogram');
      if (values.length) {
        const all = Array.from({ length: values.at(-1)! - values[0]! + 1 }, (_, i) => values[0]! + i);
        expect(await hist.getAttribute('data-bins')).toBe(all.join(','));
        expect(await hist.getAttribute('data-counts')).toBe(all.map((v) => perValue.get(v) ?? 0).join(','));
      }
      expect(await row.getByTestId('dist-present').first().textContent()).toBe(String(r.present_count));
      if (r.present_count > 0) histograms++;
      const t = g.distributions.tier;
      const shown = await row.getByTestId('dist-value').evaluateAll((lis) => lis.map((li) => [li.querySelector('.dist-label')!.textContent, Number(li.querySelector('.dist-count')!.textContent)]));
      expect(shown).toEqual(t.values.map((v: { value: string; count: number }) => [v.value, v.count]));
    }
    // Every agent's chat spans carry app.retry_count (triage, billing, researcher).
    expect(histograms).toBeGreaterThanOrEqual(3);
    expect(api.groups.filter((g) => g.group_keys.agent_name !== null).every((g) => g.distributions.tier.values.length > 0)).toBe(true);
    await screenshot(page, 'spans-group-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await rows.first().waitFor();
    await screenshot(page, 'spans-group-dark');
    await page.emulateMedia({ colorScheme: 'light' });
  }, 120_000);

  it('lists spans filtered by agent from the Agents page, with $expr shown', async () => {
    const { page } = e;
    await page.goto(`${e.loupe.url}/#/p/${encodeURIComponent(PROJECT)}/agents`);
    const agents = await (await fetch(`${e.loupe.url}/agents/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ project_id: PROJECT, include_costs: true }) })).json() as { agents: { agent_name: string; span_count: number }[]; total_count: number };
    await page.getByTestId('agents-total').filter({ hasText: `${agents.total_count} agents` }).waitFor();
    await screenshot(page, 'agents-light');
    const billing = agents.agents.find((a) => a.agent_name === 'billing')!;
    await page.getByTestId('agent-row').filter({ hasText: 'billing' }).first().click();
    await page.waitForURL(/\/spans\?/);
    await page.getByTestId('spans-range').filter({ hasText: `of ${billing.span_count} spans` }).waitFor();
    await page.getByRole('button', { name: '{ } $expr' }).click();
    expect(JSON.parse(await page.getByTestId('expr-preview').textContent() ?? '{}')).toEqual({ $expr: { $and: [{ $eq: [{ $getField: 'agent_name' }, { $literal: 'billing' }] }] } });
    await screenshot(page, 'spans-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'spans-dark');
    await page.goBack();
    await page.getByTestId('agent-row').first().waitFor();
    await screenshot(page, 'agents-dark');
  }, 60_000);

  it('sorts agents on the server and keeps the numbers of /agents/query', async () => {
    const { page } = e;
    await page.emulateMedia({ colorScheme: 'light' });
    const ask = async (sort_by: unknown) =>
      (await (await fetch(`${e.loupe.url}/agents/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ project_id: PROJECT, include_costs: true, limit: 1000, sort_by }) })).json()) as { agents: { agent_name: string; span_count: number; invocation_count: number }[] };
    await page.goto(`${e.loupe.url}/#/p/${encodeURIComponent(PROJECT)}/agents`);
    const rows = page.getByTestId('agent-row');
    const read = () => rows.evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
    const bySpans = await ask([{ field: 'span_count', direction: 'asc' }]);
    await page.getByRole('columnheader', { name: 'Spans', exact: true }).click(); // desc first
    await page.getByRole('columnheader', { name: 'Spans', exact: true }).and(page.locator('[aria-sort=descending]')).waitFor();
    await page.getByRole('columnheader', { name: 'Spans', exact: true }).and(page.locator('[aria-sort=descending]')).click();
    await page.getByRole('columnheader', { name: 'Spans', exact: true }).and(page.locator('[aria-sort=ascending]')).waitFor();
    await rows.first().filter({ hasText: bySpans.agents[0]!.agent_name }).waitFor();
    const shown = await read();
    expect(shown.map((r) => [r[0], Number(r[1]), Number(r[2])])).toEqual(bySpans.agents.map((a) => [a.agent_name, a.invocation_count, a.span_count]));
  }, 60_000);

  it('adds a custom attribute column and sorts spans by it on the server', async () => {
    const { page } = e;
    await page.goto(`${e.loupe.url}/#/p/${encodeURIComponent(PROJECT)}/spans`);
    const chooser = page.getByTestId('column-chooser');
    await chooser.locator('summary').click();
    await chooser.getByLabel('Attribute type').selectOption('custom_attrs_int');
    await chooser.getByTestId('custom-col-key').fill('app.retry_count');
    await chooser.getByRole('button', { name: 'Add' }).click();
    await chooser.locator('summary').click();
    const header = page.getByRole('columnheader', { name: 'app.retry_count (int)' });
    await header.click();
    await page.getByRole('columnheader', { name: 'app.retry_count (int)' }).and(page.locator('[aria-sort=descending]')).waitFor();
    const body = {
      project_id: PROJECT, include_costs: true, limit: 100, offset: 0,
      sort_by: [{ field: 'custom_attrs_int.app.retry_count', direction: 'desc' }],
      custom_attr_columns: [{ source: 'custom_attrs_int', key: 'app.retry_count' }],
    };
    const api = (await (await fetch(`${e.loupe.url}/agents/spans/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json()) as { spans: { span_id: string; custom_attrs_int: Record<string, number> }[] };
    const top = api.spans.slice(0, 7).map((s) => String(s.custom_attrs_int['app.retry_count'] ?? '–'));
    expect(top.slice(0, 2)).toEqual(['3', '2']);
    const col = await page.getByRole('columnheader').evaluateAll((ths) => ths.findIndex((th) => th.textContent?.startsWith('app.retry_count')));
    const rows = page.getByTestId('span-row');
    await rows.first().locator('td').nth(col).filter({ hasText: '3' }).waitFor();
    const shown = await rows.evaluateAll((trs, i) => trs.slice(0, 7).map((tr) => tr.querySelectorAll('td')[i]?.textContent ?? ''), col);
    expect(shown).toEqual(top);
  }, 60_000);

  it('keeps only the groups a group filter allows, as the API does', async () => {
    const { page } = e;
    await page.goto(`${e.loupe.url}/#/p/${encodeURIComponent(PROJECT)}/spans?mode=group`);
    const builder = page.getByTestId('group-builder');
    await builder.getByTestId('add-group-filter').click();
    const f = builder.getByTestId('group-filter');
    await f.getByLabel('Measure alias').fill('n');
    await f.getByLabel('Aggregation').selectOption('count');
    await f.getByLabel('Minimum').fill('20');
    await page.getByTestId('apply-group').click();
    const request = JSON.parse(await page.getByTestId('group-request').textContent() ?? '{}') as Record<string, unknown>;
    expect(request.group_filters).toEqual([{ measure: { alias: 'n', aggregation: 'count' }, min: 20 }]);
    const api = (await (await fetch(`${e.loupe.url}/agents/spans/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) })).json()) as { groups: { group_keys: { agent_name: string | null }; span_count: number }[]; total_count: number };
    expect(api.groups.every((g) => g.span_count >= 20)).toBe(true);
    await page.getByTestId('groups-total').filter({ hasText: `${api.total_count} groups` }).waitFor();
    const keys = await page.getByTestId('gk-agent_name').allTextContents();
    expect(keys).toEqual(api.groups.map((g) => g.group_keys.agent_name ?? '(none)'));
    expect(keys.length).toBeLessThan(4); // researcher (9 spans) is filtered out
  }, 60_000);
});
