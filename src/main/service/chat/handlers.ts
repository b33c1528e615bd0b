import type { Handlers } from '../handler-types.js';
import { conversationChat, traceChat, traceChatPage } from './views.js';

/** Handlers of the chat operations (contract/chat.ts). */
export const chatHandlers = {
  'chat.conversation': (input, ctx, call) => conversationChat(ctx, input, call),
  'chat.trace': (input, ctx, call) => traceChat(ctx, input, call),
  'chat.tracePage': (input, ctx, call) => traceChatPage(ctx, input, call),
} satisfies Partial<Handlers>;
