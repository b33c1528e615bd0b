import type { Handlers } from '../handlers.js';

/** Handlers of the analytics operations (contract/analytics.ts). */
export const analyticsHandlers = {} satisfies Partial<Handlers>;
