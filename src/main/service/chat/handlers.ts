import type { Handlers } from '../handler-types.js';
import { conversationChat, traceChat } from './views.js';

/** Handlers of the chat operations (contract/chat.ts). */
export const chatHandlers = {
  'chat.conversation': (input, ctx, call) => conversationChat(ctx, input, call),
  'chat.trace': (input, ctx, call) => traceChat(ctx, input, call),
} satisfies Partial<Handlers>;
