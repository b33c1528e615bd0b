import type { Handlers } from '../handlers.js';

/** Handlers of the training operations (contract/training.ts). */
export const trainingHandlers = {} satisfies Partial<Handlers>;
