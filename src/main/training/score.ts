/**
 * Teacher-forced logprobs of given completion tokens after a prompt: one full forward pass, the
 * same computation training uses. Lets callers (and tests) check the logprobs sampling returned.
 */
import * as tf from '@tensorflow/tfjs';
import type { ModelConfig } from './config.js';
import type { ChatMessage } from './engine.js';
import { forward, type Weights } from './model.js';
import { encodeChat } from './tokenizer.js';

export function scoreCompletion(cfg: ModelConfig, weights: Weights, prompt: ChatMessage[], completion: number[]): number[] {
  const full = [...encodeChat(prompt, { addGenerationPrompt: true }).tokens, ...completion];
  const window = full.slice(-(cfg.contextLength + 1));
  const scored = Math.min(completion.length, window.length - 1);
  const T = window.length - 1;
  const out = tf.tidy(() => {
    const logp = tf.logSoftmax(forward(cfg, weights, tf.tensor2d([window.slice(0, T)], [1, T], 'int32')));
    return logp.mul(tf.oneHot(tf.tensor2d([window.slice(1)], [1, T], 'int32'), cfg.vocabSize)).sum(-1);
  });
  const all = Array.from(out.dataSync());
  out.dispose();
  return all.slice(T - scored);
}
