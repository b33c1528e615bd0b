/**
 * Replay in real Chromium (issue 21), at 1440×900 and 1024×700, against a real server on port 0 and a
 * scripted OpenAI-compatible server on port 0 as the target: from a conversation, "Replay" opens the
 * form with it chosen (three more conversations added); the estimate shows before anything is sent;
 * the report page shows progress while a turn is held by the scripted model (Cancel offered), then
 * the outcomes, the scorer's totals and each pair side by side with the answers' line diff; one pair
 * opens in compare; the Loop page lists the replay as a round; a failure cluster's "Replay" opens the
 * form with the cluster chosen. The three views pass axe's WCAG AA
 * color-contrast rule in both themes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VIEWPORTS, openPage, startE2E, vpName, type E2E } from './fixture.js';
import { contrastViolations, hash, screenshotBoth } from './helpers.js';
import type { Page } from 'playwright-core';
import { startScriptedOpenAi, type ChatRequest, type ScriptedServer } from '../helpers/scripted-openai.js';
import { CONVS, KINDS, PROJECT, calcScript, storeCalc } from '../helpers/calc-replay.js';
import type { BrowserDocument } from './browser-globals.js';

declare const document: BrowserDocument;

const pick = (kind: string) => CONVS[KINDS.indexOf(kind)]!;

/** axe's WCAG AA color-contrast rule on the view as it is, in both themes (as contrast.test.ts does for the other pages). */
async function contrastBoth(page: Page, name: string): Promise<string[]> {
  const found: string[] = [];
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme });
    await page.waitForFunction((t) => document.documentElement.dataset.theme === t, theme);
    for (const v of await contrastViolations(page)) found.push(`${name} ${theme}: ${v.target} — ${v.summary}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return found;
}

describe('replay views', () => {
  let e: E2E;
  let model: ScriptedServer;
  /** While set, the scripted model holds its answers to the 'same' conversation until it resolves. */
  let gate: Promise<void> | null = null;

  beforeAll(async () => {
    model = await startScriptedOpenAi(async (req: ChatRequest) => {
      if (gate && req.messages.some((m) => m.role === 'user' && m.content?.startsWith('case:same'))) await gate;
      return calcScript(req);
    });
    e = await startE2E();
    await storeCalc({ url: e.loupe.url });
    const saved = await fetch(`${e.loupe.url}/app/scorers/save`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ project_id: PROJECT, scorer: { scorer_id: 'says-answer', rule: { kind: 'answer_matches', pattern: '^The answer is \\d+\\.$' } } }),
    });
    expect(saved.status).toBe(200);
    // Low `quality` on the 10 'worse' conversations: a low-score failure cluster.
    const scores = CONVS.filter((_, i) => KINDS[i] === 'worse').map((c) => ({ target: 'conversation', conversation_id: c.conv, name: 'quality', value: 0 }));
    const scored = await fetch(`${e.loupe.url}/app/scores/create`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ project_id: PROJECT, scores }) });
    expect(scored.status).toBe(200);
  }, 240_000);
  afterAll(async () => {
    await e?.close();
    await model?.close();
  });

  for (const vp of VIEWPORTS) {
    it(`starts a replay from a conversation, shows progress, the report side by side, a pair in compare and the loop (${vpName(vp)})`, async () => {
      const page = await openPage(e, vp);
      const first = pick('better');
      await page.goto(`${e.loupe.url}/${hash(PROJECT, 'conversations', first.conv)}`);
      await page.getByTestId('replay-conversation').click();
      await page.waitForURL(/\/replays\?conversation=/);
      const convs = page.getByTestId('replay-conversations');
      expect(await convs.inputValue()).toBe(first.conv);
      const others = [pick('changed'), pick('same'), pick('unseentool')];
      await convs.fill([first, ...others].map((c) => c.conv).join(', '));
      await page.getByTestId('replay-base-url').fill(model.url);
      await page.getByTestId('replay-model').fill('new-model');
      await page.getByTestId('replay-label').fill(`ui ${vpName(vp)}`);
      await page.getByTestId('replay-scorers').getByLabel('says-answer').check();
      // The estimate is shown before anything is sent: 4 turns of 2 recorded model calls each.
      await page.getByTestId('replay-estimate').filter({ hasText: '4 turns, 8 model calls' }).waitFor();
      if (vp === VIEWPORTS[0]) {
        await screenshotBoth(page, 'replay-form');
        expect(await contrastBoth(page, 'replay form')).toEqual([]);
      }

      let release!: () => void;
      gate = new Promise<void>((r) => { release = r; });
      await page.getByTestId('replay-start').click();
      await page.waitForURL(/\/replays\/[0-9a-f]+$/);
      // Progress while the scripted model holds one turn: running, Cancel offered, not all turns done.
      await page.getByTestId('replay-status').filter({ hasText: 'running' }).waitFor();
      await page.getByTestId('replay-cancel').waitFor();
      await page.getByTestId('replay-progress').filter({ hasText: /^[0-3] of 4 turns replayed/ }).waitFor();
      release();
      gate = null;
      await page.getByTestId('replay-status').filter({ hasText: 'done' }).waitFor();
      await page.getByTestId('replay-progress').filter({ hasText: '4 of 4 turns replayed' }).waitFor();
      expect(await page.getByTestId('replay-cancel').count()).toBe(0);

      // Outcomes: the 'changed' reply fails the scorer (worse), the 'better' one differs (changed), one same, one diverged.
      const count = async (o: string) => (await page.getByTestId(`outcome-${o}`).locator('strong').innerText()).trim();
      // The report is read again once the run ended: wait for that read (no turn shown pending), not for a time.
      await page.getByTestId('replay-pair').nth(3).waitFor();
      await page.locator('[data-testid=replay-pair][data-outcome=pending]').first().waitFor({ state: 'detached' });
      expect([await count('worse'), await count('changed'), await count('same'), await count('diverged')]).toEqual(['1', '1', '1', '1']);
      const total = page.getByTestId('score-total');
      expect(await total.locator('th').innerText()).toBe('says-answer');
      expect(await total.locator('td').allInnerTexts()).toEqual(['3', '1.00', '0.67', '0', '1', '-1.00', '1.000']);

      // Sorted by outcome: the worse pair first, its answers side by side with the changed lines marked.
      const worse = page.getByTestId('replay-pair').first();
      expect(await worse.getAttribute('data-outcome')).toBe('worse');
      const c = pick('changed');
      expect(await worse.getAttribute('data-trace')).toBe(c.trace);
      expect(await worse.getByTestId('pair-original').locator('del').innerText()).toBe(`The answer is ${c.a + c.b}.`);
      expect(await worse.getByTestId('pair-replay').locator('ins').innerText()).toBe(`${c.a + c.b} is the sum.`);
      const diverged = page.locator('[data-testid=replay-pair][data-outcome=diverged]');
      expect(await diverged.getByTestId('pair-divergence').innerText()).toContain('unseen tool multiply');
      // Side by side: each side gets a real column at this width, and nothing spills sideways.
      const [wa, wb] = await Promise.all([worse.getByTestId('pair-original'), worse.getByTestId('pair-replay')].map((l) => l.evaluate((el) => el.getBoundingClientRect().width)));
      expect(wa).toBeGreaterThan(vp.width > 1200 ? 450 : 300);
      expect(Math.abs(wa! - wb!)).toBeLessThan(2);
      expect(await page.evaluate(() => { const el = document.querySelector('[data-testid=replay-report]')!; return el.scrollWidth <= el.clientWidth; })).toBe(true);
      if (vp === VIEWPORTS[0]) {
        await screenshotBoth(page, 'replay-report');
        expect(await contrastBoth(page, 'replay report')).toEqual([]);
      }

      // One pair in the step-by-step compare.
      await worse.getByTestId('pair-compare').click();
      await page.waitForURL(/\/compare\?a=/);
      expect(page.url()).toContain(`a=${c.trace}`);
      await page.getByTestId('compare-row').first().waitFor();

      // The Loop page, from the navigation: this replay is a round with its outcomes and score.
      await page.getByRole('link', { name: 'Loop', exact: true }).first().click();
      const round = page.getByTestId('loop-round').filter({ hasText: `ui ${vpName(vp)}` });
      await round.getByTestId('loop-outcomes').waitFor();
      expect(await round.getByTestId('loop-outcomes').innerText()).toContain('0 better · 1 worse · 1 same · 1 diverged');
      expect(await round.getByTestId('loop-score').innerText()).toContain('says-answer 0.67');
      if (vp === VIEWPORTS[0]) {
        await screenshotBoth(page, 'replay-loop');
        expect(await contrastBoth(page, 'loop')).toEqual([]);
      }
      // "next round": the same selection again, the form filled from this replay.
      await round.getByTestId('loop-next').click();
      await page.waitForURL(/\/replays\?from=/);
      expect(await page.getByTestId('replay-conversations').inputValue()).toBe([first, ...others].map((x) => x.conv).join(', '));
      expect(await page.getByTestId('replay-base-url').inputValue()).toBe(model.url);
      expect(await page.getByTestId('replay-scorers').getByLabel('says-answer').isChecked()).toBe(true);
      await page.getByTestId('replay-estimate').filter({ hasText: '4 turns, 8 model calls' }).waitFor();
      // From a finished training job: its checkpoint and the dataset it trained on are chosen.
      await page.goto(`${e.loupe.url}/${hash(PROJECT, 'replays')}?model_id=m-1&dataset=${encodeURIComponent('wandb-artifact:///local/calc/fixed:v0')}`);
      expect(await page.getByTestId('replay-dataset').inputValue()).toBe('wandb-artifact:///local/calc/fixed:v0');
      await page.locator('[data-testid=replay-model-id] option[value="m-1"]').waitFor({ state: 'attached' });
      expect(await page.getByTestId('replay-model-id').inputValue()).toBe('m-1');
      // From a failure cluster in the Clusters view: the form with that cluster chosen, 10 turns.
      await page.goto(`${e.loupe.url}/${hash(PROJECT, 'clusters')}`);
      await page.getByTestId('cluster').filter({ hasText: 'quality' }).getByTestId('cluster-replay').click();
      await page.waitForURL(/\/replays\?cluster=/);
      await page.getByTestId('replay-cluster').locator('option', { hasText: 'quality' }).waitFor({ state: 'attached' });
      expect(await page.getByTestId('replay-cluster').inputValue()).toBe(new URL(page.url().replace('#', '')).searchParams.get('cluster'));
      await page.getByTestId('replay-base-url').fill(model.url);
      await page.getByTestId('replay-model').fill('new-model');
      await page.getByTestId('replay-estimate').filter({ hasText: '10 turns, 20 model calls' }).waitFor();
      // The report again, from the list.
      await page.getByTestId('replay-row').filter({ hasText: `ui ${vpName(vp)}` }).locator('a').first().click();
      await page.getByTestId('replay-report').waitFor();
      await page.context().close();
    }, 180_000);
  }
});
