/**
 * Text contrast, checked by axe-core's WCAG AA `color-contrast` rule (≥ 4.5:1 for normal text,
 * 3:1 for large) over every page of the app in both themes, with real data on screen (demo
 * conversations, a sample trace with its span panel open, the trace chat, compare, an import in
 * progress dialog, the empty and not-found states). A violation lists the element, its colours and
 * ratio, so a failure says what to fix.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startE2E, type E2E } from './fixture.js';
import { contrastViolations, dropFiles, hash } from './helpers.js';
import type { BrowserDocument } from './browser-globals.js';

// Browser globals inside page.evaluate callbacks (see browser-globals.ts).
declare const document: BrowserDocument;

const DEMO = 'local/demo';

describe('contrast (axe-core, WCAG AA) on every page, light and dark', () => {
  let e: E2E;
  let pages: Array<{ name: string; open(page: Page): Promise<void> }>;
  beforeAll(async () => {
    e = await startE2E({ demo: true });
    const post = async (p: string, body: unknown) => (await fetch(`${e.loupe.url}${p}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json();
    const conv = (await post('/agents/conversations/chat', { project_id: DEMO, conversation_id: 'conv-order-a1187', limit: 10 })) as { turns: { trace_id: string }[] };
    const tool = (await post('/agents/spans/query', { project_id: DEMO, query: { $expr: { $eq: [{ $getField: 'operation_name' }, { $literal: 'execute_tool' }] } }, limit: 1 })) as { spans: { trace_id: string; span_id: string }[] };
    const t = tool.spans[0]!;
    const [a, b] = [conv.turns[1]!.trace_id, conv.turns[2]!.trace_id];
    // Scores (issue 20), so their badges (good and bad, in the list, the chat and the tree) are checked too.
    await post('/app/scores/create', { project_id: DEMO, scores: [
      { target: 'turn', trace_id: a, name: 'helpful', value: 0.2, source: 'judge', scorer: 'j' },
      { target: 'turn', trace_id: b, name: 'helpful', value: 0.9, source: 'judge', scorer: 'j' },
      { target: 'span', trace_id: t.trace_id, span_id: t.span_id, name: 'no-loops', value: false, source: 'rule', scorer: 'r' },
      { target: 'turn', trace_id: t.trace_id, name: 'tone', label: 'polite', source: 'human', creator: 'ana' },
    ] });
    await post('/app/clusters/compute', { project_id: DEMO, wait: true });
    const go = (route: string, ready: string) => async (page: Page) => {
      await page.goto(`${e.loupe.url}/${route}`);
      await page.locator(ready).first().waitFor();
    };
    pages = [
      { name: 'conversations', open: go(hash(DEMO, 'conversations'), '[data-testid=conversation-row]') },
      { name: 'conversation', open: go(hash(DEMO, 'conversations', 'conv-order-a1187'), '[data-testid=turn] [data-testid=score-badge]') },
      { name: 'trace timeline with span panel', open: go(`${hash(DEMO, 'traces', t.trace_id)}?span=${t.span_id}`, '[data-testid=span-columns]') },
      { name: 'trace timeline with score badges', open: go(hash(DEMO, 'traces', t.trace_id), '[data-testid=wf-row] [data-testid=score-badge]') },
      { name: 'trace chat', open: go(`${hash(DEMO, 'traces', t.trace_id)}?tab=chat`, '[data-testid=msg-tool]') },
      { name: 'clusters', open: go(hash(DEMO, 'clusters'), '[data-testid=cluster]') },
      { name: 'agents', open: go(hash(DEMO, 'agents'), '.dt tbody tr.row') },
      { name: 'spans', open: go(hash(DEMO, 'spans'), '.dt tbody tr.row') },
      { name: 'threads', open: go(hash(DEMO, 'threads'), '.dt tbody tr.row') },
      { name: 'training', open: go(hash(DEMO, 'training'), '.page') },
      { name: 'settings', open: go(hash(DEMO, 'settings'), '[data-testid=data-dir]') },
      { name: 'compare', open: go(`${hash(DEMO, 'compare')}?a=${a}&b=${b}`, '[data-testid=compare-row]') },
      { name: 'not found', open: go(`${hash(DEMO, 'nowhere')}`, '[data-testid=not-found]') },
      { name: 'empty project', open: go(hash('local/empty', 'conversations'), '[data-testid=empty-state]') },
      {
        name: 'import dialog',
        open: async (page) => {
          await go(hash(DEMO, 'conversations'), '[data-testid=conversation-row]')(page);
          await dropFiles(page, [{ name: 'x.json', content: '{}' }]);
          await page.getByTestId('import-dialog').waitFor();
        },
      },
      {
        name: 'keyboard help',
        open: async (page) => {
          await go(hash(DEMO, 'conversations'), '[data-testid=conversation-row]')(page);
          await page.keyboard.press('?');
          await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
        },
      },
    ];
  }, 180_000);
  afterAll(async () => e?.close());

  for (const theme of ['light', 'dark'] as const) {
    it(`${theme}: no text below 4.5:1 on any page`, async () => {
      const context = await e.browser.newContext({ viewport: { width: 1440, height: 900 }, colorScheme: theme });
      const page = await context.newPage();
      const found: string[] = [];
      for (const p of pages) {
        await p.open(page);
        await page.waitForFunction((t) => document.documentElement.dataset.theme === t, theme);
        for (const v of await contrastViolations(page)) found.push(`${p.name}: ${v.target} — ${v.summary}`);
      }
      expect(found).toEqual([]);
      await context.close();
    }, 180_000);
  }
});
