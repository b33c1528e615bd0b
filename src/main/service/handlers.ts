/**
 * The handler of every contract operation, gathered from the domain modules. Missing or extra
 * handlers fail at boot (assertComplete), never on first use.
 */
import { contract, type OpName, type OpParsedInput, type OpOutput } from '../../shared/contract/index.js';
import type { ServiceContext } from './context.js';
import type { StatusResult } from '../../shared/status-result.js';
import { chatHandlers } from './chat/handlers.js';
import { feedbackHandlers } from './feedback/handlers.js';
import { analyticsHandlers } from './analytics/handlers.js';
import { trainingHandlers } from './training/handlers.js';
import { systemHandlers } from './system/handlers.js';
import { timelineHandlers } from './timeline/handlers.js';
import { conversationHandlers } from './conversations/handlers.js';
import { retentionHandlers } from './retention/handlers.js';

type Awaitable<T> = T | Promise<T>;
/**
 * json ops return the output (or withStatus(status, output) to answer another status with the same
 * body); jsonl ops yield elements; sse-optional ops may return a stream.
 */
export type HandlerResult<K extends OpName> =
  | Awaitable<OpOutput<K> | StatusResult<OpOutput<K>>>
  | Awaitable<Iterable<OpOutput<K>> | AsyncIterable<OpOutput<K>>>;

/** What a transport knows about one call beyond its input. */
export interface CallOptions {
  /** Fires when the caller no longer wants the answer (HTTP client gone, IPC call cancelled); reads pass it to the store. */
  signal?: AbortSignal;
}

export type Handler<K extends OpName> = (input: OpParsedInput<K>, ctx: ServiceContext, call: CallOptions) => HandlerResult<K>;
export type Handlers = { [K in OpName]: Handler<K> };

export const handlers = {
  ...chatHandlers,
  ...feedbackHandlers,
  ...analyticsHandlers,
  ...trainingHandlers,
  ...systemHandlers,
  ...timelineHandlers,
  ...conversationHandlers,
  ...retentionHandlers,
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
