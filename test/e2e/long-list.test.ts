/**
 * Lists of any length (issue 19 item 5): the Conversations page of a project with 3,210 rows is
 * scrolled to its last row in real Chromium. The page must read the list page by page through the
 * cursor each answer gives (never a `limit` past the contract's 1,000 — it used to ask up to
 * 10,000 and broke past 1,000 rows), and rows of traces without a conversation must arrive with
 * their page ("service: root operation"), not as one query per row.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Request } from 'playwright-core';
import { startE2E, type E2E } from './fixture.js';
import { hash } from './helpers.js';
import { openStores } from '../../src/main/store/index.js';
import { blank } from '../store/fixture.js';
import type { SpanRecord } from '../../src/main/domain/span.js';
import type { BrowserDocument } from './browser-globals.js';

declare const document: BrowserDocument;

const PROJECT = 'long/list';
const CONVERSATIONS = 3_150;
const TRACES = 60;
const T0 = 1_790_000_000_000_000_000n;
const pad = (n: number) => String(n).padStart(4, '0');

function spans(): SpanRecord[] {
  const out: SpanRecord[] = [];
  for (let i = 1; i <= CONVERSATIONS; i++) {
    const start = T0 + BigInt(i) * 1_000_000_000n;
    out.push(blank({
      project_id: PROJECT, trace_id: `conv-trace-${pad(i)}`, span_id: `conv-span-${pad(i)}`, conversation_id: `conv-${pad(i)}`, span_name: 'chat gpt-4o',
      operation_name: 'chat', agent_name: 'support', start_ns: start, end_ns: start + 500_000_000n, status_code: 'OK',
      input_messages: [{ role: 'user', content: `Question number ${i}`, finish_reason: '', parts: [{ type: 'text', content: `Question number ${i}` }] }],
    }));
  }
  // The newest rows: traces without a conversation, at the top of the list.
  for (let i = 1; i <= TRACES; i++) {
    const start = T0 + BigInt(CONVERSATIONS + i) * 1_000_000_000n;
    out.push(
      blank({ project_id: PROJECT, trace_id: `job-trace-${pad(i)}`, span_id: `job-root-${pad(i)}`, span_name: 'nightly export', service_name: 'batch', start_ns: start, end_ns: start + 1_500_000_000n }),
      blank({ project_id: PROJECT, trace_id: `job-trace-${pad(i)}`, span_id: `job-step-${pad(i)}`, parent_span_id: `job-root-${pad(i)}`, span_name: 'write rows', service_name: 'batch', start_ns: start + 1_000n, end_ns: start + 2_000n }),
    );
  }
  return out;
}

describe('a list of any length', () => {
  let e: E2E;
  beforeAll(async () => {
    e = await startE2E({
      // Written straight into the store before the server starts (faster than posting 3,270 spans).
      prepare: async (dataDir) => {
        const stores = await openStores(dataDir);
        await stores.traces.writeSpans(spans());
        await stores.close();
      },
    });
  }, 240_000);
  afterAll(async () => e?.close());

  it('scrolls the Conversations page past 3,000 rows, page by page through cursors, trace rows with their page', async () => {
    const page = e.page;
    const lists: Record<string, unknown>[] = [];
    let perRowQueries = 0;
    page.on('request', (r: Request) => {
      if (r.method() !== 'POST') return;
      if (r.url().endsWith('/app/conversations')) lists.push(JSON.parse(r.postData() ?? '{}') as Record<string, unknown>);
      if (r.url().endsWith('/agents/spans/query')) perRowQueries++;
    });
    await page.goto(`${e.loupe.url}/${hash(PROJECT, 'conversations')}`);
    const rows = page.getByTestId('conversation-row');
    await rows.first().waitFor();
    await page.getByTestId('conversation-count').filter({ hasText: '3,210 conversations' }).waitFor();
    // The newest rows are traces without a conversation, read as "service: root operation" with the page.
    await page.getByTestId('trace-row').first().filter({ hasText: 'batch: nightly export' }).waitFor();
    expect(await page.getByTestId('trace-row').first().textContent()).toContain('1.50 s');

    // Scroll to the end as a user does: to the bottom, then wait for what that brings — the next page,
    // appended below when the end nears, or, once every page is in, the oldest conversation on screen.
    // When a page arrives the list stays where the user scrolled to (it used to jump back to its first
    // row each time, so a user at the end lost the rows they had reached as the next page came in, and
    // the last row could enter the DOM and leave it at once), and no scroll beyond the user's is needed.
    const table = page.getByTestId('conversations-table');
    /**
     * After a scroll: 'shown' when the oldest row lies inside the table's visible box (a row the user
     * sees, not one in the DOM below it), 'grew' when a page came in below (the list is taller than
     * `h`), else false (still waiting).
     */
    const settled = (h: number) => {
      const el = document.querySelector('[data-testid=conversations-table]')!;
      const box = el.getBoundingClientRect();
      const row = [...document.querySelectorAll('[data-testid=conversation-row]')].find((r) => r.textContent?.includes('conv-0001'));
      const at = row?.getBoundingClientRect();
      if (at && at.height > 0 && at.top >= box.top && at.bottom <= box.bottom) return 'shown';
      return el.scrollHeight > h ? 'grew' : false;
    };
    let scrolls = 0;
    for (;;) {
      const height = await table.evaluate((el) => el.scrollHeight);
      await table.evaluate((el) => el.scrollTo(0, el.scrollHeight));
      scrolls++;
      const bottom = await table.evaluate((el) => el.scrollTop);
      if ((await (await page.waitForFunction(settled, height)).jsonValue()) === 'shown') break;
      // A page came in below: the user is still where they scrolled to.
      expect(await table.evaluate((el) => el.scrollTop)).toBeGreaterThanOrEqual(bottom - 1);
      expect(scrolls).toBeLessThan(40);
    }
    // One scroll per page of 200 rows, and the oldest row shown with no scroll beyond the one that
    // reached the end of the last page.
    expect(scrolls).toBe(Math.ceil(3_210 / 200));
    expect(await rows.last().textContent()).toContain('Question number 1conv-0001');
    // Every row is in the list (the virtual list's height is the rows' height).
    const height = await table.evaluate((el) => el.scrollHeight);
    expect(height).toBeGreaterThanOrEqual(3_210 * 56);
    expect(await page.evaluate(() => document.querySelectorAll('[data-testid=conversation-row]').length)).toBeLessThan(200); // virtualized

    // Page by page: never past the contract's cap, each later page from the previous page's cursor.
    expect(lists.length).toBeGreaterThanOrEqual(Math.ceil(3_210 / 200));
    for (const body of lists) {
      expect(body.limit as number).toBeLessThanOrEqual(1_000);
      expect(body.offset ?? 0).toBe(0);
    }
    expect(lists.filter((b) => typeof b.cursor === 'string').length).toBeGreaterThanOrEqual(Math.ceil(3_210 / 200) - 1);
    expect(perRowQueries).toBe(0);
  }, 240_000);
});
