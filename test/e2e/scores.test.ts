/**
 * Scores in the existing views (issue 20 item 1), against a real `loupe serve`, Chromium and the demo
 * data with scores stored through POST /app/scores/create (a judge's number on two turns, a rule's
 * boolean on one span, a person's label on a conversation):
 * - the conversations list shows a Scores column (mean per name, tinted when ≤ 0.5) and filters by a
 *   score condition (the rows the API gives for the same `filters.scores`); the condition is in the link;
 * - the chat shows badges on the scored turns and the conversation's own score in its header;
 * - the trace tree shows the span's score on its row and the turn's on the root row;
 * - the Spans page filters by `$score.<name>` and groups by a score (the numbers the API gives).
 * At 1440x900 and 1024x700; screenshots of each view.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VIEWPORTS, openPage, startE2E, vpName, type E2E } from './fixture.js';
import { apiOf, hash, screenshotBoth } from './helpers.js';

const P = 'local/demo';

interface ListRow { conversation_id: string; kind: string; turn_count: number; scores?: { name: string; count: number; mean: number | null }[] }

describe('scores in the conversations list, chat, trace tree and spans page', () => {
  let e: E2E;
  const api = apiOf(() => e);
  let conv: string; // the conversation with a low score
  let lowTurn: string; // its turn scored 0.2
  let highTurn: string; // its turn scored 0.9
  let other: string; // another conversation, scored 0.8
  let span: { trace_id: string; span_id: string }; // a span of the low turn, failed by a rule

  beforeAll(async () => {
    e = await startE2E({ demo: true });
    const list = await api<{ conversations: ListRow[] }>('/app/conversations', { project_id: P, limit: 100 });
    const multi = list.conversations.filter((c) => c.kind === 'conversation' && c.turn_count >= 2);
    expect(multi.length).toBeGreaterThanOrEqual(2);
    conv = multi[0]!.conversation_id;
    other = multi[1]!.conversation_id;
    const chat = await api<{ turns: { trace_id: string }[] }>('/agents/conversations/chat', { project_id: P, conversation_id: conv, limit: 50 });
    lowTurn = chat.turns[0]!.trace_id;
    highTurn = chat.turns[1]!.trace_id;
    const otherChat = await api<{ turns: { trace_id: string }[] }>('/agents/conversations/chat', { project_id: P, conversation_id: other, limit: 50 });
    const spans = await api<{ spans: { span_id: string; trace_id: string; parent_span_id: string | null }[] }>('/agents/spans/query', { project_id: P, query: { $expr: { $eq: [{ $getField: 'trace_id' }, { $literal: lowTurn }] } }, limit: 100 });
    const child = spans.spans.find((s) => s.parent_span_id);
    expect(child).toBeDefined();
    span = { trace_id: child!.trace_id, span_id: child!.span_id };
    await api('/app/scores/create', {
      project_id: P,
      scores: [
        { target: 'turn', trace_id: lowTurn, name: 'helpful', value: 0.2, source: 'judge', scorer: 'helpful-judge', scorer_version: 'v1', explanation: 'did not answer the question' },
        { target: 'turn', trace_id: highTurn, name: 'helpful', value: 0.9, source: 'judge', scorer: 'helpful-judge', scorer_version: 'v1' },
        { target: 'turn', trace_id: otherChat.turns[0]!.trace_id, name: 'helpful', value: 0.8, source: 'judge', scorer: 'helpful-judge', scorer_version: 'v1' },
        { target: 'span', trace_id: span.trace_id, span_id: span.span_id, name: 'no-loops', value: false, source: 'rule', scorer: 'no-loops', scorer_version: 'v1' },
        { target: 'conversation', conversation_id: conv, name: 'tone', label: 'rude', source: 'human', creator: 'ana' },
      ],
    });
  }, 180_000);
  afterAll(async () => e?.close());

  for (const vp of VIEWPORTS) {
    it(`conversations list: Scores column and a score filter (${vpName(vp)})`, async () => {
      const page = await openPage(e, vp);
      await page.goto(`${e.loupe.url}/${hash(P, 'conversations')}`);
      const row = page.getByTestId('conversation-row').filter({ has: page.getByTestId('row-scores').filter({ hasText: 'tone: rude' }) });
      await row.waitFor();
      // The row's turns' scores per name: helpful (0.2 + 0.9) / 2, the span's rule, the conversation's label.
      const cell = row.getByTestId('row-scores');
      expect(await cell.locator('.pill').allInnerTexts()).toEqual(expect.arrayContaining(['helpful 0.55 (2)', 'no-loops 0', 'tone: rude']));
      expect(await cell.locator('.pill.error').allInnerTexts()).toEqual(expect.arrayContaining(['no-loops 0']));
      // The extra column still fits the window: no sideways scroll, no column under 54 px.
      const fit = await page.getByTestId('conversations-table').evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth, widths: [...el.querySelectorAll('th')].map((th) => th.getBoundingClientRect().width) }));
      expect(fit.scroll).toBeLessThanOrEqual(fit.client + 1);
      expect(Math.min(...fit.widths)).toBeGreaterThanOrEqual(54);

      // helpful ≤ 0.5: the rows the API gives for the same condition (only `conv`).
      const expected = await api<{ conversations: ListRow[]; total_count: number }>('/app/conversations', { project_id: P, filters: { scores: [{ name: 'helpful', max: 0.5 }] }, limit: 100 });
      expect(expected.conversations.map((c) => c.conversation_id)).toEqual([conv]);
      const filter = page.getByTestId('score-filter');
      await filter.getByLabel('Score', { exact: true }).selectOption('helpful');
      await filter.getByLabel('Score value').fill('0.5');
      await page.getByTestId('conversation-count').filter({ hasText: /^1 conversation$/ }).waitFor();
      expect(await page.getByTestId('conversation-row').count()).toBe(1);
      expect(new URL(page.url().replace('#/', '')).searchParams.get('score')).toBe(JSON.stringify({ name: 'helpful', max: 0.5 }));
      await screenshotBoth(page, vp.width === 1440 ? 'scores-conversations' : 'scores-conversations-1024');

      // ≥ 0.8 gives both conversations; "label is" on tone gives conv.
      await filter.getByLabel('Score condition').selectOption('min');
      await filter.getByLabel('Score value').fill('0.8');
      await page.getByTestId('conversation-count').filter({ hasText: /^2 conversations$/ }).waitFor();
      // The link opens the same filtered list (as the Clusters view's "show these conversations" does).
      await page.goto(`${e.loupe.url}/${hash(P, 'conversations')}?score=${encodeURIComponent(JSON.stringify({ name: 'tone', label: 'rude' }))}`);
      await page.reload();
      await page.getByTestId('conversation-count').filter({ hasText: /^1 conversation$/ }).waitFor();
      expect(await page.getByTestId('score-filter').getByLabel('Score value').inputValue()).toBe('rude');
      await page.context().close();
    }, 120_000);
  }

  it('chat: badges on the scored turns and the conversation header', async () => {
    const page = await openPage(e, VIEWPORTS[0]);
    await page.goto(`${e.loupe.url}/${hash(P, 'conversations', conv)}`);
    const low = page.locator(`[data-testid=turn][data-trace="${lowTurn}"]`);
    await low.getByTestId('score-badge').first().waitFor();
    const texts = await low.getByTestId('score-badge').allInnerTexts();
    expect(texts).toEqual(expect.arrayContaining(['helpful 0.20', 'no-loops ✗']));
    expect(await low.locator('[data-testid=score-badge][data-name=helpful]').getAttribute('class')).toContain('error');
    expect(await low.locator('[data-testid=score-badge][data-name=helpful]').getAttribute('title')).toContain('did not answer the question');
    const high = page.locator(`[data-testid=turn][data-trace="${highTurn}"]`);
    expect(await high.getByTestId('score-badge').allInnerTexts()).toEqual(['helpful 0.90']);
    expect(await high.locator('[data-testid=score-badge]').getAttribute('class')).toContain('ok');
    // The conversation's own score is in the header, not on a turn.
    expect(await page.locator('[data-testid=score-badge][data-name=tone]').allInnerTexts()).toEqual(['tone: rude']);
    expect(await page.locator('[data-testid=turn] [data-testid=score-badge][data-name=tone]').count()).toBe(0);
    await low.scrollIntoViewIfNeeded();
    await screenshotBoth(page, 'scores-chat');
    await page.context().close();
  }, 90_000);

  for (const vp of VIEWPORTS) {
    it(`trace tree: the span's score on its row, the turn's on the root (${vpName(vp)})`, async () => {
      const page = await openPage(e, vp);
      await page.goto(`${e.loupe.url}/${hash(P, 'traces', lowTurn)}`);
      const row = page.locator(`[data-testid=wf-row][data-span="${span.span_id}"]`);
      await row.getByTestId('score-badge').waitFor();
      expect(await row.getByTestId('score-badge').allInnerTexts()).toEqual(['no-loops ✗']);
      const roots = page.locator('[data-testid=wf-row]').filter({ has: page.locator('[data-testid=score-badge][data-name=helpful]') });
      expect(await roots.count()).toBeGreaterThanOrEqual(1);
      expect(await roots.first().locator('[data-name=helpful]').innerText()).toBe('helpful 0.20');
      // The badge does not push the row's bar track out of its grid cell.
      const box = await row.locator('.wf-name').boundingBox();
      const badge = await row.getByTestId('score-badges').boundingBox();
      expect(badge!.x + badge!.width).toBeLessThanOrEqual(box!.x + box!.width + 1);
      if (vp.width === 1440) await screenshotBoth(page, 'scores-trace');
      // The Chat tab's header carries the turn's scores.
      await page.goto(`${e.loupe.url}/${hash(P, 'traces', lowTurn)}?tab=chat`);
      await page.locator('.trace-turn-head [data-testid=score-badge][data-name=helpful]').waitFor();
      await page.context().close();
    }, 90_000);
  }

  it('spans page: $score filter rows and group-by a score give what the API gives', async () => {
    const page = await openPage(e, VIEWPORTS[0]);
    const expr = { $expr: { $and: [{ $score: { name: 'helpful', max: 0.5 } }] } };
    const expected = await api<{ spans: unknown[]; total_count: number }>('/agents/spans/query', { project_id: P, query: expr, limit: 1 });
    const all = await api<{ total_count: number }>('/agents/spans/query', { project_id: P, limit: 1 });
    expect(expected.total_count).toBeGreaterThan(0);
    expect(expected.total_count).toBeLessThan(all.total_count);
    await page.goto(`${e.loupe.url}/${hash(P, 'spans')}`);
    await page.getByTestId('add-filter').click();
    const fr = page.getByTestId('filter-row').first();
    await fr.getByLabel('Filter field').fill('$score.helpful');
    await fr.getByLabel('Operator').selectOption('lte');
    await fr.getByLabel('Filter value').fill('0.5');
    await page.getByTestId('spans-range').filter({ hasText: `of ${expected.total_count} spans` }).waitFor();
    await page.getByRole('button', { name: '{ } $expr' }).click();
    expect(JSON.parse(await page.getByTestId('expr-preview').textContent() ?? '{}')).toEqual(expr);
    // The field list offers the project's score names.
    expect(await page.locator('#loupe-filter-fields option[value="$score.no-loops"]').count()).toBe(1);

    // Group by the helpful score (no filter): one group per value, counts as the API's.
    await fr.getByRole('button', { name: '×' }).click();
    const grouped = await api<{ groups: { group_keys: Record<string, unknown>; span_count: number }[]; total_count: number }>('/agents/spans/query', { project_id: P, group_by: [{ source: 'score', key: 'helpful', alias: 'helpful' }], limit: 100 });
    expect(grouped.total_count).toBe(3);
    await page.getByTestId('mode-group').click();
    const builder = page.getByTestId('group-builder');
    const key = builder.getByTestId('group-key').first();
    await key.getByLabel('Key source').selectOption('score');
    await key.getByTestId('group-key-input').fill('helpful');
    await page.getByTestId('apply-group').click();
    await page.getByTestId('groups-total').filter({ hasText: '3 groups' }).waitFor();
    const shown = (await page.getByTestId('gk-helpful').allInnerTexts()).map(Number).sort();
    expect(shown).toEqual(grouped.groups.map((g) => Number(g.group_keys.helpful)).sort());
    await screenshotBoth(page, 'scores-spans-group');
    // Opening a group lists its spans through a `$score.helpful = value` row.
    const g = grouped.groups.find((x) => Number(x.group_keys.helpful) === 0.2)!;
    await page.getByTestId('group-row').filter({ has: page.getByTestId('gk-helpful').filter({ hasText: /^0\.2$/ }) }).click();
    await page.getByTestId('spans-range').filter({ hasText: `of ${g.span_count} spans` }).waitFor();
    await page.context().close();
  }, 120_000);
});
