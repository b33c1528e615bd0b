/**
 * Job behaviour over real HTTP with the real trainer (issue 11, issue 13 items 3, 7, 10): cancel
 * (a running job stops within one gradient step, CANCELLED), the open trainer's failures (nothing
 * trainable → FAILED with the reason; unknown loss, non-numeric rates → 422), a 54 MiB job body
 * that does not hold up other requests and whose payload is deleted when the job ends, datasets as
 * versioned artifacts, training data only from regular files, Adam state carried between jobs, and
 * the files a crash leaves behind removed at start.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTrainingServer, waitForJob, type TrainingServer } from './training-fixture.js';

let s: TrainingServer;
beforeAll(async () => {
  s = await startTrainingServer();
});
afterAll(async () => s?.close());

const line = (q: string, a: string) => JSON.stringify({ messages: [{ role: 'user', content: q }, { role: 'assistant', content: a }] });
const lines = (n: number) => Array.from({ length: n }, (_, i) => line(`question ${i}`, `answer ${i % 7}`));
const newModel = async (name: string) => (await s.req('POST', '/v1/preview/models', { project: 'jobs', name, base_model: 'loupe-test-bytes' })).body.id as string;
const writeData = (name: string, ls: string[]) => {
  const f = path.join(s.dataDir, name);
  fs.writeFileSync(f, ls.join('\n'));
  return f;
};
const job = async (id: string) => (await s.req('GET', `/v1/preview/training-jobs/${id}`)).body;

describe('cancel', () => {
  test('a running job stops within one gradient step and ends CANCELLED; a queued one at once; an ended one is 409', async () => {
    const id = await newModel('cancel');
    // Batches of 16 (13 steps): long enough to cancel midway, and each step long beside an HTTP round trip —
    // with steps of one example a step could end between reading the count and the cancel arriving (a
    // whole-suite run saw 2, as the delete test below once did), which says nothing of the cancel.
    const data = writeData('cancel.jsonl', lines(200));
    const running = (await s.req('POST', '/v1/preview/sft-training-jobs', { model_id: id, training_data_url: data, config: { batch_size: 16 } })).body.id;
    const queued = (await s.req('POST', '/v1/preview/sft-training-jobs', { model_id: id, training_data_url: data, config: { batch_size: 1 } })).body.id;
    const steps = async () => (await s.req('GET', `/v1/preview/training-jobs/${running}/events?limit=100`)).body.data.filter((e: { type: string }) => e.type === 'gradient_step').length;
    while ((await steps()) < 3) await new Promise((r) => setTimeout(r, 100));
    const atCancel = await steps();
    const c = await s.req('POST', `/v1/preview/training-jobs/${running}/cancel`);
    expect(c.status).toBe(200);
    expect(c.body).toMatchObject({ id: running, status: 'CANCELLED', error_message: 'cancelled by request', step: null });
    const events = await waitForJob(s, running);
    const after = events.filter((e) => e.type === 'gradient_step').length - atCancel;
    expect(after).toBeLessThanOrEqual(1); // the step in flight when the cancel arrived, at most
    expect(events.at(-1)).toMatchObject({ type: 'training_failed', data: { error_message: 'cancelled by request' } });
    // The queued job was next: cancel it before it runs (or as soon as it does).
    const q = await s.req('POST', `/v1/preview/training-jobs/${queued}/cancel`);
    expect(q.body.status).toBe('CANCELLED');
    await s.loupe.ctx.training!.runner.idle();
    expect((await s.req('GET', `/v1/preview/models/${id}/checkpoints`)).body.data.map((x: { step: number }) => x.step)).toEqual([0]);
    expect(fs.readdirSync(path.join(s.dataDir, 'models', id))).toEqual(['step0']);
    expect((await s.req('POST', `/v1/preview/training-jobs/${running}/cancel`)).status).toBe(409);
    expect((await s.req('POST', '/v1/preview/training-jobs/nope/cancel')).status).toBe(404);
    expect((await s.req('GET', `/v1/preview/training-jobs?status=CANCELLED&model_id=${id}`)).body.data).toHaveLength(2);
  }, 120_000);

  test('deleting the model stops its running job within one gradient step (the delete waits for it)', async () => {
    const id = await newModel('delete-running');
    // Batches of 16 make a step long beside an HTTP round trip: with steps of one example, a step could end
    // between reading the count below and the delete arriving (CI-like load saw 2), which says nothing of the delete.
    const running = (await s.req('POST', '/v1/preview/sft-training-jobs', { model_id: id, training_data_url: writeData('del.jsonl', lines(200)), config: { batch_size: 16 } })).body.id;
    const steps = async () => (await s.req('GET', `/v1/preview/training-jobs/${running}/events?limit=100`)).body.data.filter((e: { type: string }) => e.type === 'gradient_step').length;
    while ((await steps()) < 3) await new Promise((r) => setTimeout(r, 100));
    const atDelete = await steps();
    expect((await s.req('DELETE', `/v1/preview/models/${id}`)).status).toBe(200);
    // When the delete answers, the job has already stopped: no step comes later.
    expect(await job(running)).toMatchObject({ status: 'CANCELLED', error_message: `model ${id} was deleted` });
    const after = await steps();
    expect(after - atDelete).toBeLessThanOrEqual(1);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await steps()).toBe(after);
    expect(fs.existsSync(path.join(s.dataDir, 'models', id))).toBe(false);
  }, 120_000);
});

describe('failing like the open trainer', () => {
  const choice = (text: string, logprobs: unknown) => ({ finish_reason: 'stop', index: 0, message: { role: 'assistant', content: text }, logprobs });
  const groups = (logprobs: unknown) => [{ trajectories: [1, 0].map((r) => ({ messages_and_choices: [{ role: 'user', content: 'q' }, choice('ab', logprobs)], reward: r })) }];

  test('choices without logprobs leave nothing to train: FAILED with the reason, no new step', async () => {
    const id = await newModel('nothing');
    const j = (await s.req('POST', '/v1/preview/training-jobs', { model_id: id, trajectory_groups: groups(null) })).body.id;
    const events = await waitForJob(s, j);
    expect(events.map((e) => e.type)).toEqual(['training_failed']);
    const done = await job(j);
    expect(done.status).toBe('FAILED');
    expect(done.error_message).toBe(
      'Nothing to train: the 2 trajectories with a non-zero advantage hold no trainable choice — 2 choice(s) carry no logprobs (request completions with logprobs, or set experimental_config.allow_training_without_logprobs)',
    );
    expect((await s.req('GET', `/v1/preview/models/${id}/checkpoints`)).body.data).toHaveLength(1);
    // The same groups with allow_training_without_logprobs train.
    const ok = (await s.req('POST', '/v1/preview/training-jobs', { model_id: id, trajectory_groups: groups(null), experimental_config: { allow_training_without_logprobs: true } })).body.id;
    expect((await waitForJob(s, ok)).at(-1)!.type).toBe('training_ended');
  }, 60_000);

  test('an unknown loss_fn, a non-numeric rate or a conflicting ppo flag is a 422 naming the key', async () => {
    const id = await newModel('bad-config');
    const bad = async (cfg: unknown) => s.req('POST', '/v1/preview/training-jobs', { model_id: id, trajectory_groups: [], experimental_config: cfg });
    const loss = await bad({ loss_fn: 'grpo' });
    expect(loss.status).toBe(422);
    expect(loss.body.detail[0]).toMatchObject({ loc: ['body', 'experimental_config', 'loss_fn'] });
    expect((await bad({ learning_rate: 'fast' })).body.detail[0].loc).toEqual(['body', 'experimental_config', 'learning_rate']);
    expect((await bad({ learning_rate: -1 })).status).toBe(422);
    expect((await bad({ loss_fn: 'cispo', ppo: true })).body.detail[0].loc).toEqual(['body', 'experimental_config', 'ppo']);
    const sft = await s.req('POST', '/v1/preview/sft-training-jobs', { model_id: id, training_data_url: writeData('x.jsonl', lines(2)), config: { learning_rate: ['fast'] } });
    expect(sft.status).toBe(422);
    expect(sft.body.detail[0].loc).toEqual(['body', 'config', 'learning_rate']);
    // Nothing was queued by any of them.
    expect((await s.req('GET', `/v1/preview/training-jobs?model_id=${id}`)).body.data).toHaveLength(0);
  });
});

describe('a 54 MiB job body', () => {
  test('is parsed off the server thread: health answers while it arrives; its payload file goes when the job ends', async () => {
    const id = await newModel('big');
    // 64 groups × 8 trajectories × ~1 450 logprob tokens ≈ 54 MiB of JSON; equal rewards, so the job
    // has nothing to train on and ends at once (zero advantage is not a failure).
    const tokens = Array.from({ length: 1450 }, (_, i) => ({ token: `token_id:${97 + (i % 26)}`, logprob: -1.25, bytes: [97 + (i % 26)], top_logprobs: [] }));
    const traj = { messages_and_choices: [{ role: 'user', content: 'q'.repeat(200) }, { finish_reason: 'length', index: 0, message: { role: 'assistant', content: 'a'.repeat(1000) }, logprobs: { content: tokens } }], reward: 1 };
    const body = Buffer.from(JSON.stringify({ model_id: id, trajectory_groups: Array.from({ length: 64 }, () => ({ trajectories: Array(8).fill(traj) })) }));
    expect(body.length).toBeGreaterThan(50 * 1024 * 1024);
    const health: number[] = [];
    let answered = false;
    const post = fetch(`${s.url}/v1/preview/training-jobs`, { method: 'POST', headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' }, body }).then(async (r) => {
      answered = true;
      return { status: r.status, body: (await r.json()) as { id: string } };
    });
    while (!answered) {
      const t = performance.now();
      const h = await fetch(`${s.url}/v1/health`);
      expect(h.status).toBe(200);
      health.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 20));
    }
    const r = await post;
    expect(r.status).toBe(200);
    console.log(`54 MiB job body: ${health.length} health checks answered while it was received and parsed, slowest ${Math.max(...health).toFixed(0)} ms`);
    expect(health.length).toBeGreaterThanOrEqual(5);
    const summary = (await job(r.body.id)).summary;
    expect(summary).toMatchObject({ trajectory_groups: 64, trajectories: 512, exceptions: 0, mean_reward: 1 });
    await waitForJob(s, r.body.id);
    expect(await job(r.body.id)).toMatchObject({ status: 'COMPLETED', summary: { trajectories: 512 } });
    // The payload was a file while the job waited; it is gone now, and the row never held it.
    expect(fs.readdirSync(path.join(s.dataDir, 'training', 'payloads'))).not.toContain(`${r.body.id}.json`);
    // Over the cap: 413 before anything is parsed.
    const huge = await fetch(`${s.url}/v1/preview/training-jobs`, { method: 'POST', headers: { authorization: `Bearer ${s.key}` }, body: Buffer.alloc(65 * 1024 * 1024, 32) });
    expect(huge.status).toBe(413);
    // No key: 401 without reading the body.
    expect((await fetch(`${s.url}/v1/preview/training-jobs`, { method: 'POST', body })).status).toBe(401);
  }, 180_000);
});

describe('a large /log', () => {
  test('is checked and turned into spans off the server thread: health answers meanwhile; a bad field is a 422', async () => {
    const id = await newModel('big-log');
    const turn = (i: number) => [
      { role: 'user', content: `question ${i} `.repeat(40) },
      { finish_reason: 'stop', index: 0, message: { role: 'assistant', content: `answer ${i} `.repeat(40) }, logprobs: null },
    ];
    const groups = Array.from({ length: 300 }, (_, g) => ({ trajectories: Array.from({ length: 8 }, (_, t) => ({ messages_and_choices: turn(g * 8 + t), reward: t % 2 })) }));
    const body = Buffer.from(JSON.stringify({ split: 'val', trajectory_groups: groups }));
    expect(body.length).toBeGreaterThan(1024 * 1024);
    let answered = false;
    const health: number[] = [];
    const post = fetch(`${s.url}/v1/preview/models/${id}/log`, { method: 'POST', headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' }, body }).then(async (r) => {
      answered = true;
      return { status: r.status, body: (await r.json()) };
    });
    while (!answered) {
      const t = performance.now();
      expect((await fetch(`${s.url}/v1/health`)).status).toBe(200);
      health.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await post).toEqual({ status: 200, body: {} });
    console.log(`/log of ${(body.length / 1048576).toFixed(1)} MiB (2 400 trajectories): ${health.length} health checks answered meanwhile, slowest ${Math.max(...health).toFixed(0)} ms`);
    const ck = (await s.req('GET', `/v1/preview/models/${id}/checkpoints`)).body.data[0];
    expect(ck.metrics['val/reward']).toBe(0.5);
    const fb = await s.req('POST', '/feedback/query', { project_id: 'local/jobs', feedback_type: 'reward', limit: 1 });
    expect(fb.body.total_count).toBeGreaterThanOrEqual(2400);
    const conv = await s.req('POST', '/agents/conversations/chat', { project_id: 'local/jobs', conversation_id: 'big-log/val/step0/group299' });
    expect(conv.body.total_turns).toBe(8);
    const bad = await s.req('POST', `/v1/preview/models/${id}/log`, { split: 'val', trajectory_groups: [{ trajectories: [{ messages_and_choices: turn(0), reward: 'high' }] }] });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'trajectory_groups', 0, 'trajectories', 0, 'reward']);
  }, 180_000);
});

describe('datasets as versioned artifacts', () => {
  const upload = (q: string, content: string, key: string | null = s.key) =>
    fetch(`${s.url}/v1/preview/datasets?${q}`, { method: 'POST', headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), 'content-type': 'application/jsonl' }, body: content }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

  test('upload → v0, same content → v0 again, new content → v1; a bad line is refused; SFT reads wandb-artifact:/// URLs', async () => {
    const data = lines(16).join('\n');
    const a = await upload('entity=team&project=sft&name=train-data', data);
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ entity: 'team', project: 'sft', name: 'train-data', version: 'v0', url: 'wandb-artifact:///team/sft/train-data:v0', lines: 16, source: 'upload' });
    expect((await upload('entity=team&project=sft&name=train-data', data)).body.id).toBe(a.body.id);
    const b = await upload('entity=team&project=sft&name=train-data', `${data}\n${line('extra', 'yes')}`);
    expect(b.body).toMatchObject({ version: 'v1', lines: 17 });
    const bad = await upload('entity=team&project=sft&name=train-data', `${data}\n{"messages": [{"role": "user", "content": "SECRET"}]}`);
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].msg).toBe('dataset team/sft/train-data line 17: messages: no assistant message to train on');
    expect(JSON.stringify(bad.body)).not.toContain('SECRET');
    expect((await upload('entity=team&project=sft&name=..', data)).status).toBe(422);
    expect((await upload('entity=team&project=sft&name=x', data, null)).status).toBe(401);
    const list = (await s.req('GET', '/v1/preview/datasets?entity=team&name=train-data')).body;
    expect(list.data.map((d: { version: string }) => d.version)).toEqual(['v1', 'v0']);

    const id = await newModel('from-artifact');
    for (const url of ['wandb-artifact:///team/sft/train-data:v0', 'wandb-artifact:///team/sft/train-data', 'wandb-artifact:///team/sft/train-data:latest']) {
      const j = await s.req('POST', '/v1/preview/sft-training-jobs', { model_id: id, training_data_url: url, config: { batch_size: 8 } });
      expect(j.status, url).toBe(200);
      const events = await waitForJob(s, j.body.id);
      // v0 has 16 lines (2 steps); the latest, v1, 17 (3 steps).
      expect(events[0]).toMatchObject({ type: 'training_started', data: { num_sequences: url.endsWith(':v0') ? 2 : 3 } });
      expect(events.at(-1)!.type).toBe('training_ended');
    }
    const missing = await s.req('POST', '/v1/preview/sft-training-jobs', { model_id: id, training_data_url: 'wandb-artifact:///team/sft/nope:v0' });
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0].msg).toMatch(/dataset team\/sft\/nope:v0 not found: upload it first with POST \/v1\/preview\/datasets/);
  }, 120_000);
});

describe('training data only from regular files the user chose', () => {
  test('a named pipe, a device, a directory are refused at submission, at once, without reading; errors quote no content', async () => {
    const id = await newModel('files');
    const fifo = path.join(s.dataDir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    for (const [url, what] of [[fifo, 'a named pipe'], ['/dev/zero', 'a device'], [s.dataDir, 'a directory']] as const) {
      const t = Date.now();
      const r = await s.req('POST', '/v1/preview/sft-training-jobs', { model_id: id, training_data_url: url });
      expect(r.status, url).toBe(422);
      expect(r.body.detail[0].msg).toBe(`training data ${url} is ${what}; only regular files are read`);
      expect(Date.now() - t).toBeLessThan(5000);
    }
    // A file whose content is not training data: the error names the line and position, never the bytes.
    const secret = writeData('shadow', ['root:$y$j9T$SECRETHASH:19000:0:99999:7:::', 'daemon:*:19000:0:99999:7:::']);
    const j = (await s.req('POST', '/v1/preview/sft-training-jobs', { model_id: id, training_data_url: secret })).body.id;
    const events = await waitForJob(s, j);
    expect(events.at(-1)!.data.error_message).toMatch(new RegExp(`^${secret} line 1: not valid JSON( at character \\d+)?$`));
    expect(JSON.stringify(events)).not.toContain('SECRETHASH');
  }, 60_000);
});

describe('Adam state', () => {
  test("carries over between a model's jobs: the second job's moments continue the first's", async () => {
    const id = await newModel('adam');
    const data = writeData('adam.jsonl', lines(16));
    for (const expectedT of [2, 4]) {
      const j = (await s.req('POST', '/v1/preview/sft-training-jobs', { model_id: id, training_data_url: data, config: { batch_size: 8 } })).body.id;
      await waitForJob(s, j);
      const step = (await job(j)).step;
      const opt = JSON.parse(fs.readFileSync(path.join(s.dataDir, 'models', id, `step${step}`, 'optimizer.json'), 'utf8'));
      expect(opt).toMatchObject({ format: 'adam/1', t: expectedT });
    }
  }, 60_000);
});

describe('recovery at start', () => {
  test('what a crash leaves behind is removed: temp checkpoint folders, unlisted weights, deleted models, stale payloads and uploads', async () => {
    const a = await startTrainingServer({ keep: true });
    const dir = a.dataDir;
    const id = (await a.req('POST', '/v1/preview/models', { project: 'crash', name: 'm', base_model: 'loupe-test-bytes' })).body.id;
    await a.close();
    const models = path.join(dir, 'models');
    fs.mkdirSync(path.join(models, id, 'step1.tmp-4242-1700000000000'), { recursive: true }); // a save cut short
    fs.mkdirSync(path.join(models, id, 'step7'), { recursive: true }); // weights written, no checkpoint row
    fs.mkdirSync(path.join(models, 'deleted-model', 'step0'), { recursive: true }); // a delete cut short
    fs.mkdirSync(path.join(dir, 'training', 'payloads'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'training', 'payloads', 'no-such-job.json'), '{}');
    fs.mkdirSync(path.join(dir, 'datasets', '.incoming'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'datasets', '.incoming', 'half.jsonl'), '{"messages"');
    const b = await startTrainingServer({ dataDir: dir });
    try {
      expect(fs.readdirSync(path.join(models, id))).toEqual(['step0']);
      expect(fs.readdirSync(models)).toEqual([id]);
      expect(fs.readdirSync(path.join(dir, 'training', 'payloads'))).toEqual([]);
      expect(fs.existsSync(path.join(dir, 'datasets', '.incoming'))).toBe(false);
      // The model still serves from its step 0.
      expect((await b.req('POST', '/v1/chat/completions', { model: id, messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 })).status).toBe(200);
    } finally {
      await b.close();
    }
  }, 60_000);
});
