/**
 * Trace compare (issue 12 item 5), at 1440×900 and 1024×700: two turns are picked from the chat
 * ("compare", then "compare" on another), the compare page shows both runs' totals as the chat view
 * gives them with B − A, and the steps aligned: the user's question with a word diff (removed words
 * on A's side, added ones on B's), the same tool on one line with its latency difference.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VIEWPORTS, openPage, startE2E, vpName, type E2E } from './fixture.js';
import { hash, screenshotBoth } from './helpers.js';

const DEMO = 'local/demo';

async function post<T>(e: E2E, p: string, body: unknown): Promise<T> {
  const r = await fetch(`${e.loupe.url}${p}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(r.status).toBe(200);
  return (await r.json()) as T;
}

interface Turn { trace_id: string; total_input_tokens: number; total_output_tokens: number; messages: { type: string; user_message: { text: string } | null; tool_call: { tool_name: string | null } | null }[] }

describe('compare', () => {
  let e: E2E;
  let a: { conv: string; turn: Turn };
  let b: { conv: string; turn: Turn };
  beforeAll(async () => {
    e = await startE2E({ demo: true });
    // Two single-agent demo conversations whose first turns ask about an order and call lookup_order.
    const list = await post<{ conversations: { conversation_id: string; turn_count: number; first_message: { text: string } | null }[] }>(e, '/app/conversations', { project_id: DEMO, limit: 50 });
    const picks: { conv: string; turn: Turn }[] = [];
    for (const c of list.conversations) {
      const chat = await post<{ turns: Turn[] }>(e, '/agents/conversations/chat', { project_id: DEMO, conversation_id: c.conversation_id, limit: 50 });
      const first = chat.turns[0]!;
      if (first.messages.some((m) => m.tool_call?.tool_name === 'lookup_order') && first.messages.filter((m) => m.type === 'agent_start').length === 1) picks.push({ conv: c.conversation_id, turn: first });
      if (picks.length === 2) break;
    }
    expect(picks).toHaveLength(2);
    [a, b] = picks as [typeof a, typeof b];
  }, 180_000);
  afterAll(async () => e?.close());

  for (const vp of VIEWPORTS) {
    it(`picks two turns and shows them side by side with a text diff, tools, tokens, cost and latency (${vpName(vp)})`, async () => {
      const page = await openPage(e, vp);
      // Pick A in its conversation (its first turn), then B in the other.
      await page.goto(`${e.loupe.url}/${hash(DEMO, 'conversations', a.conv)}`);
      await page.locator(`[data-testid=turn][data-trace="${a.turn.trace_id}"]`).getByTestId('compare-turn').click();
      await page.getByTestId('compare-pick-bar').waitFor();
      await page.goto(`${e.loupe.url}/${hash(DEMO, 'conversations', b.conv)}`);
      await page.locator(`[data-testid=turn][data-trace="${b.turn.trace_id}"]`).getByTestId('compare-turn').click();
      await page.waitForURL(/\/compare\?a=/);
      expect(page.url()).toContain(`a=${a.turn.trace_id}`);
      expect(page.url()).toContain(`b=${b.turn.trace_id}`);
      await page.getByTestId('compare-row').first().waitFor();

      // Totals as the chat view counts them, with the difference.
      const tokens = await page.getByTestId('compare-total-input-tokens').locator('td').allInnerTexts();
      const fmt = (n: number) => (n >= 10_000 ? `${Math.round(n / 1000)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n));
      expect(tokens[0]).toBe(fmt(a.turn.total_input_tokens));
      expect(tokens[1]).toBe(fmt(b.turn.total_input_tokens));

      // Aligned steps: the questions differ word by word; the same tool lines up on one row.
      const user = page.locator('[data-testid=compare-row]').filter({ has: page.locator('.compare-cell.user_message') }).first();
      expect(await user.getAttribute('data-kind')).toBe('changed');
      expect(await user.locator('[data-testid=compare-cell-a] del').count()).toBeGreaterThan(0);
      expect(await user.locator('[data-testid=compare-cell-b] ins').count()).toBeGreaterThan(0);
      const aText = a.turn.messages.find((m) => m.type === 'user_message')!.user_message!.text;
      expect((await user.getByTestId('compare-cell-a').locator('.compare-text').innerText()).trim()).toBe(aText);
      const tool = page.locator('[data-testid=compare-row]').filter({ hasText: 'lookup_order' }).first();
      expect(await tool.getByTestId('compare-cell-a').count()).toBe(1);
      expect(await tool.getByTestId('compare-cell-b').count()).toBe(1);
      expect(await tool.locator('.compare-lat').innerText()).toMatch(/[+−]\d|=/);
      expect(await page.getByTestId('compare-changed').innerText()).toMatch(/\d+ of \d+ steps differ/);
      // Readable at this width: each side gets a real column.
      const cellW = await user.getByTestId('compare-cell-a').evaluate((el) => el.getBoundingClientRect().width);
      expect(cellW).toBeGreaterThan(300);
      if (vp === VIEWPORTS[0]) await screenshotBoth(page, 'compare');
      await page.context().close();
    });
  }
});
