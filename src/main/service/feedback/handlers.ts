import type { Handlers } from '../handlers.js';

/** Handlers of the feedback operations (contract/feedback.ts). */
export const feedbackHandlers = {} satisfies Partial<Handlers>;
