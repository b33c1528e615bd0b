/**
 * RL on a toy task: reward 1 when the answer starts with "A".
 *
 * Warm start: a short SFT teaches four prompts to answer with one of Apple/Banana/Cherry/Date, each
 * equally often, so the policy starts near P(A) = 1/4 (RL from random bytes would almost never see a
 * reward of 1). Then a few RL jobs: for each prompt a group of 16 samples from the current checkpoint,
 * advantage = (reward − group mean) / (group std + 1e-6), one `rl()` job per round.
 *
 * The statistical test: the mean reward is measured on the same fixed set of 4 prompts × 32 samples
 * (one seed per prompt, 1000..1003, n = 32, temperature 1) before and after. With k₀/128 and k₁/128
 * successes, a one-sided
 * two-proportion z-test must give z > 2.326 (p < 0.01): if training did nothing useful, both
 * evaluations draw from the same distribution and such a rise happens by chance less than 1 % of the
 * time. The bound does not depend on timing or on an exact number of successes.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBuiltinEngine, type BuiltinEngine } from '../../src/main/training/index.js';
import type { RlSample, StepMetrics } from '../../src/main/training/engine.js';
import { TEST_MODEL, tempRoot, user } from './trainer-fixtures.js';

const PROMPTS = ['Name a fruit.', 'Say a word.', 'Pick one.', 'Your answer?'];
const ANSWERS = ['Apple', 'Banana', 'Cherry', 'Date'];
const EVAL_N = 128;
const ROUNDS = 3;
const GROUP = 16;
const reward = (text: string): number => (text.startsWith('A') ? 1 : 0);

function zTwoProportions(k0: number, k1: number, n: number): number {
  const p0 = k0 / n;
  const p1 = k1 / n;
  const pooled = (k0 + k1) / (2 * n);
  const se = Math.sqrt(pooled * (1 - pooled) * (2 / n));
  return se === 0 ? 0 : (p1 - p0) / se;
}

describe('built-in trainer: RL', () => {
  let engine: BuiltinEngine;
  let root: string;
  const ck = (name: string) => path.join(root, name);

  async function evaluate(dir: string): Promise<number> {
    let hits = 0;
    for (const [pi, p] of PROMPTS.entries()) {
      const out = await engine.complete({ checkpointDir: dir, messages: user(p), temperature: 1, maxTokens: 8, n: EVAL_N / PROMPTS.length, seed: 1000 + pi });
      for (const c of out) hits += reward(c.text);
    }
    return hits;
  }

  beforeAll(async () => {
    engine = createBuiltinEngine();
    root = tempRoot('rl');
    await engine.initCheckpoint(TEST_MODEL, ck('step0'));
    const examples = [];
    for (let r = 0; r < 15; r++) for (const p of PROMPTS) for (const a of ANSWERS) examples.push({ messages: [...user(p), { role: 'assistant' as const, content: a }] });
    await engine.sft({ baseCheckpointDir: ck('step0'), outCheckpointDir: ck('warm'), examples, batchSize: 8, learningRate: 3e-3, onStep: () => {} });
  }, 300_000); // a cold worker and 20–30 SFT steps: ~85 s at load 12 on 2 cores (a limit, nothing here times anything)
  afterAll(async () => {
    await engine.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  for (const loss of ['cispo', 'ppo'] as const) {
    it(`${loss}: the mean reward rises by more than chance explains (one-sided z > 2.326)`, async () => {
      const before = await evaluate(ck('warm'));
      let current = ck('warm');
      const steps: StepMetrics[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const samples: RlSample[] = [];
        for (const [pi, p] of PROMPTS.entries()) {
          const group = await engine.complete({ checkpointDir: current, messages: user(p), temperature: 1, maxTokens: 8, n: GROUP, seed: 10 * round + pi });
          const rewards = group.map((c) => reward(c.text));
          const mean = rewards.reduce((a, b) => a + b, 0) / rewards.length;
          const std = Math.sqrt(rewards.reduce((a, r) => a + (r - mean) ** 2, 0) / rewards.length);
          group.forEach((c, i) =>
            samples.push({
              prompt: user(p),
              completionTokenIds: c.token_ids,
              sampledLogprobs: c.logprobs.map((l) => l.logprob),
              advantage: (rewards[i]! - mean) / (std + 1e-6),
            }),
          );
        }
        const next = ck(`${loss}-rl${round + 1}`);
        await engine.rl({ baseCheckpointDir: current, outCheckpointDir: next, samples, loss, onStep: (m) => steps.push(m) });
        current = next;
      }
      const after = await evaluate(current);
      const z = zTwoProportions(before, after, EVAL_N);
      console.log(`${loss}: reward ${before}/${EVAL_N} → ${after}/${EVAL_N}, z = ${z.toFixed(2)}, ${steps.length} gradient steps`);
      expect(steps.length).toBeGreaterThan(0);
      for (const m of steps) expect(Number.isFinite(m.loss) && m.learning_rate === 1e-3).toBe(true);
      expect(z).toBeGreaterThan(2.326);
    }, 240_000); // generous: the machine is shared; nothing here measures time
  }

  it('a job is the same whatever the timing: the same samples give byte-identical weights and Adam state, also while completions make every step wait', async () => {
    const samples: RlSample[] = [];
    for (const [pi, p] of PROMPTS.entries()) {
      const group = await engine.complete({ checkpointDir: ck('warm'), messages: user(p), temperature: 1, maxTokens: 8, n: 8, seed: 70 + pi });
      const rewards = group.map((c) => reward(c.text));
      const mean = rewards.reduce((a, b) => a + b, 0) / rewards.length;
      group.forEach((c, i) => samples.push({ prompt: user(p), completionTokenIds: c.token_ids, sampledLogprobs: c.logprobs.map((l) => l.logprob), advantage: rewards[i]! - mean + (i % 2 ? 0.25 : -0.25) }));
    }
    const job = async (out: string) => {
      const losses: number[] = [];
      await engine.rl({ baseCheckpointDir: ck('warm'), outCheckpointDir: ck(out), samples, loss: 'cispo', onStep: (m) => losses.push(m.loss) });
      return losses;
    };
    const quiet = await job('timing-quiet');
    // Completions in flight the whole time: before each step the job worker waits for them (up to
    // 2 s), so the steps start at other moments — and must compute the same thing.
    let served = 0;
    let busy = true;
    const load = (async () => {
      while (busy) {
        await engine.complete({ checkpointDir: ck('warm'), messages: user('Say a word.'), maxTokens: 24 });
        served++;
      }
    })();
    const contended = await job('timing-busy');
    busy = false;
    await load;
    expect(served).toBeGreaterThan(0);
    expect(quiet.length).toBe(4); // 32 samples, batches of 8
    expect(contended).toEqual(quiet);
    for (const f of ['weights.bin', 'optimizer.bin']) {
      expect(fs.readFileSync(path.join(ck('timing-busy'), f)).equals(fs.readFileSync(path.join(ck('timing-quiet'), f))), f).toBe(true);
    }
  }, 120_000);

  it('clips as specified: a far-off-policy token (ratio ≫ 1.2) gives PPO no gradient but CISPO a capped one', async () => {
    // sampled logprob −50 ⇒ ratio = exp(logp_new + 50) ≫ 5: PPO's min(r·A, 1.2·A) is the constant 1.2·A
    // (zero gradient); CISPO keeps the gradient of logp_new with the weight stopped at 1 + ε_high = 5.
    const [c] = await engine.complete({ checkpointDir: ck('warm'), messages: user('Pick one.'), temperature: 0, maxTokens: 8 });
    const samples: RlSample[] = [{ prompt: user('Pick one.'), completionTokenIds: c!.token_ids, sampledLogprobs: c!.token_ids.map(() => -50), advantage: 1 }];
    const norms: Record<string, number> = {};
    for (const loss of ['ppo', 'cispo'] as const) {
      await engine.rl({ baseCheckpointDir: ck('warm'), outCheckpointDir: ck(`clip-${loss}`), samples, loss, onStep: (m) => (norms[loss] = m.grad_norm) });
    }
    expect(norms.ppo).toBe(0);
    expect(norms.cispo).toBeGreaterThan(0);
  });

  it('rejects samples whose logprobs do not match their tokens, naming the sample', async () => {
    await expect(
      engine.rl({
        baseCheckpointDir: ck('warm'),
        outCheckpointDir: ck('bad'),
        samples: [{ prompt: user('x'), completionTokenIds: [65, 66], sampledLogprobs: [-1], advantage: 1 }],
        loss: 'cispo',
        onStep: () => {},
      }),
    ).rejects.toThrow(/samples\[0\]: 2 completion tokens but 1 sampled logprobs/);
  });
});
