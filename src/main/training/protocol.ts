/** Messages between the engine client (main thread) and the trainer worker. Ids pair replies with requests. */
import type { GeneratedChoice, StepMetrics } from './engine.js';

export type WorkerOp = 'ping' | 'accelerator' | 'init' | 'sft' | 'rl' | 'complete' | 'memory' | 'score';

export interface WorkerRequest {
  id: number;
  op: WorkerOp;
  /** Plain data only (callbacks stay on the main side; progress comes back as messages). */
  args: Record<string, unknown>;
}

export type WorkerReply =
  | { id: number; type: 'result'; value: unknown }
  | { id: number; type: 'error'; message: string }
  | { id: number; type: 'step'; metrics: StepMetrics }
  | { id: number; type: 'token'; index: number; text: string };

export type CompleteResult = GeneratedChoice[];

export interface WorkerMemory {
  rss: number;
  heapUsed: number;
  /** Peak resident set size of the process so far (bytes), from process.resourceUsage(). */
  maxRss: number;
  tfBytes: number;
  tfTensors: number;
}
