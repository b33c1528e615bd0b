/**
 * One optimisation loop shared by SFT and RL: for each batch, the loss's gradient w.r.t. every
 * weight, global-norm clipping, an Adam step, and the step's metrics. Weights are copied into fresh
 * tf.Variables (unnamed: TF.js refuses two variables with one name) and returned for saving.
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
    const wgt = stopGradient(ratio.clipByValue(1 - 1.0, 1 + 4.0) as tf.Tensor) as tf.Tensor;
    return wgt.mul(b.advantage).mul(tokLogp).mul(b.mask).sum().neg();
  }
  const surr = tf.minimum(ratio.mul(b.advantage), ratio.clipByValue(0.8, 1.2).mul(b.advantage));
  return surr.mul(b.mask).sum().neg();
}

export async function optimize(
  cfg: ModelConfig,
  base: Weights,
  batches: TrainSeq[][],
  learningRates: number[],
  kind: LossKind,
  onStep: (m: StepMetrics) => void,
): Promise<Weights> {
  const vars: Record<string, tf.Variable> = {};
  for (const [name, t] of Object.entries(base)) vars[name] = tf.variable(t, true);
  const varList = Object.values(vars);
  const optimizer = tf.train.adam(learningRates[0] ?? 1e-3, 0.9, 0.999, 1e-8);
  try {
    for (let i = 0; i < batches.length; i++) {
      const lr = learningRates[i]!;
      // AdamOptimizer reads its learningRate field on every step; a schedule just sets it.
      (optimizer as unknown as { learningRate: number }).learningRate = lr;
      const b = makeBatch(batches[i]!);
      const denom = Math.max(1, b.trainableTokens);
      let entropy: tf.Tensor | null = null;
      const { value, grads } = tf.variableGrads(() => {
        const logp = tf.logSoftmax(forward(cfg, vars, b.x));
        const tokLogp = logp.mul(tf.oneHot(b.y, cfg.vocabSize)).sum(-1);
        entropy = tf.keep(logp.exp().mul(logp).sum(-1).mul(b.mask).sum().neg().div(denom));
        return summedLoss(kind, tokLogp, b).div(denom) as tf.Scalar;
      }, varList);
      const normT = tf.tidy(() => tf.addN(Object.values(grads).map((g) => g.square().sum())).sqrt());
      const gradNorm = normT.dataSync()[0]!;
      normT.dispose();
      const scale = gradNorm > MAX_GRAD_NORM ? MAX_GRAD_NORM / gradNorm : 1;
      const scaled = scale === 1 ? grads : tf.tidy(() => Object.fromEntries(Object.entries(grads).map(([k, g]) => [k, g.mul(scale)])));
      optimizer.applyGradients(scaled as unknown as Record<string, tf.Variable>); // keys are the variables' names
      const metrics: StepMetrics = {
        loss: value.dataSync()[0]!,
        grad_norm: gradNorm,
        learning_rate: lr,
        num_trainable_tokens: b.trainableTokens,
        entropy: (entropy as tf.Tensor | null)?.dataSync()[0] ?? 0,
      };
      tf.dispose([value, entropy as tf.Tensor | null].filter((t): t is tf.Tensor => t !== null));
      tf.dispose(Object.values(grads));
      if (scaled !== grads) tf.dispose(Object.values(scaled));
      b.dispose();
      onStep(metrics);
      // Yield so pings and completions sent to this worker are served between steps.
      await new Promise((r) => setImmediate(r));
    }
  } catch (e) {
    tf.dispose(varList);
    throw e;
  } finally {
    optimizer.dispose();
  }
  return vars;
}
