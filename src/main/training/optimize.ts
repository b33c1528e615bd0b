/**
 * One optimisation loop shared by SFT and RL: for each batch, the loss's gradient w.r.t. every
 * weight, global-norm clipping, an Adam step, and the step's metrics. Weights are copied into fresh
 * tf.Variables (unnamed: TF.js refuses two variables with one name) and returned for saving, with
 * the Adam moments, so the next job of the model continues from them (docs/trainer.md).
 */
import * as tf from '@tensorflow/tfjs';
import type { ModelConfig } from './config.js';
import type { StepMetrics } from './engine.js';
import { forward, type Weights } from './model.js';
import { makeBatch, type Batch, type TrainSeq } from './batch.js';

/** Per-token loss from the target tokens' logprobs [B,T]; the caller divides by trainable tokens. */
export type LossKind = 'sft' | 'cispo' | 'ppo';

/** Gradients above this global norm are scaled down: keeps a tiny model stable at Adam's larger steps. */
const MAX_GRAD_NORM = 1.0;
const BETA1 = 0.9;
const BETA2 = 0.999;
const EPSILON = 1e-8;

/** Adam's state: step count and first/second moments per weight name (same names as the weights). */
export interface AdamState {
  t: number;
  m: Weights;
  v: Weights;
}

/** Identity whose gradient is zero: CISPO's importance weight must not be differentiated. */
const stopGradient = tf.customGrad(((x: tf.Tensor) => ({
  value: x.clone(),
  gradFunc: (dy: tf.Tensor) => tf.zerosLike(dy),
})) as unknown as Parameters<typeof tf.customGrad>[0]);

function summedLoss(kind: LossKind, tokLogp: tf.Tensor, b: Batch): tf.Tensor {
  if (kind === 'sft') return tokLogp.mul(b.mask).sum().neg();
  const ratio = tokLogp.sub(b.oldLogp).exp();
  if (kind === 'cispo') {
    // ε_low 1.0, ε_high 4.0: weight clipped to [0, 5], gradient only through logp_new.
    const wgt = stopGradient(ratio.clipByValue<tf.Tensor>(1 - 1.0, 1 + 4.0));
    return wgt.mul(b.advantage).mul(tokLogp).mul(b.mask).sum().neg();
  }
  const surr = tf.minimum(ratio.mul(b.advantage), ratio.clipByValue(0.8, 1.2).mul(b.advantage));
  return surr.mul(b.mask).sum().neg();
}

/** Between steps: whether to stop (abort) and whether to let inference run first (yield). */
export interface StepGate {
  signal?: AbortSignal;
  /** Resolves when the step may start (the worker waits while completions are being served). */
  beforeStep?: () => Promise<void>;
}

export class JobAborted extends Error {}

/**
 * How many attention scores (sequences × length², per head and layer) one forward/backward pass may
 * hold. Attention's memory and time grow with the square of the length: a batch of 8 sequences of
 * 256 tokens (every batch of the 256-token models) is one pass as before, longer sequences are split
 * into passes whose gradients are summed (the same step: the loss is a mean over the whole batch),
 * so a 2,048-token sequence runs alone (~3 GB at its peak; 8 together would need ~24 GB).
 */
export const ATTENTION_BUDGET = 8 * 256 * 256;

/** Consecutive runs of the batch whose padded length² × count stays within the budget (at least one sequence each). */
export function microBatches(seqs: TrainSeq[], budget = ATTENTION_BUDGET): TrainSeq[][] {
  const out: TrainSeq[][] = [];
  let cur: TrainSeq[] = [];
  let longest = 0;
  for (const s of seqs) {
    const len = Math.max(longest, s.tokens.length - 1);
    if (cur.length > 0 && (cur.length + 1) * len * len > budget) {
      out.push(cur);
      cur = [];
      longest = 0;
    }
    cur.push(s);
    longest = Math.max(longest, s.tokens.length - 1);
  }
  if (cur.length > 0) out.push(cur);
  return out;
}

function checkAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new JobAborted(String(signal.reason ?? 'the job was cancelled'));
}

export async function optimize(
  cfg: ModelConfig,
  base: Weights,
  batches: TrainSeq[][],
  learningRates: number[],
  kind: LossKind,
  onStep: (m: StepMetrics) => void,
  state: AdamState | null,
  gate: StepGate = {},
  attentionBudget = ATTENTION_BUDGET,
): Promise<{ weights: Weights; adam: AdamState }> {
  const names = Object.keys(base);
  const vars: Record<string, tf.Variable> = {};
  const m: Record<string, tf.Variable> = {};
  const v: Record<string, tf.Variable> = {};
  for (const name of names) {
    vars[name] = tf.variable(base[name]!, true);
    // Moments carried over from the previous job of this model when the shapes still match.
    const pm = state?.m[name];
    const pv = state?.v[name];
    const fits = pm && pv && pm.shape.join() === base[name]!.shape.join();
    m[name] = tf.variable(fits ? pm : tf.zerosLike(base[name]!), false);
    v[name] = tf.variable(fits ? pv : tf.zerosLike(base[name]!), false);
  }
  let t = state?.t ?? 0;
  const varList = names.map((n) => vars[n]!);
  const dropAll = () => tf.dispose([...varList, ...Object.values(m), ...Object.values(v)]);
  try {
    for (let i = 0; i < batches.length; i++) {
      checkAborted(gate.signal);
      await gate.beforeStep?.();
      checkAborted(gate.signal);
      const lr = learningRates[i]!;
      const seqs = batches[i]!;
      // The loss is a mean over the whole batch's trainable tokens, whichever micro-batch they are in.
      const trainable = seqs.reduce((a, s) => a + s.mask.reduce((x, y) => x + y, 0), 0);
      const denom = Math.max(1, trainable);
      let acc: { value: tf.Tensor; entropy: tf.Tensor; grads: Record<string, tf.Tensor> } | null = null;
      // Gradients are summed over micro-batches (one when the batch is short: the usual case).
      for (const part of microBatches(seqs, attentionBudget)) {
        const b = makeBatch(part);
        let entropy: tf.Tensor | null = null;
        const r = tf.variableGrads(() => {
          const logp = tf.logSoftmax(forward(cfg, vars, b.x));
          const tokLogp = logp.mul(tf.oneHot(b.y, cfg.vocabSize)).sum(-1);
          entropy = tf.keep(logp.exp().mul(logp).sum(-1).mul(b.mask).sum().neg().div(denom));
          return summedLoss(kind, tokLogp, b).div<tf.Scalar>(denom);
        }, varList);
        b.dispose();
        const one = { value: r.value as tf.Tensor, entropy: entropy as unknown as tf.Tensor, grads: r.grads as Record<string, tf.Tensor> };
        if (acc === null) {
          acc = one;
          continue;
        }
        const prev: typeof one = acc;
        acc = {
          value: tf.add(prev.value, one.value),
          entropy: tf.add(prev.entropy, one.entropy),
          grads: Object.fromEntries(Object.keys(prev.grads).map((k) => [k, tf.add(prev.grads[k]!, one.grads[k]!)])),
        };
        tf.dispose([prev.value, prev.entropy, one.value, one.entropy, ...Object.values(prev.grads), ...Object.values(one.grads)]);
      }
      if (acc === null) throw new Error('an empty batch has nothing to train'); // batches are never empty (train.ts chunks)
      const { value, entropy, grads } = acc;
      // variableGrads keys its result by the variables' (auto) names.
      const gradOf = (name: string) => grads[vars[name]!.name]!;
      const normT = tf.tidy(() => tf.addN(names.map((n) => gradOf(n).square().sum())).sqrt());
      const gradNorm = normT.dataSync()[0]!;
      normT.dispose();
      const scale = gradNorm > MAX_GRAD_NORM ? MAX_GRAD_NORM / gradNorm : 1;
      t += 1;
      const c1 = 1 - BETA1 ** t;
      const c2 = 1 - BETA2 ** t;
      tf.tidy(() => {
        for (const name of names) {
          const g = scale === 1 ? gradOf(name) : gradOf(name).mul(scale);
          const mNew = m[name]!.mul(BETA1).add(g.mul(1 - BETA1));
          const vNew = v[name]!.mul(BETA2).add(g.square().mul(1 - BETA2));
          m[name]!.assign(mNew);
          v[name]!.assign(vNew);
          vars[name]!.assign(vars[name]!.sub(mNew.div(c1).div(vNew.div(c2).sqrt().add(EPSILON)).mul(lr)));
        }
      });
      const metrics: StepMetrics = {
        loss: value.dataSync()[0]!,
        grad_norm: gradNorm,
        learning_rate: lr,
        num_trainable_tokens: trainable,
        entropy: entropy.dataSync()[0]!,
      };
      tf.dispose([value, entropy]);
      tf.dispose(Object.values(grads));
      onStep(metrics);
      // Yield so pings, cancels and completions sent to this worker are served between steps.
      await new Promise((r) => setImmediate(r));
    }
  } catch (e) {
    dropAll();
    throw e;
  }
  return { weights: vars, adam: { t, m, v } };
}
