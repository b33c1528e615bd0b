/**
 * Autoregressive sampling of `n` choices in one batch, with a KV cache while the sequence fits the
 * context (past it, each token re-runs a sliding window).
 * Logprobs are those of the model's own distribution (temperature 1), whatever temperature samples,
 * so that RL importance ratios compare like with like.
 */
import * as tf from '@tensorflow/tfjs';
import { SPECIAL, type ModelConfig } from './config.js';
import type { ChatMessage, GeneratedChoice, TokenLogprob, ToolConstraint } from './engine.js';
import { forwardCached, type KvCache, type Weights } from './model.js';
import { logSoftmax, pickToken, seededRandom, TextTracker, topK } from './sampling.js';
import { encodeChat } from './tokenizer.js';
import { ToolCallConstraint } from './json-constraint.js';

export interface GenerateArgs {
  messages: ChatMessage[];
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  n?: number;
  stop?: string[];
  seed?: number;
  topLogprobs?: number;
  tools?: ToolConstraint;
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
  if (a.topP !== undefined && !(Number.isFinite(a.topP) && a.topP > 0 && a.topP <= 1)) throw new Error(`top_p must be a number in (0, 1], got ${a.topP}`);
  if (a.stop !== undefined && (!Array.isArray(a.stop) || a.stop.some((s) => typeof s !== 'string'))) throw new Error('stop must be a list of strings');
  if (a.tools !== undefined && (!Array.isArray(a.tools.names) || a.tools.names.length === 0)) throw new Error('tools.names must list at least one function name');
}

export async function generate(
  cfg: ModelConfig,
  weights: Weights,
  args: GenerateArgs,
  onToken: (index: number, text: string, logprobs: TokenLogprob[]) => void,
): Promise<GeneratedChoice[]> {
  checkArgs(args);
  const n = args.n ?? 1;
  const maxTokens = args.maxTokens ?? 64;
  const temperature = args.temperature ?? 1;
  const topP = args.topP ?? 1;
  const topN = args.topLogprobs ?? 0;
  const rand = seededRandom(args.seed ?? Math.floor(Math.random() * 2 ** 32));
  const prompt = encodeChat(args.messages, { addGenerationPrompt: true }).tokens;
  const choices = Array.from({ length: n }, () => ({
    seq: [...prompt],
    ids: [] as number[],
    tracker: new TextTracker(args.tools ? [] : (args.stop ?? [])),
    constraint: args.tools ? new ToolCallConstraint(args.tools.names, args.tools.parameters) : null,
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
        let allowed: ((i: number) => boolean) | undefined;
        if (c.constraint) {
          const g = c.constraint.allowed(maxTokens - step);
          allowed = (i) => (i < 256 ? g.bytes(i) : i === SPECIAL.end && g.end);
        }
        const tok = pickToken(logp, temperature, rand, topP, allowed);
        c.constraint?.push(tok);
        c.seq.push(tok);
        c.ids.push(tok);
        // The model's own logprob of the token (raw distribution, as vLLM reports), whatever the
        // temperature, top_p or constraint that chose it: RL importance ratios compare like with like.
        const entry = { ...tokenEntry(tok, logp[tok]!), top_logprobs: topK(logp, topN).map((id) => tokenEntry(id, logp[id]!)) };
        const { piece, stopAt } = c.tracker.push(tok < 256 ? tok : null, entry);
        if (piece.text || piece.logprobs.length) onToken(idx, piece.text, piece.logprobs);
        if (tok === SPECIAL.end) {
          c.finish = 'stop';
          return;
        }
        if (stopAt !== null) {
          c.ids.length = c.tracker.entries.length; // cut to the tokens of the kept text
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
    if (rest.text || rest.logprobs.length) onToken(idx, rest.text, rest.logprobs);
    return { text: c.tracker.text, token_ids: c.ids, logprobs: c.tracker.entries, finish_reason: c.finish ?? 'length' };
  });
}
