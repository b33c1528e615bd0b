/**
 * Training end to end through the UI on the real trainer: create a model (the small test base
 * model), make an SFT dataset from a chosen demo conversation ("train on these conversations"),
 * run the job, watch its events arrive live (pushed job.event events, not a refetch), see the loss
 * chart and the new checkpoint, then chat with that checkpoint in the playground. Models and jobs
 * made outside the page (by a script through the API) are listed from the server like its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot, startE2E, type E2E } from './fixture.js';

const PROJECT = 'local/demo';

describe('training page', () => {
  let e: E2E;
  let key: string;
  beforeAll(async () => {
    e = await startE2E({ demo: true });
    key = e.loupe.ctx.apiKey; // what `loupe key` prints
  }, 180_000);
  afterAll(async () => e?.close());

  it('creates a model, trains it on a conversation with live events, and chats with the new checkpoint', async () => {
    const { page } = e;
    // A training script's model and job, made through the API before the page opens.
    const api = (method: string, p: string, body?: unknown) =>
      fetch(`${e.loupe.url}${p}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) }).then((r) => r.json() as Promise<any>);
    const scripted = await api('POST', '/v1/preview/models', { project: 'scripts', name: 'script-model', base_model: 'loupe-test-bytes' });
    const scriptedJob = await api('POST', '/v1/preview/training-jobs', { model_id: scripted.id, trajectory_groups: [] });
    await page.goto(`${e.loupe.url}/#/p/${encodeURIComponent(PROJECT)}/training`);
    await page.locator(`[data-testid=model-item][data-model-id="${scripted.id}"]`).filter({ hasText: 'scripts' }).waitFor();
    await page.locator(`[data-testid=model-item][data-model-id="${scripted.id}"]`).click();
    await page.getByTestId('tab-jobs').click();
    await page.locator(`[data-testid=job-item][data-job-id="${scriptedJob.id}"]`).filter({ hasText: 'COMPLETED' }).waitFor();
    await page.getByTestId('tab-models').click();
    const form = page.getByTestId('create-model-form');
    await form.getByTestId('model-name').fill('e2e-model');
    await form.getByTestId('model-base').fill('loupe-test-bytes');
    await form.getByRole('button', { name: 'Create or open model' }).click();
    await page.getByTestId('model-item').filter({ hasText: 'e2e-model' }).waitFor();
    await page.locator('[data-testid=checkpoint-row][data-step="0"]').waitFor();

    // Train on one demo conversation.
    await page.getByTestId('tab-jobs').click();
    await page.getByText('Train on these conversations…').click();
    const picks = page.getByTestId('conv-check');
    await picks.nth(2).waitFor();
    for (const i of [0, 1, 2]) await picks.nth(i).check();
    await page.getByTestId('make-dataset').click();
    await page.getByTestId('dataset-made').filter({ hasText: '3 examples written' }).waitFor();
    const dataUrl = await page.getByTestId('sft-data-url').inputValue();
    expect(dataUrl).toMatch(/^wandb-artifact:\/\/\/local\/demo\/demo-conversations-[^:]+:v0$/);
    await page.getByLabel('Batch size').fill('1'); // one gradient step per conversation: a loss curve, not a dot
    await page.getByTestId('start-sft').click();

    const job = page.getByTestId('job-view');
    await job.waitFor();
    await job.locator('[data-testid=job-event][data-type=training_started]').waitFor({ timeout: 60_000 });
    await job.locator('[data-testid=job-event][data-type=gradient_step]').first().waitFor({ timeout: 60_000 });
    await job.locator('[data-testid=job-event][data-type=training_ended]').waitFor({ timeout: 90_000 });
    await job.getByTestId('job-status').filter({ hasText: 'COMPLETED' }).waitFor({ timeout: 30_000 });
    // The events on screen arrived as pushes while the job ran.
    const live = Number((await job.getByTestId('live-count').textContent())?.split(' ')[0]);
    expect(live).toBeGreaterThan(0);
    const points = Number(await job.getByTestId('loss-chart').getAttribute('data-points'));
    const jobId = await job.getAttribute('data-job-id');
    const events = (await (await fetch(`${e.loupe.url}/v1/preview/training-jobs/${jobId}/events?limit=100`, { headers: { authorization: `Bearer ${key}` } })).json()) as { data: { type: string }[] };
    expect(points).toBe(events.data.filter((x) => x.type === 'gradient_step').length);
    expect(points).toBe(3);
    expect(await job.getByTestId('job-event').count()).toBe(events.data.length);
    await screenshot(page, 'training-light');
    // The job just run is listed (from the server) under its model, with its final status.
    await page.locator(`[data-testid=job-item][data-job-id="${jobId}"]`).filter({ hasText: 'COMPLETED' }).waitFor();
    expect(await page.getByTestId('job-item').count()).toBe(1);
    // The loop's next step: the finished job offers a replay on its checkpoint of the conversations it trained on.
    const replayHref = (await job.getByTestId('job-replay').getAttribute('href'))!;
    const replayParams = new URLSearchParams(replayHref.slice(replayHref.indexOf('?')));
    expect(replayHref).toContain('/replays?');
    expect(replayParams.get('dataset')).toBe(dataUrl);
    expect(replayParams.get('model_id')).toBeTruthy();

    // The new checkpoint is listed, and the playground answers from it.
    await page.getByTestId('tab-models').click();
    await page.locator('[data-testid=checkpoint-row][data-step="1"]').waitFor();
    await page.getByTestId('tab-playground').click();
    await page.getByTestId('pg-step').selectOption('1');
    await page.getByTestId('pg-input').fill('Where is my order?');
    await page.getByTestId('pg-send').click();
    await page.getByTestId('pg-user').filter({ hasText: 'Where is my order?' }).waitFor();
    await page.getByTestId('pg-assistant').waitFor({ timeout: 60_000 });
    await screenshot(page, 'training-playground-light');

    await page.emulateMedia({ colorScheme: 'dark' });
    await page.getByTestId('tab-jobs').click();
    await job.getByTestId('job-status').filter({ hasText: 'COMPLETED' }).waitFor();
    await screenshot(page, 'training-dark');

    // Deleting the model from the UI removes it on the server too.
    const modelId = new URL(page.url().replace('#', '')).searchParams.get('model');
    expect(modelId).toBeTruthy();
    await page.getByTestId('tab-models').click();
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete model' }).click();
    await page.getByTestId('model-item').filter({ hasText: 'e2e-model' }).waitFor({ state: 'detached' });
    // A fresh page (nothing remembered in the browser) lists what the server has.
    await page.evaluate(() => (globalThis as unknown as { localStorage: { clear(): void } }).localStorage.clear());
    await page.reload();
    await page.locator(`[data-testid=model-item][data-model-id="${scripted.id}"]`).waitFor();
    expect(await page.getByTestId('model-item').count()).toBe(1);
    const gone = await fetch(`${e.loupe.url}/v1/preview/models/${modelId}/checkpoints`, { headers: { authorization: `Bearer ${key}` } });
    expect(gone.status).toBe(404);
  }, 240_000);

  it('the job view reads every page of a long job: 250 gradient steps chart whole; the model list says which model runs', async () => {
    const { page } = e;
    const api = (method: string, p: string, body?: unknown) =>
      fetch(`${e.loupe.url}${p}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) }).then((r) => r.json() as Promise<any>);
    const m = await api('POST', '/v1/preview/models', { project: 'long', name: 'qwen', base_model: 'OpenPipe/Qwen3-14B-Instruct' });
    // A finished job's stored history, as a long run leaves it (written through the store: the view reads it over the API).
    const repo = e.loupe.ctx.app.training;
    const t0 = Date.now() * 1000;
    await repo.insertJob({ id: 'long-job', model_id: m.id, kind: 'sft', status: 'QUEUED', payload_file: null, summary: { training_data_url: 'wandb-artifact:///local/long/d:v0', learning_rate: { sent: 5e-5, applied: 3e-3, how: 'scaled' } }, created_at_us: t0 });
    const ev = (i: number, type: string, data: Record<string, unknown>) => repo.insertEvent({ id: `long-${i}`, job_id: 'long-job', type, data, created_at_us: t0 + i });
    await ev(0, 'training_started', { num_sequences: 250 });
    for (let i = 1; i <= 250; i++) await ev(i, 'gradient_step', { loss: 3 / i, grad_norm: 1, learning_rate: 3e-3, num_trainable_tokens: 10, entropy: 1 });
    await ev(251, 'training_ended', {});
    await repo.updateJob('long-job', { status: 'COMPLETED', step: 1, training_start_us: t0, training_end_us: t0 + 251 });
    await page.goto(`${e.loupe.url}/#/p/${encodeURIComponent(PROJECT)}/training?tab=jobs&model=${m.id}&job=long-job`);
    await page.reload(); // a fresh app: lists read from the server, not from the previous test's cache
    const job = page.getByTestId('job-view');
    await job.locator('[data-testid=loss-chart][data-points="250"]').waitFor();
    expect(await job.getByTestId('job-summary').textContent()).toContain('learning rate 5.00e-5 (client) → 0.00300');
    expect(await job.getByTestId('events-elided').textContent()).toBe('52 earlier events not listed (252 in all)');
    expect(await job.locator('[data-testid=job-event]').last().getAttribute('data-type')).toBe('training_ended');
    await page.getByTestId('tab-models').click();
    await page.locator(`[data-testid=model-item][data-model-id="${m.id}"]`).getByTestId('runtime-model').filter({ hasText: 'runs loupe-tiny-bytes-2k' }).waitFor();
  }, 120_000);
});
