/**
 * A remote trainer backend: server A (the app) binds a model to server B (another Loupe speaking the
 * same training API). Jobs are submitted to B, their events and checkpoints mirrored into A, and
 * inference is forwarded.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTrainingServer, waitForJob, type TrainingServer } from './training-fixture.js';

let a: TrainingServer;
let b: TrainingServer;
beforeAll(async () => {
  [a, b] = await Promise.all([startTrainingServer(), startTrainingServer()]);
});
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
});

test('settings keep the backend key write-only, in the secrets store, never in the database', async () => {
  const r = await a.req('POST', '/training/settings', { put_backends: [{ name: 'gpu', base_url: `${b.url}/`, api_key: b.key }] });
  expect(r.status).toBe(200);
  expect(r.body.backends).toEqual([{ name: 'gpu', base_url: b.url }]);
  expect(JSON.stringify((await a.req('GET', '/training/settings')).body)).not.toContain(b.key);
  expect((await a.loupe.ctx.app.training.getBackend('gpu'))?.api_key).toBe('');
  expect(a.loupe.ctx.secrets!.get('training.backend.gpu.api_key')).toBe(b.key);
  // A key an older Loupe stored in the database moves to the secrets store at the next start.
  await a.loupe.ctx.app.training.putBackend({ name: 'old', base_url: 'http://127.0.0.1:9', api_key: 'legacy-key' });
  await a.loupe.ctx.training!.remote.moveKeysToSecrets();
  expect((await a.loupe.ctx.app.training.getBackend('old'))?.api_key).toBe('');
  expect(a.loupe.ctx.secrets!.get('training.backend.old.api_key')).toBe('legacy-key');
  await a.req('POST', '/training/settings', { remove_backends: ['old'] });
  expect(a.loupe.ctx.secrets!.get('training.backend.old.api_key')).toBeNull();
  const bad = await a.req('POST', '/training/settings', { put_backends: [{ name: 'x y', base_url: 'ftp://h', api_key: 'k' }] });
  expect(bad.status).toBe(422);
  expect(bad.body.detail.map((d: { loc: (string | number)[] }) => d.loc.slice(-1)[0]).sort()).toEqual(['base_url', 'name']);
});

test('a remote model: jobs, events and checkpoints mirrored, inference forwarded, delete forwarded', async () => {
  const m = await a.req('POST', '/v1/preview/models', { entity: 'lab', project: 'remote', name: 'r1', base_model: 'remote:gpu/loupe-test-bytes' });
  expect(m.status).toBe(200);
  const onB = (await b.req('POST', '/v1/preview/models', { entity: 'lab', project: 'remote', name: 'r1', base_model: 'loupe-test-bytes', return_existing: true })).body;
  const ckA = (await a.req('GET', `/v1/preview/models/${m.body.id}/checkpoints`)).body.data;
  const ckB = (await b.req('GET', `/v1/preview/models/${onB.id}/checkpoints`)).body.data;
  expect(ckA).toEqual(ckB);
  expect(fs.existsSync(path.join(a.dataDir, 'models', m.body.id))).toBe(false); // weights stay on B

  const data = path.join(a.dataDir, 'remote.jsonl');
  const lines = Array.from({ length: 16 }, (_, i) => JSON.stringify({ messages: [{ role: 'user', content: `q${i % 4}` }, { role: 'assistant', content: `a${i % 4}` }] }));
  fs.writeFileSync(data, lines.join('\n'));
  const job = await a.req('POST', '/v1/preview/sft-training-jobs', { model_id: m.body.id, training_data_url: data, config: { batch_size: 4 } });
  const events = await waitForJob(a, job.body.id);
  expect(events.map((e) => e.type)).toEqual(['training_started', 'gradient_step', 'gradient_step', 'gradient_step', 'gradient_step', 'training_ended']);
  const jobA = (await a.req('GET', `/v1/preview/training-jobs/${job.body.id}`)).body;
  expect(jobA).toMatchObject({ status: 'COMPLETED', step: 1, model_id: m.body.id });
  // B ran it: the same gradient steps are in B's job.
  const remoteJobId = (await a.loupe.ctx.app.training.getJob(job.body.id))!.remote_job_id!;
  const eventsB = await waitForJob(b, remoteJobId);
  expect(eventsB.filter((e) => e.type === 'gradient_step').map((e) => e.data)).toEqual(events.filter((e) => e.type === 'gradient_step').map((e) => e.data));
  const ckA1 = (await a.req('GET', `/v1/preview/models/${m.body.id}/checkpoints?order=desc&limit=1`)).body.data[0];
  const ckB1 = (await b.req('GET', `/v1/preview/models/${onB.id}/checkpoints?order=desc&limit=1`)).body.data[0];
  expect(ckA1).toEqual(ckB1);
  expect(ckA1.step).toBe(1);

  const ask = { messages: [{ role: 'user', content: 'q1' }], max_tokens: 6, temperature: 0 };
  const viaA = await a.req('POST', '/v1/chat/completions', { ...ask, model: 'lab/remote/r1:step1' });
  const onBdirect = await b.req('POST', '/v1/chat/completions', { ...ask, model: `${onB.id}:step1` });
  expect(viaA.status).toBe(200);
  expect(viaA.body.choices[0].message.content).toBe(onBdirect.body.choices[0].message.content);
  expect(viaA.body.choices[0].logprobs.content).toEqual(onBdirect.body.choices[0].logprobs.content);

  // /log is forwarded as sent (B stores the metrics on its checkpoint), and stored here too.
  const traj = (r: number) => ({ messages_and_choices: [{ role: 'user', content: 'q' }, { role: 'assistant', content: 'a' }], reward: r });
  expect((await a.req('POST', `/v1/preview/models/${m.body.id}/log`, { split: 'val', trajectory_groups: [{ trajectories: [traj(1), traj(0)] }] })).status).toBe(200);
  const logged = (await b.req('GET', `/v1/preview/models/${onB.id}/checkpoints?order=desc&limit=1`)).body.data[0];
  expect(logged.metrics['val/reward']).toBe(0.5);

  // An SFT job on a dataset uploads that version to B and trains on B's copy.
  const up = await fetch(`${a.url}/v1/preview/datasets?entity=lab&project=remote&name=shared`, { method: 'POST', headers: { authorization: `Bearer ${a.key}` }, body: lines.join('\n') });
  expect(up.status).toBe(200);
  const dsJob = await a.req('POST', '/v1/preview/sft-training-jobs', { model_id: m.body.id, training_data_url: 'wandb-artifact:///lab/remote/shared:v0', config: { batch_size: 8 } });
  expect((await waitForJob(a, dsJob.body.id)).at(-1)!.type).toBe('training_ended');
  expect((await b.req('GET', '/v1/preview/datasets?entity=lab&name=shared')).body.data).toMatchObject([{ version: 'v0', lines: 16 }]);

  // A remote failure is mirrored with its message.
  fs.writeFileSync(data, `${lines[0]}\nnot json\n`);
  const badJob = await a.req('POST', '/v1/preview/sft-training-jobs', { model_id: m.body.id, training_data_url: data });
  const badEvents = await waitForJob(a, badJob.body.id);
  expect(badEvents.at(-1)).toMatchObject({ type: 'training_failed', data: { error_message: expect.stringMatching(/line 2: not valid JSON/) } });

  const del = await a.req('DELETE', `/v1/preview/models/${m.body.id}`);
  expect(del.body).toMatchObject({ model_id: m.body.id, deleted_checkpoints: 3 });
  expect((await b.req('GET', `/v1/preview/models/${onB.id}/checkpoints`)).status).toBe(404);
}, 120_000);

test('an unknown backend or an unreachable one is a clear error', async () => {
  const r = await a.req('POST', '/v1/preview/models', { project: 'remote', name: 'x', base_model: 'remote:nope/loupe-test-bytes' });
  expect(r.status).toBe(400);
  expect(r.body.detail).toMatch(/Unknown remote backend "nope"; configured: gpu/);
  await a.req('POST', '/training/settings', { put_backends: [{ name: 'dead', base_url: 'http://127.0.0.1:9', api_key: 'k' }] });
  const d = await a.req('POST', '/v1/preview/models', { project: 'remote', name: 'y', base_model: 'remote:dead/loupe-test-bytes' });
  expect(d.status).toBe(502);
  expect(d.body.detail).toMatch(/unreachable/);
  const wrongKey = await a.req('POST', '/training/settings', { put_backends: [{ name: 'gpu2', base_url: b.url, api_key: 'wrong' }] });
  expect(wrongKey.status).toBe(200);
  const w = await a.req('POST', '/v1/preview/models', { project: 'remote', name: 'z', base_model: 'remote:gpu2/loupe-test-bytes' });
  expect(w.status).toBe(502);
  expect(w.body.detail).toMatch(/remote backend "gpu2": Missing or invalid API key \(check the API key/);
});
