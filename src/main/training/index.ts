/** The built-in trainer: a byte-level transformer on TensorFlow.js, run in worker threads. */
import { BuiltinEngine } from './client.js';

export type { TrainerEngine } from './engine.js';
export { BuiltinEngine } from './client.js';
export { BASE_MODELS } from './config.js';

export function createBuiltinEngine(opts?: { workerCount?: number }): BuiltinEngine {
  return new BuiltinEngine(opts?.workerCount ?? 1);
}
