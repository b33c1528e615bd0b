/**
 * Long sequences train in micro-batches (issue 22.14): a batch whose length² × count passes the
 * attention budget is split into passes whose gradients are summed, and the step is the same step
 * (weights, Adam moments, loss, entropy, trainable tokens) as one pass over the whole batch. The
 * 256-token models' batches (8 × 256) stay one pass.
 */
import * as tf from '@tensorflow/tfjs';
import { expect, test } from 'vitest';
import { ATTENTION_BUDGET, microBatches, optimize } from '../../src/main/training/optimize.js';
import { initWeights } from '../../src/main/training/model.js';
import { VOCAB_SIZE, type ModelConfig } from '../../src/main/training/config.js';
import type { TrainSeq } from '../../src/main/training/batch.js';
import type { StepMetrics } from '../../src/main/training/engine.js';

const seq = (len: number, k: number): TrainSeq => ({
  tokens: Array.from({ length: len + 1 }, (_, i) => (i * 7 + k * 13) % 256),
  mask: Array.from({ length: len }, (_, i) => (i >= len / 2 ? 1 : 0)),
  oldLogp: Array.from({ length: len }, () => -5.5),
  advantage: k % 2 ? 1 : -1,
});

test('micro-batches: 8 × 256 is one pass; longer sequences split by length² × count, never below one sequence', () => {
  expect(microBatches(Array.from({ length: 8 }, (_, k) => seq(256, k))).map((p) => p.length)).toEqual([8]);
  expect(microBatches(Array.from({ length: 8 }, (_, k) => seq(512, k))).map((p) => p.length)).toEqual([2, 2, 2, 2]);
  expect(microBatches([seq(2048, 0), seq(10, 1), seq(10, 2)]).map((p) => p.length)).toEqual([1, 2]);
  expect(microBatches([seq(10, 1), seq(2048, 0)]).map((p) => p.length)).toEqual([1, 1]); // the padded length counts
  expect(ATTENTION_BUDGET).toBe(8 * 256 * 256);
});

test('a step split into micro-batches equals the step taken in one pass (SFT and CISPO)', async () => {
  await tf.setBackend('cpu');
  const cfg: ModelConfig = { vocabSize: VOCAB_SIZE, contextLength: 64, dModel: 16, nLayers: 1, nHeads: 2, dFF: 32, seed: 7 };
  const batches = [[seq(40, 0), seq(25, 1), seq(60, 2)], [seq(50, 3), seq(30, 4)]];
  for (const kind of ['sft', 'cispo'] as const) {
    const run = async (budget: number) => {
      const base = initWeights(cfg);
      const steps: StepMetrics[] = [];
      const out = await optimize(cfg, base, batches, [1e-2, 1e-2], kind, (m) => steps.push(m), null, {}, budget);
      const read = (w: Record<string, tf.Tensor>) => Object.fromEntries(Object.entries(w).map(([k, t]) => [k, Array.from(t.dataSync())]));
      const res = { steps, weights: Object.values(read(out.weights)), m: Object.values(read(out.adam.m)), t: out.adam.t };
      tf.dispose([...Object.values(base), ...Object.values(out.weights), ...Object.values(out.adam.m), ...Object.values(out.adam.v)]);
      return res;
    };
    const whole = await run(Infinity);
    const split = await run(40 * 40); // every sequence alone
    expect(split.t).toBe(whole.t);
    split.steps.forEach((s, i) => {
      const w = whole.steps[i]!;
      expect(s.num_trainable_tokens).toBe(w.num_trainable_tokens);
      expect(s.loss).toBeCloseTo(w.loss, 5);
      expect(s.entropy).toBeCloseTo(w.entropy!, 5);
      expect(s.grad_norm).toBeCloseTo(w.grad_norm, 5);
    });
    split.weights.forEach((arr, i) => arr.forEach((x, j) => expect(Math.abs(x - whole.weights[i]![j]!)).toBeLessThan(1e-5)));
    split.m.forEach((arr, i) => arr.forEach((x, j) => expect(Math.abs(x - whole.m[i]![j]!)).toBeLessThan(1e-6)));
    expect(split.steps.map((s) => s.num_trainable_tokens)).toEqual([20 + 12 + 30, 25 + 15]);
  }
}, 120_000);
