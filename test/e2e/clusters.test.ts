/**
 * The Clusters view (issue 20 item 4), against a real `loupe serve`, Chromium and the demo data:
 * - a project never signed shows "Compute clusters"; pressing it starts the signature run, shows its
 *   progress until it completes, and the clusters appear without a reload — the same clusters (title,
 *   count, agents) POST /app/clusters answers;
 * - a low score stored 10 days ago is a cluster in "All time" and "Last 30 days", not in "Last 7 days";
 * - "Show these conversations" opens the conversations list with the cluster's filter (the rows the
 *   API gives for it), "Review" the review queue of its turns, "Spans" the spans carrying it, an
 *   example opens its turn's chat;
 * - at 1440x900 and 1024x700 the cards fit (no sideways scroll); screenshots in both themes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VIEWPORTS, openPage, startE2E, vpName, type E2E } from './fixture.js';
import { apiOf, hash, screenshotBoth } from './helpers.js';

const P = 'local/demo';

interface Cluster { cluster_id: string; title: string; kind: string; count: number; agent_names: string[]; trace_ids: string[]; filter: Record<string, unknown> }

describe('clusters view', () => {
  let e: E2E;
  const api = apiOf(() => e);
  const clusters = async (since?: string) => (await api<{ clusters: Cluster[] }>('/app/clusters', { project_id: P, ...(since ? { since } : {}) })).clusters;

  beforeAll(async () => {
    e = await startE2E({ demo: true });
  }, 180_000);
  afterAll(async () => e?.close());

  it('computes clusters from the button, with progress, and lists what the API lists', async () => {
    const page = await openPage(e, VIEWPORTS[0]);
    await page.goto(`${e.loupe.url}/${hash(P, 'clusters')}`);
    await page.getByTestId('empty-state').filter({ hasText: 'No failure clusters yet' }).waitFor();
    expect(await clusters()).toEqual([]);
    await page.getByTestId('compute-clusters').click();
    // The run's progress is shown until it ends (the demo is small: it may end before the first poll).
    await page.getByTestId('compute-progress').waitFor();
    await page.locator('[data-testid=compute-progress][data-status=completed]').waitFor({ timeout: 60_000 });
    const want = await clusters();
    expect(want.length).toBeGreaterThan(0);
    await page.getByTestId('clusters-total').filter({ hasText: `${want.length} cluster` }).waitFor();
    const cards = page.getByTestId('cluster');
    expect(await cards.count()).toBe(want.length);
    for (const [i, c] of want.entries()) {
      const card = cards.nth(i);
      expect(await card.getAttribute('data-cluster')).toBe(c.cluster_id);
      expect(await card.getByTestId('cluster-title').innerText()).toBe(c.title);
      expect(await card.getByTestId('cluster-count').innerText()).toBe(c.count.toLocaleString('en-US'));
      expect(await card.getByTestId('cluster-agent').allInnerTexts()).toEqual(c.agent_names);
      expect(await card.getByTestId('cluster-example').count()).toBe(Math.min(5, c.trace_ids.length));
      expect(Number(await card.getByTestId('cluster-trend').getAttribute('data-days'))).toBeGreaterThan(0);
    }
    const progress = await page.getByTestId('compute-progress').innerText();
    expect(progress).toMatch(/completed: \d+ turns read, \d+ signed/);
    await page.context().close();
  }, 120_000);

  it('a low score from 10 days ago is in the 30-day window, not the 7-day one; the window is in the link', async () => {
    const conv = await api<{ conversations: { conversation_id: string; kind: string }[] }>('/app/conversations', { project_id: P, limit: 5 });
    const chat = await api<{ turns: { trace_id: string }[] }>('/agents/conversations/chat', { project_id: P, conversation_id: conv.conversations.find((c) => c.kind === 'conversation')!.conversation_id, limit: 1 });
    const old = new Date(Date.now() - 10 * 86_400_000).toISOString();
    await api('/app/scores/create', { project_id: P, scores: [{ target: 'turn', trace_id: chat.turns[0]!.trace_id, name: 'helpful', value: 0.1, source: 'human', creator: 'ana', created_at: old }] });
    const all = await clusters();
    const low = all.find((c) => c.kind === 'low_score');
    expect(low).toBeDefined();
    const page = await openPage(e, VIEWPORTS[0]);
    await page.goto(`${e.loupe.url}/${hash(P, 'clusters')}`);
    await page.locator(`[data-testid=cluster][data-cluster="${low!.cluster_id}"]`).waitFor();
    await page.getByLabel('Time window').selectOption('30d');
    await page.locator(`[data-testid=cluster][data-cluster="${low!.cluster_id}"]`).waitFor();
    expect(page.url()).toContain('window=30d');
    await page.getByLabel('Time window').selectOption('7d');
    const week = await clusters(new Date(Date.now() - 7 * 86_400_000).toISOString());
    expect(week.some((c) => c.kind === 'low_score')).toBe(false);
    await page.getByTestId('clusters-total').filter({ hasText: new RegExp(`^${week.length} cluster`) }).waitFor();
    expect(await page.locator(`[data-testid=cluster][data-cluster="${low!.cluster_id}"]`).count()).toBe(0);
    await page.reload();
    expect(await page.getByLabel('Time window').inputValue()).toBe('7d');
    await page.context().close();
  }, 120_000);

  it('opens a cluster as conversations, as spans, and an example as its chat', async () => {
    const [c] = await clusters();
    const page = await openPage(e, VIEWPORTS[0]);
    await page.goto(`${e.loupe.url}/${hash(P, 'clusters')}`);
    const card = page.locator(`[data-testid=cluster][data-cluster="${c!.cluster_id}"]`);
    await card.getByTestId('cluster-conversations').click();
    const want = await api<{ total_count: number }>('/app/conversations', { project_id: P, filters: { scores: [c!.filter] }, limit: 1 });
    expect(want.total_count).toBeGreaterThan(0);
    await page.getByTestId('conversations-page').waitFor();
    await page.getByTestId('conversation-count').filter({ hasText: new RegExp(`^${want.total_count} conversations?$`) }).waitFor();
    expect(await page.getByTestId('score-filter').getByLabel('Score', { exact: true }).inputValue()).toBe(c!.filter.name);

    await page.goBack();
    await card.getByTestId('cluster-spans').click();
    const spans = await api<{ total_count: number }>('/agents/spans/query', { project_id: P, query: { $expr: { $and: [{ $score: c!.filter }] } }, limit: 1 });
    expect(spans.total_count).toBeGreaterThan(0);
    await page.getByTestId('spans-range').filter({ hasText: `of ${spans.total_count} spans` }).waitFor();

    // Review: the queue holds the cluster's turns (the traces carrying its filter).
    await page.goBack();
    await card.getByTestId('cluster-review').click();
    const turns = await api<{ total_count: number }>('/agents/spans/query', { project_id: P, query: { $expr: { $score: c!.filter } }, group_by: [{ source: 'field', key: 'trace_id' }], limit: 1000 });
    await page.getByTestId('review-progress').filter({ hasText: new RegExp(`^turn 1 of ${turns.total_count} · `) }).waitFor();
    expect(c!.trace_ids).toContain(await page.getByTestId('review-turn').getAttribute('data-trace'));

    await page.goBack();
    await card.getByTestId('cluster-example').first().click();
    await page.getByTestId('trace-chat').waitFor();
    expect(page.url()).toContain(encodeURIComponent(c!.trace_ids[0]!));
    await page.context().close();
  }, 120_000);

  for (const vp of VIEWPORTS) {
    it(`fits the window (${vpName(vp)})`, async () => {
      const page = await openPage(e, vp);
      await page.goto(`${e.loupe.url}/${hash(P, 'clusters')}`);
      await page.getByTestId('cluster').first().waitFor();
      const fit = await page.getByTestId('cluster-list').evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
      expect(fit.scroll).toBeLessThanOrEqual(fit.client + 1);
      // Each card's parts stay inside it.
      for (const card of await page.getByTestId('cluster').all()) {
        const box = (await card.boundingBox())!;
        for (const part of ['cluster-trend', 'cluster-conversations']) {
          const b = (await card.getByTestId(part).boundingBox())!;
          expect(b.x + b.width).toBeLessThanOrEqual(box.x + box.width + 1);
        }
      }
      await screenshotBoth(page, vp.width === 1440 ? 'clusters' : 'clusters-1024');
      await page.context().close();
    }, 90_000);
  }
});
