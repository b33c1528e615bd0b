/**
 * The shape of a contract operation's handler. Its own module so the domain handler files and the
 * registry that gathers them (handlers.ts) both import it without importing each other.
 */
import type { OpName, OpParsedInput, OpOutput } from '../../shared/contract/index.js';
import type { ServiceContext } from './context.js';
import type { StatusResult } from '../../shared/status-result.js';

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
  /**
   * Sets a response header (HTTP only; IPC has no headers and ignores it): for facts a client reads
   * beside the body, e.g. which model really answered (issue 22.12).
   */
  header?: (name: string, value: string) => void;
}

export type Handler<K extends OpName> = (input: OpParsedInput<K>, ctx: ServiceContext, call: CallOptions) => HandlerResult<K>;
export type Handlers = { [K in OpName]: Handler<K> };

