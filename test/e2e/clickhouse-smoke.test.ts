/**
 * The UI on a team's ClickHouse (issue 9): `loupe serve --store clickhouse://…` spawned for real on
 * the run's private ClickHouse (test/helpers/clickhouse.ts; a missing clickhouse-server or Chromium
 * fails this file), the demo loaded through the UI's operation, then Conversations, a chat, Agents,
 * the spans explorer grouped by agent and Settings, each checked against what the store answers over
 * the API and against the demo's own words.
 */
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureRendererBuilt, releaseBrowser, sharedBrowser, loadDemo, mkdtempSync, screenshot, signedIn } from './fixture.js';
import { hash } from './helpers.js';
import { exited, spawnServe } from '../helpers/spawn-loupe.js';
import { freshClickHouseStore } from '../helpers/clickhouse.js';
import { TEST_USER } from '../helpers/clickhouse-server.js';

const DEMO = 'local/demo';

describe('the UI on ClickHouse', () => {
  let child: ChildProcess;
  let url: string;
  let storeUrl: string;
  let browser: Browser;
  let page: Page;
  const post = async (p: string, body: unknown) => {
    const r = await fetch(`${url}${p}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(r.status, p).toBe(200);
    return r.json() as Promise<any>;
  };

  beforeAll(async () => {
    await ensureRendererBuilt();
    const store = await freshClickHouseStore('e2e');
    storeUrl = store.url;
    const dataDir = mkdtempSync(path.join(tmpdir(), 'loupe-e2e-ch-'));
    const served = await spawnServe(['--data-dir', dataDir, '--port', '0', '--store', store.url], { LOUPE_STORE: '' });
    child = served.child;
    url = served.url;
    expect(served.stderr()).toContain('spans in clickhouse://loupe:***@');
    await loadDemo(url);
    browser = await sharedBrowser();
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, colorScheme: 'light' });
    await signedIn(context, fs.readFileSync(path.join(dataDir, 'training.key'), 'utf8').trim());
    page = await context.newPage();
  }, 180_000);
  afterAll(async () => {
    await releaseBrowser(browser);
    if (child) {
      child.kill('SIGTERM');
      await exited(child);
    }
  });

  it('lists the conversations the store holds and opens one as a chat', async () => {
    const api = await post('/app/conversations', { project_id: DEMO, limit: 100 });
    expect(api.total_count).toBe(12);
    await page.goto(`${url}/${hash(DEMO, 'conversations')}`);
    const rows = page.getByTestId('conversation-row');
    await rows.nth(api.total_count - 1).waitFor();
    expect(await rows.count()).toBe(api.total_count);
    const order = rows.filter({ hasText: 'Where is order A-1187?' }).first();
    await order.click();
    await page.waitForURL(/\/conversations\/[^/]+$/);
    await page.getByTestId('msg-user').filter({ hasText: 'Where is order A-1187?' }).first().waitFor();
    await page.getByTestId('msg-assistant').filter({ hasText: 'on its way with UPS' }).first().waitFor();
    expect(await page.locator('[data-testid=msg-tool][data-tool=lookup_order]').count()).toBeGreaterThan(0);
    await screenshot(page, 'clickhouse-chat');
  });

  it('shows the agents with the counts the store answers', async () => {
    const api = await post('/agents/query', { project_id: DEMO });
    const names = (api.agents as { agent_name: string }[]).map((a) => a.agent_name);
    expect(names).toEqual(expect.arrayContaining(['triage', 'billing', 'researcher']));
    await page.goto(`${url}/${hash(DEMO, 'agents')}`);
    await page.getByTestId('agents-total').filter({ hasText: `${api.total_count} agents` }).waitFor();
    const rows = page.getByTestId('agent-row');
    await rows.nth(names.length - 1).waitFor();
    const texts = await rows.allInnerTexts();
    for (const n of names) expect(texts.some((t) => t.includes(n)), n).toBe(true);
  });

  it('groups spans in the spans explorer, by agent and then by model, the groups equal to the API', async () => {
    const groups = async (key: string) =>
      (await post('/agents/spans/query', { project_id: DEMO, group_by: [{ source: 'field', key, alias: key }], measures: [{ alias: 'spans', aggregation: 'count' }], limit: 1000 }))
        .groups.map((g: { group_keys: Record<string, string | null> }) => g.group_keys[key] ?? '(none)');
    await page.goto(`${url}/${hash(DEMO, 'spans')}?mode=group`);
    const builder = page.getByTestId('group-builder');
    await builder.waitFor();
    // The explorer opens grouped by agent.
    const byAgent = await groups('agent_name');
    expect(byAgent).toEqual(expect.arrayContaining(['triage', 'billing', 'researcher']));
    await page.getByTestId('groups-total').filter({ hasText: `${byAgent.length} groups` }).waitFor();
    expect((await page.getByTestId('gk-agent_name').allInnerTexts()).sort()).toEqual([...byAgent].sort());
    // Grouped by the request model instead, built in the UI.
    const byModel = await groups('request_model');
    expect(byModel).toContain('gpt-4o-mini');
    await builder.getByTestId('group-key-input').first().fill('request_model');
    await page.getByTestId('apply-group').click();
    // The previous answer is never shown under the new header while the new one loads (GroupView
    // `fits`): right after Apply the model column is empty or already right, never "(none)" × 4.
    const early = (await page.getByTestId('gk-request_model').allInnerTexts()).sort();
    expect([[], [...byModel].sort()]).toContainEqual(early);
    await page.getByTestId('gk-request_model').filter({ hasText: 'gpt-4o-mini' }).waitFor();
    await page.getByTestId('groups-total').filter({ hasText: `${byModel.length} groups` }).waitFor();
    expect((await page.getByTestId('gk-request_model').allInnerTexts()).sort()).toEqual([...byModel].sort());
    expect(await page.getByTestId('group-error').count()).toBe(0);
    await screenshot(page, 'clickhouse-group-by');
  });

  it('Settings names the ClickHouse store with the password masked, and saves the next one checked and masked', async () => {
    await page.goto(`${url}/${hash(DEMO, 'settings')}`);
    await page.getByTestId('trace-store').filter({ hasText: 'ClickHouse clickhouse://loupe:***@127.0.0.1:' }).waitFor();
    const text = await page.getByTestId('settings-page').innerText();
    expect(text).not.toContain(TEST_USER.password);
    expect(text).not.toContain(encodeURIComponent(TEST_USER.password));
    await screenshot(page, 'clickhouse-settings');
    // Saving the store of the next start: a URL that is not one is refused where it was typed, and a
    // saved one is shown masked.
    const input = page.getByLabel('Store URL');
    await input.fill('mysql://root:hunter2@db/x');
    await page.getByTestId('settings-page').getByRole('button', { name: 'Save' }).nth(1).click();
    await page.getByTestId('store-error').filter({ hasText: 'expected clickhouse://user:password@host:8123/database' }).waitFor();
    await input.fill(storeUrl);
    await page.getByTestId('settings-page').getByRole('button', { name: 'Save' }).nth(1).click();
    await page.getByTestId('store-next').filter({ hasText: /^clickhouse:\/\/loupe:\*\*\*@127\.0\.0\.1:\d+\/e2e_/ }).waitFor();
    const after = await page.getByTestId('settings-page').innerText();
    for (const secret of [TEST_USER.password, encodeURIComponent(TEST_USER.password), 'hunter2']) expect(after).not.toContain(secret);
  });
});
