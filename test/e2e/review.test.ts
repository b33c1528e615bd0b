/**
 * The review queue (issue 20 item 3), keyboard only, against a real `loupe serve`, Chromium and the
 * demo data: ten turns walked with u / d / a label key / s, one answer corrected (c, typed, Ctrl+Enter)
 * and shown as a word diff beside the original, a note, going back; every label is a `human` score
 * named `review` by the reviewer (POST /app/scores/query answers them), progress survives a reload,
 * and a score condition narrows the queue to the turns carrying it. "Make SFT dataset" writes the
 * corrected and good turns as a dataset version in one step, which a training job accepts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VIEWPORTS, openPage, startE2E, type E2E } from './fixture.js';
import { apiOf, hash, screenshotBoth } from './helpers.js';

const P = 'local/demo';
interface Score { trace_id: string; value: boolean | number | null; label: string | null; explanation: string | null; correction: string | null; creator: string | null; source: string }

describe('review queue', () => {
  let e: E2E;
  const api = apiOf(() => e);
  beforeAll(async () => {
    e = await startE2E({ demo: true });
  }, 180_000);
  afterAll(async () => e?.close());

  it('walks ten turns with the keyboard: labels, a note, a correction with its diff, back, resume', async () => {
    const page = await openPage(e, VIEWPORTS[0]);
    await page.goto(`${e.loupe.url}/${hash(P, 'review')}`);
    const progress = page.getByTestId('review-progress');
    await progress.filter({ hasText: /^turn 1 of \d+ · 0 reviewed$/ }).waitFor();
    const total = Number(/of (\d+)/.exec(await progress.innerText())![1]);
    expect(total).toBeGreaterThanOrEqual(10);
    const turnAt = async (i: number) => {
      await progress.filter({ hasText: new RegExp(`^turn ${i} of `) }).waitFor();
      await page.getByTestId('turn').first().waitFor();
      return (await page.getByTestId('review-turn').getAttribute('data-trace'))!;
    };
    const keys = ['u', 'd', '2', 'u', 's', 'd', 'u', '1', 'u', 'd'];
    const want = new Map<string, Partial<Score>>();
    let corrected = '';
    for (const [i, k] of keys.entries()) {
      const t = await turnAt(i + 1);
      if (i === 3) {
        // Correct this turn's answer first: c opens the editor with the original, Ctrl+Enter saves.
        await page.keyboard.press('c');
        const box = page.getByTestId('review-correction-input');
        await box.waitFor();
        await box.press('Control+End');
        await page.keyboard.type(' Refunds take 5 business days.');
        await page.keyboard.press('Control+Enter');
        await page.getByTestId('review-diff').locator('ins').filter({ hasText: 'Refunds take 5 business days.' }).waitFor();
        corrected = t;
        // And a note: n, type, Enter.
        await page.keyboard.press('n');
        await page.getByLabel('Review note').waitFor();
        await page.keyboard.type('answer left out the refund time');
        await page.keyboard.press('Enter');
        await page.getByTestId('review-note').waitFor();
        await screenshotBoth(page, 'review');
      }
      await page.keyboard.press(k);
      if (k === 'u') want.set(t, { ...want.get(t), value: true });
      if (k === 'd') want.set(t, { ...want.get(t), value: false });
      if (k === '1') want.set(t, { ...want.get(t), label: 'correct' });
      if (k === '2') want.set(t, { ...want.get(t), label: 'wrong answer' });
    }
    await progress.filter({ hasText: /^turn 11 of / }).waitFor();
    await progress.filter({ hasText: / · 9 reviewed$/ }).waitFor(); // s skipped one

    // Back with k: the turn shows what was stored for it.
    await page.keyboard.press('k');
    await progress.filter({ hasText: /^turn 10 of / }).waitFor();
    await page.getByTestId('review-thumb').filter({ hasText: 'bad' }).waitFor();

    const stored = (await api<{ scores: Score[] }>('/app/scores/query', { project_id: P, name: 'review', limit: 100 })).scores;
    expect(stored.length).toBe(9);
    for (const s of stored) {
      expect(s.source).toBe('human');
      expect(s.creator).toBe('me');
      const w = want.get(s.trace_id)!;
      expect(w, s.trace_id).toBeDefined();
      if (w.value !== undefined) expect(s.value).toBe(w.value);
      if (w.label !== undefined) expect(s.label).toBe(w.label);
    }
    const c = stored.find((s) => s.trace_id === corrected)!;
    expect(c.correction).toMatch(/Refunds take 5 business days\.$/);
    expect(c.explanation).toBe('answer left out the refund time');
    expect(c.value).toBe(true);

    // A reload resumes where the walk was.
    await page.reload();
    await progress.filter({ hasText: /^turn 10 of \d+ · 9 reviewed$/ }).waitFor();

    // One step to an SFT dataset: the corrected turn (the reviewer's answer) and the turns labelled good.
    await page.getByTestId('review-make-dataset').click();
    const made = page.getByTestId('review-dataset-made');
    await made.waitFor();
    const good = [...want.values()].filter((w) => w.value === true).length;
    expect(await made.innerText()).toMatch(new RegExp(`:v\\d+ · ${good} examples \\(1 corrected, ${good - 1} good\\)`));
    const url = await page.getByTestId('review-dataset-url').innerText();
    expect(url).toMatch(/^wandb-artifact:\/\/\/.+:v\d+$/);
    expect(await page.getByTestId('review-dataset-train').getAttribute('href')).toContain('/training');
    await screenshotBoth(page, 'review-dataset');
    // "Train on it" opens Training's SFT form with the dataset filled in; a job starts on it (the built-in trainer).
    const v1 = async (path: string, body: unknown) => {
      const r = await fetch(`${e.loupe.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${e.loupe.ctx.apiKey}` }, body: JSON.stringify(body) });
      const text = await r.text();
      expect(r.status, text).toBe(200);
      return JSON.parse(text) as { id: string; training_data_url?: string };
    };
    const model = await v1('/v1/preview/models', { project: 'review', name: 'fixer', base_model: 'loupe-test-bytes' });
    await page.getByTestId('review-dataset-train').click();
    const data = page.getByTestId('sft-data-url');
    await data.waitFor();
    expect(await data.inputValue()).toBe(url);
    await page.getByTestId('dataset-note').waitFor();
    await page.getByTestId('start-sft').click();
    const item = page.getByTestId('job-item').first();
    await item.waitFor();
    const job = await fetch(`${e.loupe.url}/v1/preview/training-jobs/${await item.getAttribute('data-job-id')}`, { headers: { authorization: `Bearer ${e.loupe.ctx.apiKey}` } });
    expect(job.status).toBe(200);
    const body = (await job.json()) as { model_id: string };
    expect(body.model_id).toBe(model.id);
    expect(JSON.stringify(body)).toContain(url);
    await page.context().close();
  }, 240_000);

  it('a score condition narrows the queue to the turns carrying it', async () => {
    const page = await openPage(e, VIEWPORTS[1]);
    // The turns labelled bad above: the review score with value ≤ 0.
    const bad = (await api<{ scores: Score[] }>('/app/scores/query', { project_id: P, name: 'review', limit: 100 })).scores.filter((s) => s.value === false);
    expect(bad.length).toBe(3); // d on turns 2, 6 and 10
    await page.goto(`${e.loupe.url}/${hash(P, 'review')}?score=${encodeURIComponent(JSON.stringify({ name: 'review', max: 0 }))}`);
    await page.getByTestId('review-progress').filter({ hasText: new RegExp(`^turn 1 of ${bad.length} · ${bad.length} reviewed$`) }).waitFor();
    expect(bad.map((s) => s.trace_id)).toContain(await page.getByTestId('review-turn').getAttribute('data-trace'));
    await page.context().close();
  }, 90_000);
});
