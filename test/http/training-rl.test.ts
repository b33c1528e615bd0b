/**
 * The hosted client's flow, step by step, against a real server and the real trainer, on a toy
 * task: reward 1 when the answer starts with "a". A short SFT warm-up teaches the fresh model to
 * answer with a word starting with a, b, c or d (so about a quarter of answers earn the reward);
 * then RL steps must raise the mean reward.
 *
 * The test of "rises by more than chance": the rewards of 256 sampled answers (8 fixed prompts ×
 * 32, fixed seeds) before and after RL are compared with a one-sided two-proportion z-test; it
 * must give z > 3.09, i.e. p < 0.001 that a model which did not improve would score this high.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTrainingServer, waitForJob, type TrainingServer } from './training-fixture.js';

let s: TrainingServer;
beforeAll(async () => {
  s = await startTrainingServer();
});
afterAll(async () => s?.close());

const PROMPTS = Array.from({ length: 8 }, (_, i) => `Say a word (${i + 1}).`);
const WORDS = ['apple', 'bread', 'cloud', 'dream'];
const reward = (text: string) => (text.startsWith('a') ? 1 : 0);

async function complete(model: string, prompt: string, n: number, seed?: number) {
  const r = await s.req('POST', '/v1/chat/completions', { model, messages: [{ role: 'user', content: prompt }], n, max_tokens: 2, temperature: 1, seed });
  expect(r.status).toBe(200);
  return r.body.choices as { message: { content: string }; logprobs: unknown; finish_reason: string; index: number }[];
}

async function meanReward(model: string): Promise<{ mean: number; n: number }> {
  let sum = 0;
  let n = 0;
  for (const [i, p] of PROMPTS.entries()) {
    for (const c of await complete(model, p, 32, 1000 + i)) {
      sum += reward(c.message.content);
      n++;
    }
  }
  return { mean: sum / n, n };
}

/** Polls every second with the `after` cursor, as the hosted client does. */
async function pollEvery1s(jobId: string) {
  return waitForJob(s, jobId, 1000);
}

test('create → step → roll out → RL job → poll events → new step; mean reward rises beyond chance', async () => {
  const create = { entity: null, project: 'rl', name: 'letter-a', base_model: 'loupe-test-bytes', return_existing: true };
  const m1 = (await s.req('POST', '/v1/preview/models', create)).body;
  const m2 = (await s.req('POST', '/v1/preview/models', create)).body;
  expect(m2.id).toBe(m1.id);
  const stepOf = async () => {
    const r = await s.req('GET', `/v1/preview/models/${m1.id}/checkpoints?order=desc&limit=1`);
    expect(r.status).toBe(200);
    return r.body.data[0].step as number;
  };
  expect(await stepOf()).toBe(0);

  // Warm-up: answers start with a, b, c or d equally often.
  const lines = [];
  for (let k = 0; k < 3; k++) for (const p of PROMPTS) for (const w of WORDS) lines.push(JSON.stringify({ messages: [{ role: 'user', content: p }, { role: 'assistant', content: w }] }));
  const data = path.join(s.dataDir, 'warmup.jsonl');
  fs.writeFileSync(data, lines.join('\n'));
  const warm = await s.req('POST', '/v1/preview/sft-training-jobs', { model_id: m1.id, training_data_url: `file://${data}`, config: { batch_size: 8, loupe_learning_rate: 3e-3 } });
  expect((await pollEvery1s(warm.body.id)).at(-1)!.type).toBe('training_ended');
  const base = await stepOf();
  expect(base).toBe(1);
  const ref = (step: number) => `wandb-artifact:///local/rl/letter-a:step${step}`;
  const before = await meanReward(ref(base));

  const STEPS = 4;
  for (let k = 0; k < STEPS; k++) {
    const step = await stepOf();
    const groups = [];
    for (const p of PROMPTS) {
      const choices = await complete(`local/rl/letter-a:step${step}`, p, 8);
      groups.push({
        trajectories: choices.map((c) => ({ messages_and_choices: [{ role: 'user', content: p }, c], reward: reward(c.message.content), metrics: {} })),
      });
    }
    const logged = await s.req('POST', `/v1/preview/models/${m1.id}/log`, { split: 'train', trajectory_groups: groups });
    expect(logged).toEqual({ status: 200, body: {} });
    const job = await s.req('POST', '/v1/preview/training-jobs', { model_id: m1.id, trajectory_groups: groups, experimental_config: {} });
    expect(job.status).toBe(200);
    const events = await pollEvery1s(job.body.id);
    const types = events.map((e) => e.type);
    expect(types[0]).toBe('training_started');
    expect(types.at(-1)).toBe('training_ended');
    expect(types.slice(1, -1).every((t) => t === 'gradient_step')).toBe(true);
    expect(await stepOf()).toBe(step + 1);
    const j = (await s.req('GET', `/v1/preview/training-jobs/${job.body.id}`)).body;
    expect(j).toMatchObject({ status: 'COMPLETED', kind: 'rl', model_id: m1.id, step: step + 1, error_message: null });
  }
  const after = await meanReward(ref(base + STEPS));
  const pooled = (before.mean * before.n + after.mean * after.n) / (before.n + after.n);
  const z = (after.mean - before.mean) / Math.sqrt(pooled * (1 - pooled) * (1 / before.n + 1 / after.n));
  console.log(`toy RL: mean reward ${before.mean.toFixed(3)} → ${after.mean.toFixed(3)} over ${after.n} samples, z = ${z.toFixed(2)}`);
  expect(z).toBeGreaterThan(3.09);

  // /log attached the split metrics to the checkpoint that produced the rollouts.
  const ck = (await s.req('GET', `/v1/preview/models/${m1.id}/checkpoints?order=asc`)).body.data;
  const logged = ck.find((c: { step: number }) => c.step === base);
  expect(logged.metrics['train/reward']).toBeGreaterThanOrEqual(0);
  expect(logged.metrics).toHaveProperty('train/reward_std_dev');
  expect(logged.metrics).toHaveProperty('train/exception_rate', 0);
  // Trained checkpoints carry the averaged step metrics.
  expect(ck.at(-1).metrics.num_trainable_tokens).toBeGreaterThan(0);
}, 240_000);
