/** Messages between the engine client (main thread) and the trainer workers. Ids pair replies with requests. */
import type { GeneratedChoice, StepMetrics, TokenLogprob } from './engine.js';

export type WorkerOp = 'ping' | 'accelerator' | 'init' | 'sft' | 'rl' | 'complete' | 'memory' | 'score' | 'cancel';

/**
 * Two workers: `train` runs jobs (sft, rl), `infer` everything else (completions, scoring, init), so a
 * completion never waits behind a gradient step. They share `busy` (an Int32Array over a
 * SharedArrayBuffer): [0] = completions in flight; the train worker holds its next step while it is
 * above zero (for at most MAX_YIELD_MS), so inference gets the CPU first on a small machine.
 */
export type WorkerRole = 'train' | 'infer';

export interface WorkerInit {
  entry?: string;
  role: WorkerRole;
  busy: SharedArrayBuffer;
}

/** Longest a training step waits for completions to finish before it runs anyway (no starvation). */
export const MAX_YIELD_MS = 2000;

export interface WorkerRequest {
  id: number;
  op: WorkerOp;
  /** Plain data only (callbacks stay on the main side; progress comes back as messages). */
  args: Record<string, unknown>;
}

export type WorkerReply =
  | { id: number; type: 'result'; value: unknown }
  | { id: number; type: 'error'; message: string; aborted?: boolean }
  | { id: number; type: 'start'; info: { numSteps: number; numSequences: number } }
  | { id: number; type: 'step'; metrics: StepMetrics }
  | { id: number; type: 'token'; index: number; text: string; logprobs: TokenLogprob[] };

export type CompleteResult = GeneratedChoice[];

export interface WorkerMemory {
  role: WorkerRole;
  rss: number;
  heapUsed: number;
  /** Peak resident set size of the process so far (bytes), from process.resourceUsage(). */
  maxRss: number;
  tfBytes: number;
  tfTensors: number;
}
