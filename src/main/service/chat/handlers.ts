import type { Handlers } from '../handlers.js';

/** Handlers of the chat operations (contract/chat.ts). */
export const chatHandlers = {} satisfies Partial<Handlers>;
