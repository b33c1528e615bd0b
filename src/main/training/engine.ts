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

/** One token's logprob entry as chat completions return it. */
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

/**
 * Constrained decoding of tool calls (tool_choice "required" or a named function): the choice's text
 * must be one or more lines `{"name":"<one of names>","arguments":{...}}` (compact JSON, the format
 * the chat template writes tool calls in, tokenizer.ts), so it always parses into tool_calls.
 */
export interface ToolConstraint {
  names: string[];
  /** Each function's JSON Schema (`parameters`) by name: the arguments generated validate against it. */
  parameters?: Record<string, unknown>;
}

export interface CompletionRequest {
  checkpointDir: string;
  messages: ChatMessage[];
  temperature?: number; // default 1
  /** Nucleus sampling: draw from the smallest set of tokens whose probability reaches top_p (default 1). */
  topP?: number;
  maxTokens?: number; // default 64
  n?: number; // default 1
  stop?: string[];
  seed?: number;
  /** How many alternatives per token in `logprobs[].top_logprobs` (0..20; default 0). Added by the trainer stream. */
  topLogprobs?: number;
  tools?: ToolConstraint;
  /**
   * Called as text becomes final (choice index, text, the logprob entries of the tokens that text is
   * made of) for streaming: the pieces add up to the choice's text and logprobs.
   */
  onToken?: (index: number, text: string, logprobs: TokenLogprob[]) => void;
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
  /** Before the first step: how many gradient steps follow (0 when nothing is trainable) and sequences. */
  onStart?: (info: { numSteps: number; numSequences: number }) => void;
  onStep: (metrics: StepMetrics) => void;
  /** Aborting stops the job before its next gradient step (rejects with the signal's reason); nothing is written. */
  signal?: AbortSignal;
}

/** SFT data read by the engine itself (off the main thread): a JSONL file of `{messages, tools}` lines. */
export interface SftDataFile {
  path: string;
  /** How errors name the file (its URL or dataset name; never its content). */
  label: string;
  /** Larger files are refused before reading. */
  maxBytes: number;
}

/** RL trajectories read by the engine itself: the job's payload file `{trajectory_groups, experimental_config}`. */
export interface RlPayloadFile {
  path: string;
  options: RlSampleOptions;
}

export interface RlSampleOptions {
  normalize: boolean;
  allowWithoutLogprobs: boolean;
}

export interface TrainerEngine {
  /** Base models this engine can create (semantics §9.2 `base_model`). */
  baseModels(): string[];
  /** The base model that serves a requested name the engine does not have. */
  defaultBaseModel(): string;
  /** Answers when the worker is alive (system-check cpu_queue). */
  ping(): Promise<void>;
  /** Whether an accelerator backend is present; reason when not (system-check gpu_queue). */
  accelerator(): Promise<{ available: boolean; reason: string | null }>;
  /** Writes the step-0 weights of a fresh model of `baseModel` (seeded, deterministic). */
  initCheckpoint(baseModel: string, outCheckpointDir: string): Promise<void>;
  /** Examples given inline or read from `dataFile` (exactly one of the two). */
  sft(
    req: TrainRequest & {
      examples?: SftExample[];
      dataFile?: SftDataFile;
      batchSize: number | 'auto';
      learningRate: number | number[];
      /** 'last': only each example's last assistant message carries loss (default 'all'). */
      assistantTurns?: 'all' | 'last';
    },
  ): Promise<void>;
  /**
   * learningRate defaults to the built-in RL rate (1e-3, docs/trainer.md); batchSize = samples per gradient
   * step (default 8; optional, added by the trainer stream). Samples with advantage 0 contribute nothing.
   * Samples given inline or built from `payloadFile` (exactly one); when trajectories with a non-zero
   * advantage hold no trainable choice the job fails with the reason, as the open trainer does.
   */
  rl(req: TrainRequest & { samples?: RlSample[]; payloadFile?: RlPayloadFile; loss: 'cispo' | 'ppo'; learningRate?: number; batchSize?: number }): Promise<void>;
  complete(req: CompletionRequest): Promise<GeneratedChoice[]>;
  close(): Promise<void>;
}
