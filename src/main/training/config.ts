/**
 * Base models of the built-in trainer and the byte vocabulary they share. Every base model reads
 * UTF-8 bytes (ids 0..255) plus a few special tokens that mark chat roles and the end of a message.
 */

export const BYTE_VOCAB = 256;
export const SPECIAL = {
  system: 256,
  user: 257,
  assistant: 258,
  tool: 259,
  end: 260,
  pad: 261,
} as const;
/** Vocabulary size: bytes + specials (padded to a multiple of 8 for tidy matrix shapes). */
export const VOCAB_SIZE = 264;

export interface ModelConfig {
  vocabSize: number;
  /** Longest sequence the model sees; longer inputs keep their last `contextLength` tokens. */
  contextLength: number;
  dModel: number;
  nLayers: number;
  nHeads: number;
  /** Hidden width of the feed-forward block. */
  dFF: number;
  /** Seed of the step-0 weights: the same base model always starts from the same weights. */
  seed: number;
}

/**
 * `loupe-tiny-bytes-2k` is the default (issue 22.14): `loupe-tiny-bytes`' layers with a 2,048-token
 * context, sized from the open client's 2048 example (ART examples/2048): its first request is a
 * 272-byte system prompt and a 32-byte board (309 prompt tokens here, one per byte plus role and end
 * markers) asking `max_completion_tokens: 128`, 437 tokens in all; every move then adds the answer
 * and the next board (54–86 tokens), so 2,048 holds the first request and 18–29 more moves. A whole
 * game (58+ moves to 128) would need ~5 K: a 2,048-token sequence already costs ~1 min and ~3 GB to
 * train on two cores (attention is quadratic), 4 K would cost 4× that. `loupe-tiny-bytes` (256, the
 * default before) stays for its checkpoints: a context is the shape of the position embedding, so
 * checkpoints of one cannot load as the other. `loupe-test-bytes` is smaller still, for tests.
 */
export const BASE_MODELS: Record<string, ModelConfig> = {
  'loupe-tiny-bytes-2k': { vocabSize: VOCAB_SIZE, contextLength: 2048, dModel: 128, nLayers: 4, nHeads: 4, dFF: 512, seed: 2048 },
  'loupe-tiny-bytes': { vocabSize: VOCAB_SIZE, contextLength: 256, dModel: 128, nLayers: 4, nHeads: 4, dFF: 512, seed: 1234 },
  'loupe-test-bytes': { vocabSize: VOCAB_SIZE, contextLength: 96, dModel: 64, nLayers: 2, nHeads: 4, dFF: 256, seed: 42 },
};

/**
 * Working learning rates of the built-in models under Adam (docs/trainer.md, measured curve in
 * docs/training.md). The hosted service's defaults (RL 5e-6, SFT 5e-5) suit LoRA on billions of
 * weights; a client's rate is read relative to those and scaled to these (service/training/learning-rate.ts).
 */
export const BUILTIN_RL_LR = 1e-3;
export const BUILTIN_SFT_LR = 3e-3;
/**
 * The highest SFT rate a scaled client rate may reach (issue 22.14). Measured with the client's
 * `train_sft_from_file` schedule (batch 2, linear, 10% warm-up, 120 steps, word-length task):
 * loupe-test-bytes learns up to a 4e-3 peak (48/48 held-out) and fails at 6e-3 (16/48);
 * loupe-tiny-bytes' loss climbs from 5.7 to 10 at 8e-3 and 1.2e-2 (the client's default ×60).
 */
export const BUILTIN_SFT_MAX_LR = 4e-3;

/** The base model that serves any name the built-in trainer does not have (e.g. `OpenPipe/Qwen3-14B-Instruct`). */
export const DEFAULT_BASE_MODEL = 'loupe-tiny-bytes-2k';

export function baseModelConfig(name: string): ModelConfig {
  const cfg = BASE_MODELS[name];
  if (!cfg) throw new Error(`unknown base model "${name}"; available: ${Object.keys(BASE_MODELS).join(', ')}`);
  return cfg;
}
