/**
 * Turns token sequences into padded training tensors. Sequences are right-padded: with causal
 * attention a pad never influences an earlier position, so no attention mask is needed, and the
 * loss mask (0 on pads) keeps pads out of the gradient.
 */
import * as tf from '@tensorflow/tfjs';
import { SPECIAL, type ModelConfig } from './config.js';

export interface TrainSeq {
  /** Full sequence; the model predicts tokens[1..] from tokens[..-1]. */
  tokens: number[];
  /** Per target token (length tokens.length - 1): loss weight 0/1. */
  mask: number[];
  /** RL only: per target token, the logprob recorded when it was sampled (0 where mask is 0). */
  oldLogp?: number[];
  /** RL only: the sequence's advantage. */
  advantage?: number;
}

/** Keeps the last contextLength+1 tokens (the part with the answer) of an over-long sequence. */
export function clip(cfg: ModelConfig, s: TrainSeq): TrainSeq {
  const over = s.tokens.length - (cfg.contextLength + 1);
  if (over <= 0) return s;
  return {
    tokens: s.tokens.slice(over),
    mask: s.mask.slice(over),
    oldLogp: s.oldLogp?.slice(over),
    advantage: s.advantage,
  };
}

export interface Batch {
  x: tf.Tensor2D;
  y: tf.Tensor2D;
  mask: tf.Tensor2D;
  oldLogp: tf.Tensor2D;
  advantage: tf.Tensor2D;
  trainableTokens: number;
  dispose(): void;
}

export function makeBatch(seqs: TrainSeq[]): Batch {
  const T = Math.max(...seqs.map((s) => s.tokens.length - 1));
  const B = seqs.length;
  const x = new Int32Array(B * T).fill(SPECIAL.pad);
  const y = new Int32Array(B * T).fill(SPECIAL.pad);
  const m = new Float32Array(B * T);
  const old = new Float32Array(B * T);
  const adv = new Float32Array(B * T);
  let trainable = 0;
  seqs.forEach((s, b) => {
    for (let t = 0; t < s.tokens.length - 1; t++) {
      x[b * T + t] = s.tokens[t]!;
      y[b * T + t] = s.tokens[t + 1]!;
      m[b * T + t] = s.mask[t]!;
      old[b * T + t] = s.oldLogp?.[t] ?? 0;
      adv[b * T + t] = s.advantage ?? 0;
      trainable += s.mask[t]!;
    }
  });
  const batch = {
    x: tf.tensor2d(x, [B, T], 'int32'),
    y: tf.tensor2d(y, [B, T], 'int32'),
    mask: tf.tensor2d(m, [B, T]),
    oldLogp: tf.tensor2d(old, [B, T]),
    advantage: tf.tensor2d(adv, [B, T]),
    trainableTokens: trainable,
    dispose() {
      tf.dispose([batch.x, batch.y, batch.mask, batch.oldLogp, batch.advantage]);
    },
  };
  return batch;
}
