/**
 * The job runner through dispatch (the IPC path: trusted, no key) on a real store and the real
 * trainer: status transitions, one job at a time per model in order, the checkpoint visible before
 * training_ended, and `job.step` only once a job completed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { openStores, type Stores } from '../../src/main/store/index.js';
import { EventBus } from '../../src/main/service/events.js';
import type { ServiceContext } from '../../src/main/service/context.js';
import { startTrainingRuntime } from '../../src/main/service/training/runtime.js';
import { dispatch } from '../../src/main/transport/dispatch.js';

let ctx: ServiceContext;
let store: Stores;
let dataDir: string;
const call = (name: string, input: unknown): Promise<any> => dispatch(name, input, ctx, { trusted: true });

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-runner-'));
  store = await openStores(dataDir);
  ctx = { traces: store.traces, app: store.app, events: new EventBus(), dataDir, apiKey: 'k' };
  await startTrainingRuntime(ctx);
});
afterAll(async () => {
  await ctx.training?.close();
  await store.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test('jobs of one model run one at a time in order; the checkpoint exists when training_ended is emitted', async () => {
  const m = await call('training.createModel', { project: 'unit', name: 'runner', base_model: 'loupe-test-bytes' });
  expect(fs.existsSync(path.join(dataDir, 'models', m.id, 'step0'))).toBe(true);
  const data = path.join(dataDir, 'd.jsonl');
  fs.writeFileSync(data, Array.from({ length: 8 }, (_, i) => JSON.stringify({ messages: [{ role: 'user', content: `q${i}` }, { role: 'assistant', content: `a${i}` }] })).join('\n'));

  const seenAtEnd: Promise<{ job: string; steps: number[] }>[] = [];
  const statuses: string[] = [];
  const off = ctx.events.on((e) => {
    if (e.type === 'job.event' && e.event.type === 'training_ended') {
      // Read at emission (the SQLite AppStore queries when called): the new checkpoint must already be in the store.
      seenAtEnd.push(store.app.training.listCheckpoints(m.id).then((cs) => ({ job: e.job_id, steps: cs.map((c) => c.step) })));
    }
    if (e.type === 'job.status') statuses.push(`${e.job_id.slice(0, 4)}:${e.status}`);
  });
  const a = await call('training.createSftJob', { model_id: m.id, training_data_url: data, config: { batch_size: 4 } });
  const b = await call('training.createSftJob', { model_id: m.id, training_data_url: data, config: { batch_size: 4 } });
  const queued = await call('training.getJob', { job_id: b.id });
  expect(queued).toMatchObject({ status: 'QUEUED', step: null, training_start: null, training_end: null, error_message: null });
  await ctx.training!.runner.idle();
  off();

  const ja = await call('training.getJob', { job_id: a.id });
  const jb = await call('training.getJob', { job_id: b.id });
  expect([ja.status, jb.status]).toEqual(['COMPLETED', 'COMPLETED']);
  expect([ja.step, jb.step]).toEqual([1, 2]);
  expect(Date.parse(jb.training_start)).toBeGreaterThanOrEqual(Date.parse(ja.training_end));
  expect(await Promise.all(seenAtEnd)).toEqual([
    { job: a.id, steps: [0, 1] },
    { job: b.id, steps: [0, 1, 2] },
  ]);
  const A = a.id.slice(0, 4);
  const B = b.id.slice(0, 4);
  // B may be queued before or after A starts (submission checks its file asynchronously); it runs after A ends.
  expect(statuses.filter((x) => x !== `${B}:QUEUED`)).toEqual([`${A}:QUEUED`, `${A}:RUNNING`, `${A}:COMPLETED`, `${B}:RUNNING`, `${B}:COMPLETED`]);
  expect(statuses.indexOf(`${B}:QUEUED`)).toBeLessThan(statuses.indexOf(`${B}:RUNNING`));
  // Checkpoint metrics are the averaged step metrics.
  const ev = await call('training.jobEvents', { job_id: b.id, limit: 100 });
  const losses = ev.data.filter((e: { type: string }) => e.type === 'gradient_step').map((e: { data: { loss: number } }) => e.data.loss);
  const ck = (await store.app.training.checkpointByStep(m.id, 2))!;
  expect(ck.metrics.loss).toBeCloseTo(losses.reduce((x: number, y: number) => x + y, 0) / losses.length, 6);
  expect(fs.existsSync(path.join(dataDir, 'models', m.id, 'step2', 'weights.bin'))).toBe(true);
}, 60_000);

test('an RL job whose groups have no signal still ends and advances the step with the same weights', async () => {
  const m = await call('training.createModel', { project: 'unit', name: 'flat', base_model: 'loupe-test-bytes' });
  const traj = { messages_and_choices: [{ role: 'user', content: 'q' }, { role: 'assistant', content: 'a' }], reward: 1 };
  const j = await call('training.createRlJob', { model_id: m.id, trajectory_groups: [{ trajectories: [traj, traj] }] });
  await ctx.training!.runner.idle();
  const ev = await call('training.jobEvents', { job_id: j.id });
  expect(ev.data.map((e: { type: string; data: unknown }) => [e.type, e.data])).toEqual([
    // The job says what it runs and at which rate (issue 22.12/22.14).
    ['training_started', {
      learning_rate: { applied: 0.001, how: 'default', sent: null },
      model: { base_model: 'loupe-test-bytes', runtime_model: 'loupe-test-bytes', substituted: false },
      num_sequences: 0,
    }],
    ['training_ended', {}],
  ]);
  const w0 = fs.readFileSync(path.join(dataDir, 'models', m.id, 'step0', 'weights.bin'));
  const w1 = fs.readFileSync(path.join(dataDir, 'models', m.id, 'step1', 'weights.bin'));
  expect(w1.equals(w0)).toBe(true);
});
