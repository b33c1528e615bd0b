/**
 * A small decoder-only transformer (pre-norm, learned positions, tied input/output embedding) written
 * with TensorFlow.js ops rather than tf.layers: the forward pass is a plain function of a weight map,
 * so one code path serves sampling, SFT and RL, and checkpoints are just the named weights.
 */
import * as tf from '@tensorflow/tfjs';
import type { ModelConfig } from './config.js';

export type Weights = Record<string, tf.Tensor>;

interface ParamSpec {
  name: string;
  shape: number[];
  init: 'normal' | 'zeros' | 'ones';
  std?: number;
}

function paramSpecs(cfg: ModelConfig): ParamSpec[] {
  const { dModel: d, dFF, nLayers, vocabSize, contextLength } = cfg;
  // GPT-2 style: small normal init, residual output projections scaled down by depth.
  const residualStd = 0.02 / Math.sqrt(2 * nLayers);
  const specs: ParamSpec[] = [
    { name: 'tok_emb', shape: [vocabSize, d], init: 'normal', std: 0.02 },
    { name: 'pos_emb', shape: [contextLength, d], init: 'normal', std: 0.01 },
  ];
  for (let l = 0; l < nLayers; l++) {
    const p = `h${l}.`;
    specs.push(
      { name: p + 'ln1_g', shape: [d], init: 'ones' },
      { name: p + 'ln1_b', shape: [d], init: 'zeros' },
      { name: p + 'w_qkv', shape: [d, 3 * d], init: 'normal', std: 0.02 },
      { name: p + 'b_qkv', shape: [3 * d], init: 'zeros' },
      { name: p + 'w_o', shape: [d, d], init: 'normal', std: residualStd },
      { name: p + 'b_o', shape: [d], init: 'zeros' },
      { name: p + 'ln2_g', shape: [d], init: 'ones' },
      { name: p + 'ln2_b', shape: [d], init: 'zeros' },
      { name: p + 'w_1', shape: [d, dFF], init: 'normal', std: 0.02 },
      { name: p + 'b_1', shape: [dFF], init: 'zeros' },
      { name: p + 'w_2', shape: [dFF, d], init: 'normal', std: residualStd },
      { name: p + 'b_2', shape: [d], init: 'zeros' },
    );
  }
  specs.push({ name: 'lnf_g', shape: [d], init: 'ones' }, { name: 'lnf_b', shape: [d], init: 'zeros' });
  return specs;
}

/** Step-0 weights: each tensor drawn with its own seed derived from the config seed (deterministic). */
export function initWeights(cfg: ModelConfig): Weights {
  const out: Weights = {};
  paramSpecs(cfg).forEach((s, i) => {
    out[s.name] =
      s.init === 'normal'
        ? tf.randomNormal(s.shape, 0, s.std ?? 0.02, 'float32', cfg.seed * 1000 + i)
        : s.init === 'ones'
          ? tf.ones(s.shape)
          : tf.zeros(s.shape);
  });
  return out;
}

/** Checks a loaded weight map against the config so a corrupt checkpoint fails with a clear message. */
export function checkWeights(cfg: ModelConfig, w: Weights, where: string): void {
  for (const s of paramSpecs(cfg)) {
    const t = w[s.name];
    if (!t) throw new Error(`${where}: weight "${s.name}" is missing`);
    if (t.shape.join('x') !== s.shape.join('x')) {
      throw new Error(`${where}: weight "${s.name}" has shape [${t.shape.join(', ')}] but the config needs [${s.shape.join(', ')}]`);
    }
  }
}

function layerNorm(x: tf.Tensor, g: tf.Tensor, b: tf.Tensor): tf.Tensor {
  const { mean, variance } = tf.moments(x, -1, true);
  return x.sub(mean).div(variance.add(1e-5).sqrt()).mul(g).add(b);
}

/** tanh-free GELU approximation x·σ(1.702x): TF.js has no gelu op, and this one has a cheap gradient. */
function gelu(x: tf.Tensor): tf.Tensor {
  return x.mul(tf.sigmoid(x.mul(1.702)));
}

function w(weights: Weights, name: string): tf.Tensor {
  const t = weights[name];
  if (!t) throw new Error(`weight "${name}" is missing`);
  return t;
}

/** Keys and values of earlier positions, per layer ([B, H, length, hd]), for incremental decoding. */
export interface KvCache {
  k: tf.Tensor[];
  v: tf.Tensor[];
  length: number;
}

/** Logits [B, T, V] for int32 token ids [B, T] (T ≤ contextLength). Call inside tf.tidy. */
export function forward(cfg: ModelConfig, weights: Weights, ids: tf.Tensor2D): tf.Tensor3D {
  return forwardCached(cfg, weights, ids, null).logits;
}

/**
 * The forward pass over new tokens `ids` [B, T] that follow `cache.length` earlier positions (none
 * when cache is null); returns their logits and the cache extended by them. With `lastOnly` only the
 * last position's logits are projected (sampling needs nothing else). past + T ≤ contextLength.
 * Call inside tf.tidy and keep the returned cache.
 */
export function forwardCached(
  cfg: ModelConfig,
  weights: Weights,
  ids: tf.Tensor2D,
  cache: KvCache | null,
  lastOnly = false,
): { logits: tf.Tensor3D; cache: KvCache } {
  const [B, T] = ids.shape;
  const past = cache?.length ?? 0;
  const d = cfg.dModel;
  const H = cfg.nHeads;
  const hd = d / H;
  const tokEmb = w(weights, 'tok_emb');
  // Embedding lookup as one-hot × matrix: the wasm backend has no gradient kernel for gather
  // (UnsortedSegmentSum), and at this vocabulary size the matmul costs little.
  const emb = tf.oneHot(ids.reshape([B * T]), cfg.vocabSize).matMul(tokEmb).reshape([B, T, d]);
  let h = emb.add<tf.Tensor>(w(weights, 'pos_emb').slice([past, 0], [T, d]));
  // Causal mask [T, past+T]: new position i (absolute past+i) sees keys j ≤ past+i; large negative elsewhere.
  const mask = tf.linalg.bandPart(tf.ones([T, past + T]), -1, past).sub(1).mul(1e9);
  const next: KvCache = { k: [], v: [], length: past + T };
  for (let l = 0; l < cfg.nLayers; l++) {
    const p = `h${l}.`;
    const a = layerNorm(h, w(weights, p + 'ln1_g'), w(weights, p + 'ln1_b')).reshape([B * T, d]);
    const qkv = a.matMul(w(weights, p + 'w_qkv')).add(w(weights, p + 'b_qkv')).reshape([B, T, 3, H, hd]);
    const [q, kNew, vNew] = tf.unstack(qkv.transpose([2, 0, 3, 1, 4])) as [tf.Tensor, tf.Tensor, tf.Tensor]; // each [B,H,T,hd]
    const k = cache ? tf.concat([cache.k[l]!, kNew], 2) : kNew;
    const v = cache ? tf.concat([cache.v[l]!, vNew], 2) : vNew;
    next.k.push(k);
    next.v.push(v);
    const att = tf.softmax(tf.matMul(q, k, false, true).mul(1 / Math.sqrt(hd)).add(mask));
    const y = tf.matMul(att, v).transpose([0, 2, 1, 3]).reshape([B * T, d]);
    h = h.add(y.matMul(w(weights, p + 'w_o')).add(w(weights, p + 'b_o')).reshape([B, T, d]));
    const m = layerNorm(h, w(weights, p + 'ln2_g'), w(weights, p + 'ln2_b')).reshape([B * T, d]);
    const ff = gelu(m.matMul(w(weights, p + 'w_1')).add(w(weights, p + 'b_1'))).matMul(w(weights, p + 'w_2')).add(w(weights, p + 'b_2'));
    h = h.add(ff.reshape([B, T, d]));
  }
  const Tout = lastOnly ? 1 : T;
  if (lastOnly) h = h.slice([0, T - 1, 0], [B, 1, d]);
  const out = layerNorm(h, w(weights, 'lnf_g'), w(weights, 'lnf_b')).reshape([B * Tout, d]);
  return { logits: out.matMul(tokEmb, false, true).reshape<tf.Tensor3D>([B, Tout, cfg.vocabSize]), cache: next };
}
