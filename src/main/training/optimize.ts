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
      const b = makeBatch(batches[i]!);
      const denom = Math.max(1, b.trainableTokens);
      let entropy: tf.Tensor | null = null;
      const { value, grads } = tf.variableGrads(() => {
        const logp = tf.logSoftmax(forward(cfg, vars, b.x));
        const tokLogp = logp.mul(tf.oneHot(b.y, cfg.vocabSize)).sum(-1);
        entropy = tf.keep(logp.exp().mul(logp).sum(-1).mul(b.mask).sum().neg().div(denom));
        return summedLoss(kind, tokLogp, b).div<tf.Scalar>(denom);
      }, varList);
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
        num_trainable_tokens: b.trainableTokens,
        entropy: (entropy as tf.Tensor | null)?.dataSync()[0] ?? 0,
      };
      tf.dispose([value, entropy as tf.Tensor | null].filter((x): x is tf.Tensor => x !== null));
      tf.dispose(Object.values(grads));
      b.dispose();
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
