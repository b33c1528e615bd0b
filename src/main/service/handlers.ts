/**
 * The handler of every contract operation, gathered from the domain modules. Missing or extra
 * handlers fail at boot (assertComplete), never on first use.
 */
import { contract } from '../../shared/contract/index.js';
import { chatHandlers } from './chat/handlers.js';
import { feedbackHandlers } from './feedback/handlers.js';
import { analyticsHandlers } from './analytics/handlers.js';
import { trainingHandlers } from './training/handlers.js';
import { systemHandlers } from './system/handlers.js';
import { timelineHandlers } from './timeline/handlers.js';
import { conversationHandlers } from './conversations/handlers.js';
import { retentionHandlers } from './retention/handlers.js';
import { mcpHandlers } from './mcp/handlers.js';
import { replayHandlers } from './replay/handlers.js';
import { scoreHandlers } from './scores/handlers.js';
import { scorerHandlers } from './evals/handlers.js';

export type { CallOptions, Handler, HandlerResult, Handlers } from './handler-types.js';
import type { Handlers } from './handler-types.js';

export const handlers = {
  ...chatHandlers,
  ...feedbackHandlers,
  ...analyticsHandlers,
  ...trainingHandlers,
  ...systemHandlers,
  ...timelineHandlers,
  ...conversationHandlers,
  ...retentionHandlers,
  ...mcpHandlers,
  ...replayHandlers,
  ...scoreHandlers,
  ...scorerHandlers,
} as Handlers;

export function assertComplete(): void {
  const names = Object.keys(contract);
  const missing = names.filter((n) => typeof (handlers as Record<string, unknown>)[n] !== 'function');
  const extra = Object.keys(handlers).filter((n) => !names.includes(n));
  if (missing.length || extra.length) {
    throw new Error(`handlers out of sync with the contract: missing [${missing.join(', ')}] extra [${extra.join(', ')}]`);
  }
}
assertComplete();
