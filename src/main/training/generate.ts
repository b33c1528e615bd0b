/**
 * Autoregressive sampling of `n` choices in one batch, with a KV cache while the sequence fits the
 * context (past it, each token re-runs a sliding window).
 * Logprobs are those of the model's own distribution (temperature 1), whatever temperature samples,
 * so that RL importance ratios compare like with like.
 */
import * as tf from '@tensorflow/tfjs';
import { SPECIAL, type ModelConfig } from './config.js';
import type { ChatMessage, GeneratedChoice, TokenLogprob } from './engine.js';
import { forwardCached, type KvCache, type Weights } from './model.js';
import { logSoftmax, pickToken, seededRandom, TextTracker, topK } from './sampling.js';
import { encodeChat } from './tokenizer.js';

export interface GenerateArgs {
  messages: ChatMessage[];
  temperature?: number;
  maxTokens?: number;
  n?: number;
  stop?: string[];
  seed?: number;
  topLogprobs?: number;
}

function tokenEntry(id: number, logprob: number): { token: string; logprob: number; bytes: number[] | null } {
  return { token: `token_id:${id}`, logprob, bytes: id < 256 ? [id] : null };
}

function checkArgs(a: GenerateArgs): void {
  const int = (v: number | undefined, name: string, min: number, max: number) => {
    if (v !== undefined && (!Number.isInteger(v) || v < min || v > max)) throw new Error(`${name} must be an integer in ${min}..${max}, got ${v}`);
  };
  if (!Array.isArray(a.messages)) throw new Error('messages must be an array of chat messages');
  int(a.n, 'n', 1, 128);
  int(a.maxTokens, 'max_tokens', 0, 4096);
  int(a.topLogprobs, 'top_logprobs', 0, 20);
  if (a.temperature !== undefined && !(Number.isFinite(a.temperature) && a.temperature >= 0)) {
    throw new Error(`temperature must be a number ≥ 0, got ${a.temperature}`);
  }
  if (a.stop !== undefined && (!Array.isArray(a.stop) || a.stop.some((s) => typeof s !== 'string'))) throw new Error('stop must be a list of strings');
}

export async function generate(
  cfg: ModelConfig,
  weights: Weights,
  args: GenerateArgs,
  onToken: (index: number, text: string) => void,
): Promise<GeneratedChoice[]> {
  checkArgs(args);
  const n = args.n ?? 1;
  const maxTokens = args.maxTokens ?? 64;
  const temperature = args.temperature ?? 1;
  const topN = args.topLogprobs ?? 0;
  const rand = seededRandom(args.seed ?? Math.floor(Math.random() * 2 ** 32));
  const prompt = encodeChat(args.messages, { addGenerationPrompt: true }).tokens;
  const choices = Array.from({ length: n }, () => ({
    seq: [...prompt],
    ids: [] as number[],
    logprobs: [] as TokenLogprob[],
    tracker: new TextTracker(args.stop ?? []),
    finish: null as 'stop' | 'length' | null,
  }));
  const V = cfg.vocabSize;
  let cache: KvCache | null = null;
  const dropCache = () => {
    if (cache) tf.dispose([...cache.k, ...cache.v]);
    cache = null;
  };
  /** Last-position logits [n, V] for every choice (finished ones too: the batch keeps its shape). */
  const nextLogits = (): Float32Array => {
    const len = choices[0]!.seq.length;
    let rows: tf.Tensor;
    if (len <= cfg.contextLength) {
      // KV cache: the prompt once, then one new token per step.
      const prev: KvCache | null = cache;
      const input = prev ? choices.map((c) => [c.seq[len - 1]!]) : choices.map((c) => c.seq);
      const res = tf.tidy(() => {
        const r = forwardCached(cfg, weights, tf.tensor2d(input, [n, input[0]!.length], 'int32'), prev, true);
        return { logits: r.logits.reshape([n, V]), k: r.cache.k, v: r.cache.v };
      });
      dropCache();
      cache = { k: res.k, v: res.v, length: len };
      rows = res.logits;
    } else {
      // Past the context: slide a window over the last contextLength tokens (positions restart at 0).
      dropCache();
      const window = choices.map((c) => c.seq.slice(-cfg.contextLength));
      rows = tf.tidy(() => forwardCached(cfg, weights, tf.tensor2d(window, [n, cfg.contextLength], 'int32'), null, true).logits.reshape([n, V]));
    }
    const flat = rows.dataSync() as Float32Array;
    rows.dispose();
    return flat;
  };
  try {
    for (let step = 0; step < maxTokens && choices.some((c) => c.finish === null); step++) {
      const flat = nextLogits();
      choices.forEach((c, idx) => {
        if (c.finish !== null) {
          c.seq.push(SPECIAL.pad); // keeps all rows one length; never read back
          return;
        }
        const logp = logSoftmax(flat.subarray(idx * V, (idx + 1) * V));
        const tok = pickToken(logp, temperature, rand);
        c.seq.push(tok);
        c.ids.push(tok);
        c.logprobs.push({
          ...tokenEntry(tok, logp[tok]!),
          top_logprobs: topK(logp, topN).map((id) => tokenEntry(id, logp[id]!)),
        });
        if (tok === SPECIAL.end) {
          c.finish = 'stop';
          return;
        }
        const { emit, stopAt } = c.tracker.push(tok < 256 ? tok : null);
        if (emit) onToken(idx, emit);
        if (stopAt !== null) {
          // Cut ids/logprobs to the bytes before the stop string (bytes are tokens one-to-one).
          let bytes = c.tracker.keptBytes();
          let keep = 0;
          while (keep < c.ids.length && bytes > 0) if (c.ids[keep++]! < 256) bytes--;
          c.ids.length = keep;
          c.logprobs.length = keep;
          c.finish = 'stop';
        }
      });
      // Let other requests (a ping, another completion) interleave between tokens.
      await new Promise((r) => setImmediate(r));
    }
  } finally {
    dropCache();
  }
  return choices.map((c, idx) => {
    const rest = c.tracker.finish();
    if (rest) onToken(idx, rest);
    return { text: c.tracker.text, token_ids: c.ids, logprobs: c.logprobs, finish_reason: c.finish ?? 'length' };
  });
}
