import type { Handlers } from '../handlers.js';
import { conversationChat, traceChat } from './views.js';

/** Handlers of the chat operations (contract/chat.ts). */
export const chatHandlers = {
  'chat.conversation': (input, ctx) => conversationChat(ctx.store, ctx.app, input),
  'chat.trace': (input, ctx) => traceChat(ctx.store, ctx.app, input),
} satisfies Partial<Handlers>;
