/** The built-in trainer: a byte-level transformer on TensorFlow.js, run in worker threads. */
import { BuiltinEngine } from './client.js';

export type { TrainerEngine } from './engine.js';
export { BuiltinEngine } from './client.js';
export { BASE_MODELS } from './config.js';

/** The built-in engine: a job worker and an inference worker, started lazily on first use. */
export function createBuiltinEngine(): BuiltinEngine {
  return new BuiltinEngine();
}
