/**
 * The training API over real HTTP (server on port 0, real trainer): the official openai client,
 * auth on every protected operation, 404/409/422 answers, checkpoint paging, health checks.
 */
import fs from 'node:fs';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { contract } from '../../src/shared/contract/index.js';
import { handleIpcCall } from '../../src/main/transport/ipc.js';
import { startTrainingServer, type TrainingServer } from './training-fixture.js';

let s: TrainingServer;
let modelId: string;
let client: OpenAI;

beforeAll(async () => {
  s = await startTrainingServer();
  const m = await s.req('POST', '/v1/preview/models', { entity: null, project: 'api', name: 'tiny', base_model: 'loupe-test-bytes' });
  expect(m.status).toBe(200);
  modelId = m.body.id;
  client = new OpenAI({ baseURL: `${s.url}/v1`, apiKey: s.key });
});
afterAll(async () => s?.close());

describe('chat completions through the official openai client', () => {
  test.each([['latest', () => 'local/api/tiny'], [':step0', () => 'wandb-artifact:///local/api/tiny:step0'], ['model id', () => modelId]])(
    'plain completion from %s has per-token logprobs',
    async (_label, ref) => {
      const r = await client.chat.completions.create({ model: ref(), messages: [{ role: 'user', content: 'hello' }], max_tokens: 6, logprobs: true, seed: 7 });
      expect(r.object).toBe('chat.completion');
      expect(r.choices).toHaveLength(1);
      const lp = r.choices[0]!.logprobs!.content!;
      expect(lp.length).toBeGreaterThan(0);
      expect(lp.length).toBeLessThanOrEqual(6);
      for (const t of lp) {
        expect(t.token).toMatch(/^token_id:\d+$/);
        expect(t.logprob).toBeLessThanOrEqual(0);
      }
      expect(r.usage!.completion_tokens).toBe(lp.length);
    },
  );

  test('streamed completion: content arrives in chunks and logprobs are present', async () => {
    const stream = await client.chat.completions.create({
      model: 'local/api/tiny:step0',
      messages: [{ role: 'user', content: 'hello' }],
      max_tokens: 8,
      stream: true,
      logprobs: true,
      seed: 3,
    });
    let text = '';
    let chunks = 0;
    const logprobs: { token: string; logprob: number }[] = [];
    let finish: string | null = null;
    for await (const c of stream) {
      chunks++;
      expect(c.object).toBe('chat.completion.chunk');
      const ch = c.choices[0];
      if (!ch) continue;
      text += ch.delta.content ?? '';
      logprobs.push(...(ch.logprobs?.content ?? []));
      finish = ch.finish_reason ?? finish;
    }
    expect(chunks).toBeGreaterThan(2);
    expect(finish === 'stop' || finish === 'length').toBe(true);
    expect(logprobs.length).toBeGreaterThan(0);
    expect(logprobs.every((t) => /^token_id:\d+$/.test(t.token))).toBe(true);
    // The same seed without streaming gives the same text: the stream is that completion, chunked.
    const plain = await client.chat.completions.create({ model: 'local/api/tiny:step0', messages: [{ role: 'user', content: 'hello' }], max_tokens: 8, seed: 3 });
    expect(text).toBe(plain.choices[0]!.message.content);
  });

  test('n, stop and temperature 0 are honoured; /v1/chat/completions/ is the same operation', async () => {
    const r = await s.req('POST', '/v1/chat/completions/', { model: modelId, messages: [{ role: 'user', content: 'x' }], n: 3, max_tokens: 5, temperature: 0 });
    expect(r.status).toBe(200);
    expect(r.body.choices).toHaveLength(3);
    const texts = r.body.choices.map((c: { message: { content: string } }) => c.message.content);
    expect(new Set(texts).size).toBe(1); // greedy: every choice identical
  });

  test('each completion is recorded as a chat span in the model project, unless switched off', async () => {
    const spans = () => s.loupe.ctx.store.meta.listProjects().find((p) => p.project_id === 'local/api')?.span_count ?? 0;
    const before = spans();
    await client.chat.completions.create({ model: modelId, messages: [{ role: 'user', content: 'rec' }], max_tokens: 3 });
    expect(spans()).toBe(before + 1);
    const off = await s.req('POST', '/training/settings', { record_completions: false });
    expect(off.body.record_completions).toBe(false);
    await client.chat.completions.create({ model: modelId, messages: [{ role: 'user', content: 'rec' }], max_tokens: 3 });
    expect(spans()).toBe(before + 1);
    await s.req('POST', '/training/settings', { record_completions: true });
  });

  test('unknown model or step → 404', async () => {
    await expect(client.chat.completions.create({ model: 'local/api/nope', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ status: 404 });
    const r = await s.req('POST', '/v1/chat/completions', { model: 'local/api/tiny:step99', messages: [{ role: 'user', content: 'x' }] });
    expect(r.status).toBe(404);
    expect(r.body.detail).toMatch(/step 99/);
  });
});

describe('auth', () => {
  const protectedOps = Object.entries(contract).filter(([, d]) => d.auth === 'key');
  test('every protected operation answers 401 without a key and with a wrong key', async () => {
    expect(protectedOps.length).toBeGreaterThanOrEqual(11);
    for (const [name, def] of protectedOps) {
      const p = def.path.replace(/:[a-z_]+/g, modelId);
      const body = def.method === 'GET' ? undefined : {};
      for (const key of [null, 'wrong-key']) {
        const r = await s.req(def.method, p, body, key);
        expect(r.status, `${name} with key ${key}`).toBe(401);
        expect(typeof r.body.detail).toBe('string');
      }
    }
  });
  test('health and system-check need no key', async () => {
    const h = await s.req('GET', '/v1/health', undefined, null);
    expect(h).toMatchObject({ status: 200, body: { status: 'ok' } });
    const pkg = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(h.body.version).toBe(pkg.version);
    // The body is the check object itself whatever the status (semantics §9.8); 503 when one fails.
    const c = await s.req('GET', '/v1/system-check', undefined, null);
    const accel = await s.loupe.ctx.training!.engine.accelerator();
    expect(Object.keys(c.body).sort()).toEqual(['api', 'cpu_queue', 'database', 'gpu_queue']);
    expect(c.body).toMatchObject({ api: true, database: true, cpu_queue: { success: true, error: null } });
    expect(c.body.cpu_queue.duration).toBeGreaterThanOrEqual(0);
    expect(c.body.gpu_queue).toEqual({ success: accel.available, duration: expect.any(Number), error: accel.available ? null : accel.reason });
    expect(c.status).toBe(accel.available ? 200 : 503);
  });
  test('system-check with the trainer gone: 503 and the check object (not a detail string), over HTTP and IPC', async () => {
    const ctx = s.loupe.ctx;
    const training = ctx.training;
    ctx.training = undefined; // what a server whose trainer failed to start looks like
    try {
      const c = await s.req('GET', '/v1/system-check', undefined, null);
      expect(c.status).toBe(503);
      expect(c.body.detail).toBeUndefined();
      expect(c.body).toEqual({
        api: true,
        database: true,
        cpu_queue: { success: false, duration: expect.any(Number), error: 'the trainer is not started' },
        gpu_queue: { success: false, duration: expect.any(Number), error: 'the trainer is not started' },
      });
      // IPC has no status line: an error with the same status, a one-line detail and the body.
      const ipc = await handleIpcCall(ctx, 'training.systemCheck', {});
      expect(ipc.ok).toBe(false);
      if (ipc.ok) return;
      expect(ipc.error.status).toBe(503);
      expect(ipc.error.detail).toBe('System check failed — cpu_queue: the trainer is not started; gpu_queue: the trainer is not started');
      expect(ipc.error.body).toMatchObject({ api: true, database: true, cpu_queue: { success: false, error: 'the trainer is not started' } });
    } finally {
      ctx.training = training;
    }
    expect((await s.req('GET', '/v1/system-check', undefined, null)).body.cpu_queue.success).toBe(true);
    // /openapi.json documents the 503 with the same schema as the 200.
    const doc = (await s.req('GET', '/openapi.json', undefined, null)).body;
    const get = doc.paths['/v1/system-check'].get;
    expect(get.responses['503'].content['application/json'].schema).toEqual(get.responses['200'].content['application/json'].schema);
  });
});

describe('models and checkpoints', () => {
  test('return_existing answers the same model; without it a duplicate is 409; entity null is local', async () => {
    const body = { entity: null, project: 'api', name: 'dup', base_model: 'loupe-test-bytes', return_existing: true };
    const a = await s.req('POST', '/v1/preview/models', body);
    const b = await s.req('POST', '/v1/preview/models', body);
    expect(a.body.entity).toBe('local');
    expect(b.body.id).toBe(a.body.id);
    const c = await s.req('POST', '/v1/preview/models', { ...body, return_existing: false });
    expect(c.status).toBe(409);
  });

  test('unknown base_model → 400 listing the available ones', async () => {
    const r = await s.req('POST', '/v1/preview/models', { project: 'api', name: 'x', base_model: 'gpt-17' });
    expect(r.status).toBe(400);
    expect(r.body.detail).toMatch(/loupe-test-bytes/);
    expect(r.body.detail).toMatch(/loupe-tiny-bytes/);
  });

  test('unknown model or job → 404 on every model/job operation', async () => {
    const id = '00000000-0000-0000-0000-000000000000';
    const calls: [string, string, unknown][] = [
      ['GET', `/v1/preview/models/${id}/checkpoints`, undefined],
      ['DELETE', `/v1/preview/models/${id}/checkpoints`, { steps: [1] }],
      ['DELETE', `/v1/preview/models/${id}`, undefined],
      ['POST', `/v1/preview/models/${id}/log`, { split: 'val', trajectory_groups: [] }],
      ['POST', '/v1/preview/training-jobs', { model_id: id, trajectory_groups: [] }],
      ['POST', '/v1/preview/sft-training-jobs', { model_id: id, training_data_url: '/tmp/x.jsonl' }],
      ['GET', `/v1/preview/training-jobs/${id}`, undefined],
      ['GET', `/v1/preview/training-jobs/${id}/events`, undefined],
    ];
    for (const [method, p, body] of calls) {
      const r = await s.req(method, p, body);
      expect(r.status, `${method} ${p}`).toBe(404);
      expect(r.body.detail).toContain(id);
    }
  });

  test('malformed trajectory groups → 422 naming the field', async () => {
    const r = await s.req('POST', '/v1/preview/training-jobs', {
      model_id: modelId,
      trajectory_groups: [{ trajectories: [{ messages_and_choices: [{ role: 'user', content: 'q' }], reward: 'high' }] }],
    });
    expect(r.status).toBe(422);
    expect(r.body.detail).toContainEqual(expect.objectContaining({ loc: ['body', 'trajectory_groups', 0, 'trajectories', 0, 'reward'] }));
    const r2 = await s.req('POST', `/v1/preview/models/${modelId}/log`, { split: 'val', trajectory_groups: [{}] });
    expect(r2.status).toBe(422);
    expect(r2.body.detail).toContainEqual(expect.objectContaining({ loc: ['body', 'trajectory_groups', 0, 'trajectories'], type: 'missing' }));
  });

  test('checkpoint pages: exclusive after cursor, limit, order; deleting the latest → 409 and nothing deleted', async () => {
    const m = (await s.req('POST', '/v1/preview/models', { project: 'api', name: 'pages', base_model: 'loupe-test-bytes' })).body;
    // Three empty RL jobs advance the step without training (semantics §9.4).
    for (let i = 0; i < 3; i++) {
      const j = await s.req('POST', '/v1/preview/training-jobs', { model_id: m.id, trajectory_groups: [] });
      expect(j.status).toBe(200);
    }
    await s.loupe.ctx.training!.runner.idle();
    const all = (await s.req('GET', `/v1/preview/models/${m.id}/checkpoints`)).body;
    expect(all.data.map((c: { step: number }) => c.step)).toEqual([0, 1, 2, 3]);
    expect(all.has_more).toBe(false);
    const p1 = (await s.req('GET', `/v1/preview/models/${m.id}/checkpoints?limit=2&order=desc`)).body;
    expect(p1.data.map((c: { step: number }) => c.step)).toEqual([3, 2]);
    expect(p1.has_more).toBe(true);
    const p2 = (await s.req('GET', `/v1/preview/models/${m.id}/checkpoints?limit=2&order=desc&after=${p1.last_id}`)).body;
    expect(p2.data.map((c: { step: number }) => c.step)).toEqual([1, 0]);
    expect(p2.has_more).toBe(false);
    expect((await s.req('GET', `/v1/preview/models/${m.id}/checkpoints?limit=0`)).status).toBe(422);
    expect((await s.req('GET', `/v1/preview/models/${m.id}/checkpoints?limit=101`)).status).toBe(422);

    const bad = await s.req('DELETE', `/v1/preview/models/${m.id}/checkpoints`, { steps: [1, 3] });
    expect(bad.status).toBe(409);
    expect((await s.req('GET', `/v1/preview/models/${m.id}/checkpoints`)).body.data).toHaveLength(4);
    const ok = await s.req('DELETE', `/v1/preview/models/${m.id}/checkpoints`, { steps: [1, 2, 7] });
    expect(ok.body).toEqual({ deleted_count: 2, not_found_steps: [7] });
    const left = (await s.req('GET', `/v1/preview/models/${m.id}/checkpoints`)).body.data.map((c: { step: number }) => c.step);
    expect(left).toEqual([0, 3]);

    const del = await s.req('DELETE', `/v1/preview/models/${m.id}`);
    expect(del.body).toEqual({ model_id: m.id, deleted_checkpoints: 2, deleted_run: true });
    expect((await s.req('GET', `/v1/preview/models/${m.id}/checkpoints`)).status).toBe(404);
  });
});
