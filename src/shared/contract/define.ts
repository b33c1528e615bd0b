import type { z } from 'zod';

/**
 * One operation of Loupe's contract. The HTTP router, the IPC bridge, the renderer's client and
 * /openapi.json are all derived from these records; nothing else declares a route.
 *
 * `input` is one flat zod object holding path params, query params (GET/DELETE) and body fields
 * (POST, and DELETE with a body). Dispatch tells where each key came from so a 422 `loc` starts
 * with "path", "query" or "body".
 */
export type Method = 'GET' | 'POST' | 'DELETE';

export interface OpDef<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  method: Method;
  /** Express-style path; `:name` segments are path params and must be keys of `input`. */
  path: string;
  /** 'key': `Authorization: Bearer <key>` required (training API, semantics §9.1). */
  auth: 'none' | 'key';
  /**
   * For an 'auth: none' operation, inputs that still need the key over HTTP: returns what needs it
   * (e.g. "paths on this machine"), or null. The app's own window (IPC) is trusted. Such inputs would
   * let any local process probe or read files as the user (issue 13.5).
   */
  keyFor?: (input: z.infer<I>) => string | null;
  /** Which inputs `keyFor` asks the key for, in words (for /openapi.json). */
  keyForDoc?: string;
  summary: string;
  input: I;
  output: O;
  /**
   * How the result travels. 'json' (default): one body. 'jsonl': the handler yields elements of
   * `output`, HTTP streams them as application/jsonl, IPC returns an array. 'sse-optional': the
   * handler returns either a body or (when the request asked to stream) an async iterable of
   * `output`-shaped chunks sent as server-sent events.
   */
  stream?: 'json' | 'jsonl' | 'sse-optional';
  /** Extra paths answering the same operation (e.g. `/v1/chat/completions/`). */
  aliases?: string[];
  /** Body cap in bytes for this operation (default 1 MiB for query operations). */
  maxBodyBytes?: number;
  /**
   * HTTP hands the request body to the service unparsed, as a stream (at most maxBodyBytes), through
   * the operation's raw-body handler (service/raw-body.ts): for bodies too large to parse on the
   * server thread. Path and query parameters still arrive parsed; IPC calls the usual handler with
   * the parsed input.
   */
  rawBody?: boolean;
  /** Error body shape: `{"detail": …}` (default) or OpenAI's `{"error": {message, type, param, code}}`. */
  errorShape?: 'detail' | 'openai';
  /**
   * Other statuses answered with the `output` body itself (a handler's withStatus result,
   * shared/status-result.ts), e.g. system-check's 503; documented in /openapi.json.
   */
  alsoAnswers?: { status: number; description: string }[];
}

export const op = <I extends z.ZodType, O extends z.ZodType>(def: OpDef<I, O>): OpDef<I, O> => def;

/** Path params of a path, e.g. '/v1/preview/models/:model_id/log' → ['model_id']. */
export const pathParams = (path: string): string[] =>
  path.split('/').filter((s) => s.startsWith(':')).map((s) => s.slice(1));
