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
    const spans = async () => (await s.loupe.ctx.traces.projects()).find((p) => p.project_id === 'local/api')?.span_count ?? 0;
    const before = await spans();
    await client.chat.completions.create({ model: modelId, messages: [{ role: 'user', content: 'rec' }], max_tokens: 3 });
    expect(await spans()).toBe(before + 1);
    const off = await s.req('POST', '/training/settings', { record_completions: false });
    expect(off.body.record_completions).toBe(false);
    await client.chat.completions.create({ model: modelId, messages: [{ role: 'user', content: 'rec' }], max_tokens: 3 });
    expect(await spans()).toBe(before + 1);
    await s.req('POST', '/training/settings', { record_completions: true });
  });

  test('errors are OpenAI-shaped, so the openai client shows Loupe\'s message: unknown model 404, bad field 400', async () => {
    const err = await client.chat.completions.create({ model: 'local/api/nope', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect((err as InstanceType<typeof OpenAI.NotFoundError>).message).toContain('The model `local/api/nope` does not exist');
    expect((err as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('model_not_found');
    const r = await s.req('POST', '/v1/chat/completions', { model: 'local/api/tiny:step99', messages: [{ role: 'user', content: 'x' }] });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ error: { message: 'Checkpoint step 99 not found for model local/api/tiny:step99', type: 'invalid_request_error', param: 'model', code: 'model_not_found' } });
    const bad = await client.chat.completions.create({ model: modelId, messages: [{ role: 'user', content: 'x' }], temperature: 7 }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(OpenAI.BadRequestError);
    expect((bad as InstanceType<typeof OpenAI.BadRequestError>).message).toMatch(/^400 temperature: /);
    expect((bad as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('temperature');
    const noKey = await new OpenAI({ baseURL: `${s.url}/v1`, apiKey: 'wrong' }).chat.completions.create({ model: modelId, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(noKey).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((noKey as Error).message).toContain('Missing or invalid API key');
  });

  test('a prompt beyond the context window is a 400 like vLLM, never silently truncated', async () => {
    // loupe-test-bytes has a 96-token window; a prompt of 60 bytes plus 50 completion tokens does not fit.
    const long = 'a'.repeat(60);
    const err = await client.chat.completions.create({ model: modelId, messages: [{ role: 'user', content: long }], max_tokens: 50 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('context_length_exceeded');
    expect((err as Error).message).toContain("This model's maximum context length is 96 tokens. However, you requested 113 tokens (63 in the messages, 50 in the completion)");
    const tooLong = await s.req('POST', '/v1/chat/completions', { model: modelId, messages: [{ role: 'user', content: 'b'.repeat(200) }] });
    expect(tooLong.status).toBe(400);
    // Without max_tokens the rest of the window is the budget.
    const r = await client.chat.completions.create({ model: modelId, messages: [{ role: 'user', content: long }], seed: 1 });
    expect(r.usage!.prompt_tokens).toBe(63);
    expect(r.usage!.completion_tokens).toBeLessThanOrEqual(96 - 63);
  });

  test('top_p: a tiny nucleus samples the most likely token, as greedy decoding does', async () => {
    const base = { model: modelId, messages: [{ role: 'user' as const, content: 'nucleus' }], max_tokens: 6 };
    const greedy = await client.chat.completions.create({ ...base, temperature: 0 });
    for (const seed of [1, 2, 3]) {
      const r = await client.chat.completions.create({ ...base, temperature: 1, top_p: 1e-6, seed });
      expect(r.choices[0]!.message.content).toBe(greedy.choices[0]!.message.content);
    }
    expect((await s.req('POST', '/v1/chat/completions', { ...base, top_p: 0 })).status).toBe(400);
  });

  test('stop strings: logprobs cover exactly the tokens of the returned text, also streamed delta by delta', async () => {
    const base = { model: modelId, messages: [{ role: 'user' as const, content: 'stop test' }], max_tokens: 30, seed: 11, logprobs: true };
    const free = await client.chat.completions.create(base);
    const freeText = free.choices[0]!.message.content!;
    expect(freeText.length).toBeGreaterThan(3);
    const stop = freeText.slice(2, 3); // a character that occurs: the text is cut before it
    const r = await client.chat.completions.create({ ...base, stop: [stop] });
    const text = r.choices[0]!.message.content!;
    expect(text).toBe(freeText.slice(0, freeText.indexOf(stop)));
    const lp = r.choices[0]!.logprobs!.content!;
    const bytes = lp.flatMap((t) => t.bytes ?? []);
    expect(Buffer.from(bytes).toString('utf8')).toBe(text);
    expect(r.choices[0]!.finish_reason).toBe('stop');
    // Streamed: each delta's logprobs are the bytes of that delta's text.
    const stream = await client.chat.completions.create({ ...base, stop: [stop], stream: true });
    const streamed: number[] = [];
    let joined = '';
    for await (const c of stream) {
      const ch = c.choices[0];
      if (!ch) continue;
      const deltaBytes = (ch.logprobs?.content ?? []).flatMap((t) => t.bytes ?? []);
      if (ch.delta.content) expect(Buffer.from(deltaBytes).toString('utf8')).toBe(ch.delta.content);
      streamed.push(...deltaBytes);
      joined += ch.delta.content ?? '';
    }
    expect(joined).toBe(text);
    expect(streamed).toEqual(bytes);
  });

  test('tools: tool_choice "required" or a named function gives tool_calls with that name and JSON arguments', async () => {
    const tools = [
      { type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
      { type: 'function' as const, function: { name: 'send_mail', parameters: { type: 'object' } } },
    ];
    const base = { model: modelId, messages: [{ role: 'user' as const, content: 'Weather in Paris?' }], tools, max_tokens: 60 };
    // An untrained model: the constraint alone makes every answer a call (closing it when the budget runs low).
    for (const seed of [1, 2, 3, 4]) {
      const named = await client.chat.completions.create({ ...base, seed, tool_choice: { type: 'function', function: { name: 'send_mail' } } });
      const ch = named.choices[0]!;
      expect(ch.finish_reason).toBe('tool_calls');
      expect(ch.message.content).toBeNull();
      expect(ch.message.tool_calls!.length).toBeGreaterThanOrEqual(1);
      for (const c of ch.message.tool_calls!) {
        expect(c.type).toBe('function');
        const fn = (c as { function: { name: string; arguments: string } }).function;
        expect(fn.name).toBe('send_mail');
        expect(typeof JSON.parse(fn.arguments)).toBe('object');
      }
      const required = await client.chat.completions.create({ ...base, seed, tool_choice: 'required' });
      const rc = required.choices[0]!;
      expect(rc.finish_reason).toBe('tool_calls');
      for (const c of rc.message.tool_calls!) {
        const fn = (c as { function: { name: string; arguments: string } }).function;
        expect(['get_weather', 'send_mail']).toContain(fn.name);
        expect(typeof JSON.parse(fn.arguments)).toBe('object');
      }
    }
    // Streamed: the call arrives as a tool_calls delta.
    const stream = await client.chat.completions.create({ ...base, seed: 5, tool_choice: 'required', stream: true });
    const deltas: unknown[] = [];
    let finish: string | null = null;
    for await (const c of stream) {
      deltas.push(...(c.choices[0]?.delta.tool_calls ?? []));
      finish = c.choices[0]?.finish_reason ?? finish;
    }
    expect(finish).toBe('tool_calls');
    expect(deltas.length).toBeGreaterThanOrEqual(1);
    const bad = await s.req('POST', '/v1/chat/completions', { ...base, tool_choice: { type: 'function', function: { name: 'nope' } } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('tool_choice');
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
        expect(typeof (def.errorShape === 'openai' ? r.body.error.message : r.body.detail)).toBe('string');
      }
    }
  });
  test('health and system-check need no key', async () => {
    const h = await s.req('GET', '/v1/health', undefined, null);
    expect(h).toMatchObject({ status: 200, body: { status: 'ok' } });
    const pkg = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(h.body.version).toBe(pkg.version);
    // The body is the check object itself whatever the status (semantics §9.8). On the CPU trainer
    // the GPU check is not applicable, not failed: 200, so scripts can use it as readiness.
    const c = await s.req('GET', '/v1/system-check', undefined, null);
    const accel = await s.loupe.ctx.training!.engine.accelerator();
    expect(accel.available).toBe(false);
    expect(c.status).toBe(200);
    expect(Object.keys(c.body).sort()).toEqual(['api', 'backends', 'cpu_queue', 'database', 'gpu_queue']);
    expect(c.body).toMatchObject({ api: true, database: true, cpu_queue: { success: true, error: null, applicable: true }, backends: [] });
    expect(c.body.cpu_queue.duration).toBeGreaterThanOrEqual(0);
    expect(c.body.gpu_queue).toEqual({ success: true, duration: expect.any(Number), error: null, applicable: false, detail: accel.reason });
    expect(accel.reason).toMatch(/no GPU backend/);
    // A configured remote backend that does not answer is reported, without failing local readiness.
    await s.req('POST', '/training/settings', { put_backends: [{ name: 'down', base_url: 'http://127.0.0.1:9', api_key: 'k' }] });
    const withBackend = await s.req('GET', '/v1/system-check', undefined, null);
    expect(withBackend.status).toBe(200);
    expect(withBackend.body.backends).toEqual([{ name: 'down', success: false, duration: expect.any(Number), error: expect.stringContaining('unreachable') }]);
    await s.req('POST', '/training/settings', { remove_backends: ['down'] });
  });
  test('system-check with the trainer gone: 503 and the check object (not a detail string), over HTTP and IPC', async () => {
    const ctx = s.loupe.ctx;
    const training = ctx.training;
    ctx.training = undefined; // what a server whose trainer failed to start looks like
    try {
      const c = await s.req('GET', '/v1/system-check', undefined, null);
      expect(c.status).toBe(503);
      expect(c.body.detail).toBeUndefined();
      const failed = { success: false, duration: expect.any(Number), error: 'the trainer is not started', applicable: true, detail: null };
      expect(c.body).toEqual({ api: true, database: true, cpu_queue: failed, gpu_queue: failed, backends: [] });
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

  test('any base_model name is accepted; one the built-in trainer lacks is served by the fallback, and runtime_model says which', async () => {
    const r = await s.req('POST', '/v1/preview/models', { project: 'api', name: 'qwen', base_model: 'OpenPipe/Qwen3-14B-Instruct' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ base_model: 'OpenPipe/Qwen3-14B-Instruct', runtime_model: 'loupe-tiny-bytes-2k' });
    const own = await s.req('POST', '/v1/preview/models', { project: 'api', name: 'own', base_model: 'loupe-test-bytes' });
    expect(own.body.runtime_model).toBe('loupe-test-bytes');
    // The fallback is a setting (only built-in names).
    expect((await s.req('POST', '/training/settings', { fallback_base_model: 'gpt-17' })).status).toBe(422);
    expect((await s.req('POST', '/training/settings', { fallback_base_model: 'loupe-test-bytes' })).body.fallback_base_model).toBe('loupe-test-bytes');
    const small = await s.req('POST', '/v1/preview/models', { project: 'api', name: 'llama', base_model: 'meta-llama/Llama-3.1-8B-Instruct' });
    expect(small.body.runtime_model).toBe('loupe-test-bytes');
    await s.req('POST', '/training/settings', { fallback_base_model: 'loupe-tiny-bytes-2k' });
    // The completion says which model runs in system_fingerprint.
    const c = await client.chat.completions.create({ model: 'local/api/llama', messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 });
    expect(c.system_fingerprint).toBe('loupe-test-bytes-step0'); // one prefix (issue 22.15)
    // Listed models carry it too.
    const list = (await s.req('GET', '/v1/preview/models?project=api&limit=100')).body.data;
    expect(list.find((m: { name: string }) => m.name === 'qwen').runtime_model).toBe('loupe-tiny-bytes-2k');
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
