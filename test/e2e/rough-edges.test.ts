/**
 * Issue 22 item 11, on a real server and Chromium at 1440×900 and 1024×700 (one browser for the file):
 * - a tool's result is whole once its line is opened: an MCP `content: [{type:'text'}]` result shows its
 *   texts (a JSON text open), a nested dict every level, with no second fold to click;
 * - Threads in a project that has spans but no conversations does not offer "Load demo data" and says
 *   how many spans the project holds;
 * - the project switcher shows its whole (long) name inside the sidebar;
 * - the Agents filter matches any part of a name, in any case;
 * - a file that holds no spans ends as a warning ("no spans found"), not a green "done".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VIEWPORTS, openPage, startE2E, vpName, type E2E } from './fixture.js';
import { consoleErrors, dropFiles, hash, screenshotBoth } from './helpers.js';
import type { BrowserDocument } from './browser-globals.js';

declare const document: BrowserDocument;

const LONG = 'acme-research-lab/customer-support-agents/production-eu';
const TOOLS = 'tools/e2e';
const CONV = 'conv-tools';

const attr = (key: string, v: string) => ({ key, value: { stringValue: v } });
const MCP_RESULT = JSON.stringify({ content: [{ type: 'text', text: JSON.stringify({ hits: [{ title: 'Refund policy', score: 0.93 }] }) }, { type: 'text', text: 'two more pages of hits' }], isError: false });
const DICT_RESULT = JSON.stringify({ order: { id: 'A-1187', lines: [{ sku: 'SKU-DEEP-9', qty: 2 }] } });

function traces(withConversation: boolean, agents: string[]) {
  const t0 = BigInt(Date.now() - 60_000) * 1_000_000n;
  const at = (ms: number) => String(t0 + BigInt(ms) * 1_000_000n);
  const id = (n: number) => n.toString(16).padStart(16, '0');
  const conv = withConversation ? [attr('gen_ai.conversation.id', CONV)] : [];
  const spans = agents.map((a, i) => ({
    traceId: `${withConversation ? 'a' : 'b'}${i}`.padStart(32, '0'), spanId: id(1), name: `invoke_agent ${a}`, kind: 1, startTimeUnixNano: at(i * 100), endTimeUnixNano: at(i * 100 + 50),
    attributes: [...conv, attr('gen_ai.operation.name', 'invoke_agent'), attr('gen_ai.agent.name', a)],
  }));
  if (withConversation) {
    const tool = (n: number, name: string, result: string) => ({
      traceId: '0'.repeat(31) + 'a', spanId: id(n), parentSpanId: id(1), name: `execute_tool ${name}`, kind: 1, startTimeUnixNano: at(n * 10), endTimeUnixNano: at(n * 10 + 5),
      attributes: [...conv, attr('gen_ai.operation.name', 'execute_tool'), attr('gen_ai.tool.name', name), attr('gen_ai.tool.call.arguments', '{"q":"refund"}'), attr('gen_ai.tool.call.result', result)],
    });
    spans.push(tool(2, 'search_docs', MCP_RESULT), tool(3, 'lookup_order', DICT_RESULT));
  }
  return { resourceSpans: [{ resource: { attributes: [attr('service.name', 'edges-e2e')] }, scopeSpans: [{ scope: { name: 'e2e' }, spans }] }] };
}

describe('rough edges (issue 22 item 11)', () => {
  let e: E2E;
  beforeAll(async () => {
    e = await startE2E();
    for (const [project, body] of [[LONG, traces(false, ['ResearchPlanner', 'web-research-helper', 'Writer'])], [TOOLS, traces(true, ['support'])]] as const) {
      const r = await fetch(`${e.loupe.url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-project-id': project }, body: JSON.stringify(body) });
      expect(r.status).toBe(200);
    }
  }, 180_000);
  afterAll(async () => e?.close());

  for (const vp of VIEWPORTS) {
    it(`tool results open once, no demo offer in a project with data, whole project name, partial agent names, empty file warned (${vpName(vp)})`, async () => {
      const page = await openPage(e, vp);
      const errors = consoleErrors(page);

      // Tool results: one click on the line shows everything.
      await page.goto(`${e.loupe.url}/${hash(TOOLS, 'conversations', CONV)}`);
      for (const [tool, texts] of [['search_docs', ['"Refund policy"', 'two more pages of hits']], ['lookup_order', ['"SKU-DEEP-9"', '"A-1187"']]] as const) {
        const line = page.locator(`[data-testid=msg-tool][data-tool=${tool}]`);
        await line.getByTestId('tool-sig').click();
        const body = line.getByTestId('tool-body');
        await body.waitFor();
        for (const t of texts) expect(await body.innerText()).toContain(t);
        expect(await body.locator('.j-collapsed').count()).toBe(0);
      }
      expect(await page.getByTestId('tool-result-mcp').count()).toBe(1);
      if (vp === VIEWPORTS[0]) await screenshotBoth(page, 'tool-results-open');

      // Threads in a project with spans but no conversation: no demo offer, the span count said.
      await page.goto(`${e.loupe.url}/${hash(LONG, 'threads')}`);
      await page.getByTestId('empty-has-data').filter({ hasText: '3 spans' }).waitFor();
      expect(await page.getByRole('button', { name: 'Load demo data' }).count()).toBe(0);
      // The switcher's label is the whole name, inside the sidebar.
      const label = page.getByTestId('project-label');
      expect(await label.innerText()).toBe(LONG);
      const fit = await page.evaluate(() => {
        const el = document.querySelector('[data-testid=project-label]')!;
        const side = document.querySelector('.sidebar')!.getBoundingClientRect();
        const r = el.getBoundingClientRect();
        return { inside: r.left >= side.left && r.left + r.width <= side.left + side.width, scroll: el.scrollWidth - el.clientWidth };
      });
      expect(fit).toEqual({ inside: true, scroll: 0 });
      if (vp === VIEWPORTS[1]) await screenshotBoth(page, 'threads-project-with-data');

      // Agents: a part of a name, any case.
      await page.goto(`${e.loupe.url}/${hash(LONG, 'agents')}`);
      await page.getByTestId('agents-total').filter({ hasText: '3 agents' }).waitFor();
      await page.getByLabel('Filter by agent name').fill('RESEARCH');
      await page.getByTestId('agents-total').filter({ hasText: '2 of 3 agents' }).waitFor();
      const names = await page.getByTestId('agent-row').evaluateAll((trs) => trs.map((tr) => tr.querySelector('td')?.textContent ?? ''));
      expect(names.sort()).toEqual(['ResearchPlanner', 'web-research-helper']);

      // A file with no spans: a warning, not a green done.
      await dropFiles(page, [{ name: `nothing-${vp.width}.json`, content: '{"resourceSpans":[]}' }]);
      await page.getByTestId('import-confirm').click();
      const file = page.locator('[data-testid=import-file][data-state=done]');
      await file.waitFor({ timeout: 60_000 });
      expect(await file.getAttribute('data-warning')).toBe('true');
      expect(await page.getByTestId('import-warning').innerText()).toContain('no spans found');
      expect(await file.locator('.progress').getAttribute('class')).toContain('warning');
      expect(await page.locator('.import-panel strong').innerText()).toContain('1 file without spans');
      expect(errors).toEqual([]);
      await page.context().close();
    }, 120_000);
  }
});
