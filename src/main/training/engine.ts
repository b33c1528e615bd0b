/**
 * The seam between the training API (jobs, checkpoints, HTTP) and the trainer that changes weights.
 * The built-in engine runs a small transformer on TensorFlow.js in a worker thread; every method
 * returns a promise and never blocks the main event loop. Checkpoints are directories of weight
 * files in the data directory; the engine never touches the database.
 */

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  [k: string]: unknown;
}

export interface TokenLogprob {
  token: string; // `token_id:<n>` for managed models (semantics §9.7)
  logprob: number;
  bytes: number[] | null;
  top_logprobs: { token: string; logprob: number; bytes: number[] | null }[];
}

export interface GeneratedChoice {
  text: string;
  token_ids: number[];
  logprobs: TokenLogprob[];
  finish_reason: 'stop' | 'length';
}

export interface CompletionRequest {
  checkpointDir: string;
  messages: ChatMessage[];
  temperature?: number; // default 1
  maxTokens?: number; // default 64
  n?: number; // default 1
  stop?: string[];
  seed?: number;
  /** How many alternatives per token in `logprobs[].top_logprobs` (0..20; default 0). Added by the trainer stream. */
  topLogprobs?: number;
  /** Called with each new token's text as it is sampled (choice index, text) for streaming. */
  onToken?: (index: number, text: string) => void;
}

export interface SftExample {
  messages: ChatMessage[];
  tools?: unknown;
}

/** A trainable sequence for RL: prompt messages, the sampled completion's token ids and their logprobs. */
export interface RlSample {
  prompt: ChatMessage[];
  completionTokenIds: number[];
  sampledLogprobs: number[];
  advantage: number;
}

export interface StepMetrics {
  loss: number;
  grad_norm: number;
  learning_rate: number;
  num_trainable_tokens: number;
  entropy?: number;
  [k: string]: number | undefined;
}

export interface TrainRequest {
  baseCheckpointDir: string;
  outCheckpointDir: string;
  onStep: (metrics: StepMetrics) => void;
}

export interface TrainerEngine {
  /** Base models this engine can create (semantics §9.2 `base_model`). */
  baseModels(): string[];
  /** Answers when the worker is alive (system-check cpu_queue). */
  ping(): Promise<void>;
  /** Whether an accelerator backend is present; reason when not (system-check gpu_queue). */
  accelerator(): Promise<{ available: boolean; reason: string | null }>;
  /** Writes the step-0 weights of a fresh model of `baseModel` (seeded, deterministic). */
  initCheckpoint(baseModel: string, outCheckpointDir: string): Promise<void>;
  sft(req: TrainRequest & { examples: SftExample[]; batchSize: number | 'auto'; learningRate: number | number[] }): Promise<void>;
  /**
   * learningRate defaults to the built-in RL rate (1e-3, docs/trainer.md); batchSize = samples per gradient
   * step (default 8; optional, added by the trainer stream). Samples with advantage 0 contribute nothing.
   */
  rl(req: TrainRequest & { samples: RlSample[]; loss: 'cispo' | 'ppo'; learningRate?: number; batchSize?: number }): Promise<void>;
  complete(req: CompletionRequest): Promise<GeneratedChoice[]>;
  close(): Promise<void>;
}
