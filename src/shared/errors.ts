/**
 * Error shapes shared by every transport. Query operations answer validation errors in the
 * FastAPI `detail` array shape (interface.md, Errors); the training API answers
 * `{"detail": "message"}` for everything else (semantics §9).
 */

export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

export type ErrorDetail = string | ValidationIssue[];

/** Thrown by services and dispatch; transports turn it into a status code and `{detail}` body. */
export class ServiceError extends Error {
  /** Sent as `Retry-After` (seconds) with 429 and 503: OTLP exporters retry those, and drop on 500. */
  retryAfterSeconds?: number;

  /** For OpenAI-shaped errors (shared/openai-error.ts): a machine code such as "model_not_found" and the field. */
  code?: string;
  param?: string;
  constructor(
    readonly status: number,
    readonly detail: ErrorDetail,
    /** The answer's own body when it was not `{detail}` (a status result, shared/status-result.ts). */
    readonly body?: unknown,
  ) {
    super(detailText(detail));
  }
}

/** An error detail as one line of text: the string itself, or each issue as `loc: msg`. */
export const detailText = (detail: ErrorDetail): string =>
  typeof detail === 'string' ? detail : detail.map((d) => `${d.loc.join('.')}: ${d.msg}`).join('; ');

export const badRequest = (msg: string) => new ServiceError(400, msg);
export const unauthorized = (msg = 'Missing or invalid API key') => new ServiceError(401, msg);
export const notFound = (msg: string) => new ServiceError(404, msg);
export const conflict = (msg: string) => new ServiceError(409, msg);
export const payloadTooLarge = (msg: string) => new ServiceError(413, msg);
export const unavailable = (msg: string, retryAfterSeconds?: number) => withRetry(new ServiceError(503, msg), retryAfterSeconds);
export const tooManyRequests = (msg: string, retryAfterSeconds: number) => withRetry(new ServiceError(429, msg), retryAfterSeconds);

function withRetry(err: ServiceError, seconds: number | undefined): ServiceError {
  if (seconds !== undefined) err.retryAfterSeconds = seconds;
  return err;
}

/** A semantic 422 the schema cannot see (unknown sort field, bad group-by...). `field` is under "body". */
export function invalid(field: (string | number)[] | string, msg: string, input?: unknown, type = 'value_error'): ServiceError {
  const loc = ['body', ...(Array.isArray(field) ? field : [field])];
  return new ServiceError(422, [{ loc, msg, type, ...(input === undefined ? {} : { input }) }]);
}

/** The message of anything thrown (Error or not), for reports and logs. */
export const errorMessage = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Whatever was thrown, as an Error (a thrown string or object becomes one with its text). */
export const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(errorMessage(err)));

/** The wire form of an error, as carried over IPC (HTTP uses status + body). */
export interface WireError {
  status: number;
  detail: ErrorDetail;
  /** Seconds to wait before trying again (429, 503). */
  retry_after?: number;
  /** Set when the operation answered a non-2xx status result with its own body. */
  body?: unknown;
}
