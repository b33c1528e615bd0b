/**
 * Threads page end to end: the demo conversations as threads, each row's turn count and p50/p99
 * turn durations equal to POST /threads/stream_query (read as JSON lines), server-side sorting by
 * turn count, and opening a thread shows its conversation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot, startE2E, type E2E } from './fixture.js';

const PROJECT = 'local/demo';
interface Thread { thread_id: string; turn_count: number; p50_turn_duration_ms: number | null; p99_turn_duration_ms: number | null }

async function threads(url: string, body: unknown): Promise<Thread[]> {
  const res = await fetch(`${url}/threads/stream_query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBe(200);
  return (await res.text()).split('\n').filter(Boolean).map((l) => JSON.parse(l) as Thread);
}

describe('threads page', () => {
  let e: E2E;
  beforeAll(async () => {
    e = await startE2E({ demo: true });
  }, 180_000);
  afterAll(async () => e?.close());

  it('shows the threads of the API, sorts on the server and opens a conversation', async () => {
    const { page } = e;
    const expected = await threads(e.loupe.url, { project_id: PROJECT, limit: 200, sort_by: [{ field: 'last_updated', direction: 'desc' }] });
    expect(expected.length).toBeGreaterThan(3);
    await page.goto(`${e.loupe.url}/#/p/${encodeURIComponent(PROJECT)}/threads`);
    await page.getByTestId('threads-count').filter({ hasText: `${expected.length} threads` }).waitFor();
    const rows = page.getByTestId('thread-row');
    const read = () => rows.evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
    let shown = await read();
    expect(shown.map((r) => r[0])).toEqual(expected.map((t) => t.thread_id));
    expect(shown.map((r) => Number(r[1]))).toEqual(expected.map((t) => t.turn_count));
    // p50/p99 as shown (seconds with 2 decimals below 10 s, else 1; ms below 1 s) equal the API's.
    const dur = (ms: number | null) => (ms === null ? '–' : ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`);
    expect(shown.map((r) => [r[4], r[5]])).toEqual(expected.map((t) => [dur(t.p50_turn_duration_ms), dur(t.p99_turn_duration_ms)]));
    await screenshot(page, 'threads-light');

    // Sort by turn count (a header click asks the server; ties keep the server's order).
    const byTurns = await threads(e.loupe.url, { project_id: PROJECT, limit: 200, sort_by: [{ field: 'turn_count', direction: 'desc' }] });
    await page.getByRole('columnheader', { name: 'Turns' }).click();
    await page.getByRole('columnheader', { name: /Turns/ }).and(page.locator('[aria-sort=descending]')).waitFor();
    await rows.first().filter({ hasText: byTurns[0]!.thread_id }).waitFor();
    shown = await read();
    expect(shown.map((r) => r[0])).toEqual(byTurns.map((t) => t.thread_id));
    const top = byTurns[0]!;
    expect(top.turn_count).toBeGreaterThanOrEqual(6);
    expect(shown[0]![4]).not.toBe('–');
    expect(top.p50_turn_duration_ms).not.toBeNull();

    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'threads-dark');
    await rows.first().click();
    await page.waitForURL(new RegExp(`/conversations/${top.thread_id}`));
  }, 90_000);
});
