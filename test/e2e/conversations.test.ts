/**
 * Conversations end to end, against a real `loupe serve` and Chromium:
 * - dropping two sample OTLP files (a real drop event) shows a progress bar and a summary per file,
 *   then the exchange in the list without a reload; opening it shows the user question, the assistant
 *   turn and the tool call in the order the chat API gives;
 * - the demo's multi-agent conversation shows agent_start cards, tool calls, a compaction marker and
 *   an error, and "Load earlier turns" pages in older turns;
 * - keyboard only: open a conversation from the list and move between turns;
 * - screenshots of the list and chat in light and dark.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startE2E, type E2E } from './fixture.js';
import { dropFiles, hash, screenshotBoth } from './helpers.js';
import type { BrowserDocument } from './browser-globals.js';
import { samplesDir } from '../helpers/paths.js';

// Browser globals inside page.evaluate callbacks (see browser-globals.ts).
declare const document: BrowserDocument;

const samples = samplesDir;
const readSample = (name: string) => ({ name, content: readFileSync(path.join(samples, name), 'utf8') });

async function api<T>(e: E2E, p: string, body: unknown): Promise<T> {
  const r = await fetch(`${e.loupe.url}${p}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(r.status).toBe(200);
  return (await r.json()) as T;
}

describe('conversations', () => {
  let e: E2E;
  beforeAll(async () => {
    e = await startE2E();
  }, 180_000);
  afterAll(async () => e?.close());

  it('imports dropped files with progress and a summary, then shows and opens the exchange', async () => {
    const { page } = e;
    await page.goto(`${e.loupe.url}/`);
    await page.getByTestId('empty-state').waitFor();
    await screenshotBoth(page, 'empty');

    await dropFiles(page, [readSample('vercel-ai-sdk.in.json'), readSample('raw.otel-openai-v2.in.json')]);
    // The drop asks where the files go; "as the files say" is the first choice.
    await page.getByTestId('import-dialog').waitFor();
    await page.getByTestId('import-confirm').click();
    const files = page.getByTestId('import-file');
    await files.first().waitFor();
    expect(await files.count()).toBe(2);
    await page.locator('[data-testid=import-file][data-state=done]').nth(1).waitFor();
    const summaries = await page.getByTestId('import-summary').allInnerTexts();
    expect(summaries[0]).toContain('3 spans');
    expect(summaries[1]).toContain('1 span');
    const widths = await page.getByTestId('import-progress').evaluateAll((els) => els.map((el) => (el).style.width));
    expect(widths).toEqual(['100%', '100%']);
    await screenshotBoth(page, 'import');

    // The list refreshes live (data.changed), no reload: both exchanges appear.
    const rows = page.getByTestId('conversation-row');
    await rows.nth(1).waitFor();
    expect(await rows.count()).toBe(2);
    expect(await rows.first().innerText()).toContain('Where is order A-1187?');
    await page.getByRole('button', { name: 'Close import summary' }).click();

    // Open the Vercel exchange (the one with a tool span) and compare the order with the API's.
    const spans = await api<{ spans: Array<{ trace_id: string; operation_name: string | null }> }>(e, '/agents/spans/query', { project_id: 'local/default', limit: 50 });
    const traceId = spans.spans.find((s) => s.operation_name === 'execute_tool')!.trace_id;
    const turn = await api<{ messages: Array<{ type: string }> }>(e, '/agents/traces/chat', { project_id: 'local/default', trace_id: traceId });
    // The Vercel exchange is the one whose agent is summarize_ticket.
    await rows.filter({ hasText: 'summarize_ticket' }).click();
    await page.waitForURL(new RegExp(`traces/${traceId}`));
    await page.getByTestId('msg-tool').waitFor();
    const shown = await page.locator('[data-testid=trace-chat] .vrow > [data-testid]').evaluateAll((els) => els.map((el) => el.getAttribute('data-testid')));
    // The API's order, with each tool call drawn once: the model call that only asked for the tool keeps
    // a slim step (model, tokens) instead of a bubble repeating the call as JSON.
    const expected = turn.messages.map((m) => ({ user_message: 'msg-user', assistant_message: 'msg-assistant', tool_call: 'msg-tool', agent_start: 'msg-agent-start', context_compacted: 'msg-compaction', agent_handoff: 'msg-handoff' })[m.type]);
    expect(shown.map((t) => (t === 'msg-assistant-step' ? 'msg-assistant' : t))).toEqual(expected);
    expect(shown[0]).toBe('msg-user');
    expect(await page.getByTestId('msg-user').innerText()).toContain('Where is order A-1187?');
    expect(await page.getByTestId('msg-tool').innerText()).toContain('lookup_order');
    expect(await page.getByTestId('trace-chat').innerText()).not.toContain('"arguments"');
  }, 90_000);

  it('shows the demo multi-agent conversation with agent starts, tools, compaction and an error, and pages earlier turns', async () => {
    const { page } = e;
    await page.goto(`${e.loupe.url}/${hash('local/default', 'conversations')}`);
    await page.getByTestId('conversations-page').waitFor();
    // Load the demo from an empty project's empty state; it goes to its own project and the app switches to it.
    await page.goto(`${e.loupe.url}/${hash('local/empty', 'conversations')}`);
    await page.getByRole('button', { name: 'Load demo data' }).click();
    await page.waitForURL(/local%2Fdemo\/conversations/);
    const rows = page.getByTestId('conversation-row');
    await rows.first().waitFor();

    // The demo conversation with the most turns is the multi-agent one; sort by turns and open it.
    const conv = await api<{ groups: Array<{ group_keys: { conversation_id: string }; metrics: { turns: number }; first_message: { text: string } }> }>(e, '/agents/spans/query', {
      project_id: 'local/demo',
      group_by: [{ key: 'conversation_id' }],
      measures: [{ alias: 'turns', aggregation: 'count_distinct', value: { key: 'trace_id' } }],
      query: { $expr: { $not: { $eq: [{ $getField: 'conversation_id' }, { $literal: null }] } } },
      limit: 1,
    });
    const top = conv.groups[0]!;
    await page.getByRole('columnheader', { name: 'Turns' }).click();
    await page.waitForFunction((text) => document.querySelector('[data-testid=conversation-row]')?.textContent?.includes(text), top.first_message.text);
    await screenshotBoth(page, 'conversations');
    await page.goto(`${e.loupe.url}/${hash('local/demo', 'conversations', top.group_keys.conversation_id)}`);
    await page.getByTestId('turn').first().waitFor();
    const total = top.metrics.turns;
    const loaded = await page.getByTestId('turn').count();
    expect(loaded).toBe(Math.min(total, 10));
    if (total > loaded) {
      await page.getByTestId('load-earlier').click();
      await page.waitForFunction((n) => document.querySelectorAll('[data-testid=turn]').length > n, loaded);
      expect(await page.getByTestId('turn').count()).toBe(Math.min(total, 20));
    }
    // Everything is on screen now (or after more pages): agent_start cards, tool calls, a compaction marker, an error.
    while (await page.getByTestId('load-earlier').count()) {
      const n = await page.getByTestId('turn').count();
      await page.getByTestId('load-earlier').click();
      await page.waitForFunction((k) => document.querySelectorAll('[data-testid=turn]').length > k, n);
    }
    expect(await page.getByTestId('turn').count()).toBe(total);
    expect(await page.getByTestId('msg-agent-start').count()).toBeGreaterThan(0);
    expect(await page.getByTestId('msg-tool').count()).toBeGreaterThan(0);
    expect(await page.getByTestId('msg-compaction').count()).toBeGreaterThan(0);
    expect(await page.locator('.turn.error, .card.error, .msg.error, .tool-line.error').count()).toBeGreaterThan(0);
    await page.getByTestId('msg-compaction').first().scrollIntoViewIfNeeded();
    await screenshotBoth(page, 'conversation');
  }, 120_000);
});
