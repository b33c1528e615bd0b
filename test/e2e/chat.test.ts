/**
 * The chat reads like the conversation (issue 12 item 1), at 1440×900 and 1024×700, on a real server
 * and Chromium:
 * - a real framework trace (the Vercel AI SDK sample) draws each tool call once, as a compact
 *   `lookup_order(order_id="A-1187")` line that one click unfolds to arguments and result (open one level);
 * - markdown is rendered (a table, a highlighted code block); a long message is folded with "Show all";
 * - a failed tool shows its error type and message, and so does its failed turn;
 * - the demo's multi-agent conversation draws an agent card only when the agent changed;
 * - the header (name, totals, feedback) stays on screen while the turns scroll;
 * - thumbs show their state; feedback can be changed, annotated and taken back (checked through
 *   feedback.query).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VIEWPORTS, openPage, startE2E, vpName, type E2E } from './fixture.js';
import { hash, screenshotBoth } from './helpers.js';
import { samplesDir } from '../helpers/paths.js';
import type { BrowserDocument } from './browser-globals.js';

// Browser globals inside page.evaluate callbacks (see browser-globals.ts).
declare const document: BrowserDocument;

const P = 'chat/e2e';
const DEMO = 'local/demo';
const CONV = 'conv-md';
const TRACE = 'c'.repeat(31) + '7';
const LONG = Array.from({ length: 60 }, (_, i) => `Line ${i + 1} of a very long answer about order A-1187.`).join('\n');
const MARKDOWN = 'Here is the plan:\n\n| step | tool |\n|---|---|\n| 1 | lookup_order |\n| 2 | refund |\n\n```python\nprint("refund A-1187")\n```\n\nDone **now**.';

async function post<T>(e: E2E, p: string, body: unknown, headers: Record<string, string> = {}): Promise<T> {
  const r = await fetch(`${e.loupe.url}${p}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  expect(r.status, `${p}: ${r.status}`).toBe(200);
  return (await r.json()) as T;
}

const attr = (key: string, v: string) => ({ key, value: { stringValue: v } });
const msgs = (role: string, text: string) => JSON.stringify([{ role, parts: [{ type: 'text', content: text }] }]);

/** One turn: a question, a markdown answer, a tool that fails, and a long answer. */
function crafted() {
  const t0 = BigInt(Date.now() - 60_000) * 1_000_000n;
  const at = (ms: number) => String(t0 + BigInt(ms) * 1_000_000n);
  const id = (n: number) => n.toString(16).padStart(16, '0');
  const span = (n: number, parent: number | null, name: string, start: number, end: number, attributes: unknown[], status: unknown = {}) => ({
    traceId: TRACE, spanId: id(n), ...(parent ? { parentSpanId: id(parent) } : {}), name, kind: 1, startTimeUnixNano: at(start), endTimeUnixNano: at(end), attributes, status,
  });
  const conv = attr('gen_ai.conversation.id', CONV);
  return {
    resourceSpans: [{ resource: { attributes: [attr('service.name', 'chat-e2e')] }, scopeSpans: [{ scope: { name: 'e2e' }, spans: [
      span(1, null, 'invoke_agent support', 0, 5000, [conv, attr('gen_ai.operation.name', 'invoke_agent'), attr('gen_ai.agent.name', 'support')], { code: 2, message: 'refund failed' }),
      span(2, 1, 'chat gpt-4o-mini', 100, 900, [conv, attr('gen_ai.operation.name', 'chat'), attr('gen_ai.request.model', 'gpt-4o-mini'),
        attr('gen_ai.input.messages', msgs('user', 'Plan the refund of A-1187, please.')), attr('gen_ai.output.messages', msgs('assistant', MARKDOWN))]),
      span(3, 1, 'execute_tool refund', 1000, 1400, [conv, attr('gen_ai.operation.name', 'execute_tool'), attr('gen_ai.tool.name', 'refund'),
        attr('gen_ai.tool.call.arguments', '{"order_id":"A-1187","amount":249}'), attr('error.type', 'PaymentGatewayTimeout')], { code: 2, message: 'gateway did not answer in 30 s' }),
      span(4, 1, 'chat gpt-4o-mini', 1500, 2500, [conv, attr('gen_ai.operation.name', 'chat'), attr('gen_ai.request.model', 'gpt-4o-mini'),
        attr('gen_ai.output.messages', msgs('assistant', LONG))]),
    ] }] }],
  };
}

describe('chat', () => {
  let e: E2E;
  let vercelTrace: string;
  beforeAll(async () => {
    e = await startE2E({ demo: true });
    await post(e, '/v1/traces', crafted(), { 'x-project-id': P });
    await post(e, '/import', { content: readFileSync(path.join(samplesDir, 'vercel-ai-sdk.in.json'), 'utf8'), file_name: 'vercel.json', project_id: P });
    const spans = await post<{ spans: { trace_id: string }[] }>(e, '/agents/spans/query', { project_id: P, query: { $expr: { $eq: [{ $getField: 'tool_name' }, { $literal: 'lookup_order' }] } } });
    vercelTrace = spans.spans[0]!.trace_id;
  }, 180_000);
  afterAll(async () => e?.close());

  for (const vp of VIEWPORTS) {
    it(`a real framework trace draws each tool call once, unfolding to arguments and result in one click (${vpName(vp)})`, async () => {
      const page = await openPage(e, vp);
      await page.goto(`${e.loupe.url}/${hash(P, 'traces', vercelTrace)}?tab=chat`);
      const tool = page.getByTestId('msg-tool');
      await tool.waitFor();
      // Each call once: one tool line, and no bubble repeats it as JSON.
      expect(await tool.count()).toBe(1);
      expect(await page.getByTestId('tool-request').count()).toBe(0);
      expect(await page.getByTestId('trace-chat').innerText()).not.toMatch(/"arguments"|"name"\s*:\s*"lookup_order"/);
      expect(await tool.getByTestId('tool-sig').innerText()).toContain('lookup_order(order_id="A-1187")');
      // One click: arguments and result, the result's first level open (its keys readable at once).
      await tool.getByTestId('tool-sig').click();
      const body = tool.getByTestId('tool-body');
      await body.waitFor();
      const text = await body.innerText();
      expect(text.toLowerCase()).toContain('arguments');
      expect(text).toContain('"order_id"');
      expect(text.toLowerCase()).toContain('result');
      expect(text).toMatch(/"status"/);
      if (vp === VIEWPORTS[0]) await screenshotBoth(page, 'chat-tool-call');
      await page.context().close();
    });

    it(`markdown, folded long messages, and errors with their type and message (${vpName(vp)})`, async () => {
      const page = await openPage(e, vp);
      await page.goto(`${e.loupe.url}/${hash(P, 'conversations', CONV)}`);
      await page.getByTestId('turn').waitFor();
      const md = page.locator('.md').filter({ hasText: 'Here is the plan' });
      await md.locator('table').waitFor();
      expect(await md.locator('th').allInnerTexts()).toEqual(['step', 'tool']);
      expect(await md.locator('td').first().innerText()).toBe('1');
      expect(await md.locator('strong').innerText()).toBe('now');
      // The code block is highlighted (python grammar): the string is its own token.
      const code = md.locator('pre code.language-python');
      await code.waitFor();
      expect(await code.locator('.hljs-string').innerText()).toBe('"refund A-1187"');
      expect(await page.locator('.msg').filter({ hasText: '| step |' }).count()).toBe(0);

      // The long answer is folded: Show all unfolds it.
      const long = page.locator('.msg').filter({ hasText: 'Line 1 of a very long answer' });
      const folded = (await long.locator('.collapsible-body').boundingBox())!.height;
      expect(folded).toBeLessThan(420);
      await long.getByTestId('show-all').click();
      await page.waitForFunction((h) => (document.querySelector('.collapsible.open .collapsible-body')?.getBoundingClientRect().height ?? 0) > h * 2, folded);
      expect(await long.getByTestId('show-all').innerText()).toBe('Show less');

      // The failed tool says why, and so does the failed turn.
      const failedTool = page.locator('[data-testid=msg-tool][data-tool=refund]');
      expect(await failedTool.getByTestId('error-line').innerText()).toBe('PaymentGatewayTimeout: gateway did not answer in 30 s');
      expect(await page.locator('.turn > [data-testid=error-line]').innerText()).toContain('PaymentGatewayTimeout');
      if (vp === VIEWPORTS[0]) {
        await md.scrollIntoViewIfNeeded();
        await screenshotBoth(page, 'chat-markdown');
      }
      await page.context().close();
    });
  }

  it('draws an agent card only when the agent changed, keeps the header on screen, and edits and removes feedback', async () => {
    const page = await openPage(e, VIEWPORTS[1]);
    const conv = await post<{ turns: { trace_id: string; messages: { type: string; agent_name: string | null }[] }[]; total_turns: number }>(e, '/agents/conversations/chat', { project_id: DEMO, conversation_id: 'conv-order-a1187', limit: 10 });
    const starts = conv.turns.flatMap((t) => t.messages.filter((m) => m.type === 'agent_start'));
    const agents = new Set(starts.map((m) => m.agent_name));
    expect(starts.length).toBeGreaterThan(agents.size); // the demo repeats the triage agent's card every turn
    await page.goto(`${e.loupe.url}/${hash(DEMO, 'conversations', 'conv-order-a1187')}`);
    await page.getByTestId('turn').first().waitFor();
    expect(await page.getByTestId('turn').count()).toBe(conv.total_turns);
    const cards = await page.getByTestId('msg-agent-start').count();
    expect(cards).toBeGreaterThanOrEqual(agents.size);
    expect(cards).toBeLessThan(starts.length);

    // Sticky header: after scrolling to the end, the name and totals are still at the top.
    const header = page.getByTestId('chat-header');
    expect(await page.getByTestId('chat-title').innerText()).toBe('Where is order A-1187?');
    await page.locator('.page.chat-page').evaluate((el) => { el.scrollTop = el.scrollHeight; });
    await page.waitForTimeout(100);
    const box = (await header.boundingBox())!;
    expect(box.y).toBeLessThan(40);
    expect(await header.getByTestId('turn-count').innerText()).toBe(`${conv.total_turns} turns`);
    await screenshotBoth(page, 'chat-sticky');

    // Feedback on the last turn: up, then down with a note, then taken back.
    const last = conv.turns[conv.turns.length - 1]!.trace_id;
    const ref = `svc:///${DEMO}/trace/${last}`;
    const mine = async () => (await post<{ feedback: { id: string; creator: string | null; payload: Record<string, unknown> }[] }>(e, '/feedback/query', { project_id: DEMO, svc_ref: ref })).feedback.filter((f) => f.creator === 'loupe-ui');
    const control = page.locator(`[data-testid=turn][data-trace="${last}"] .turn-head`).getByTestId('feedback-control');
    await control.getByRole('button', { name: 'Thumbs up for this turn' }).click();
    await control.getByRole('button', { name: 'Close' }).click();
    await page.waitForFunction((t) => document.querySelector(`[data-trace="${t}"] .turn-head [data-testid=feedback-control]`)?.getAttribute('data-state') === 'up', last);
    await expect.poll(async () => (await mine()).map((f) => f.payload.value)).toEqual(['up']);
    const first = (await mine())[0]!.id;
    expect(await control.getByRole('button', { name: 'Thumbs up for this turn' }).getAttribute('aria-pressed')).toBe('true');

    await control.getByRole('button', { name: 'Thumbs down for this turn' }).click();
    await expect.poll(async () => (await mine()).map((f) => [f.id, f.payload.value])).toEqual([[first, 'down']]);
    await control.getByTestId('feedback-note-button').click();
    await control.getByLabel('Feedback note').fill('the refund took two tries');
    await control.getByRole('button', { name: 'Save' }).click();
    await expect.poll(async () => (await mine()).map((f) => f.payload)).toEqual([{ value: 'down', note: 'the refund took two tries' }]);
    await control.getByTestId('feedback-note-button').filter({ hasText: 'the refund took two tries' }).waitFor();

    // Pressing the stored thumb again takes it back.
    await control.getByRole('button', { name: 'Thumbs down for this turn' }).click();
    await expect.poll(async () => (await mine()).length).toBe(0);
    await page.waitForFunction((t) => document.querySelector(`[data-trace="${t}"] .turn-head [data-testid=feedback-control]`)?.getAttribute('data-state') === 'none', last);
    await page.context().close();
  }, 90_000);
});
