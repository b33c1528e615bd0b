/**
 * A handler result that carries its own HTTP status (semantics §9.8: `/v1/system-check` answers its
 * check object with 503 when a check fails). Errors still travel as ServiceError `{detail}`; this is
 * for the few answers whose body is the operation's output even though the status is not 200.
 *
 * HTTP sends `body` with `status`. IPC (no status line) answers `{ok: true, result: body}` for a
 * 2xx status and `{ok: false, error: {status, detail: message, body}}` otherwise, so the renderer's
 * client fails the same way on both transports and can still read the body.
 */
const BRAND = Symbol.for('loupe.statusResult');

export interface StatusResult<T> {
  readonly [BRAND]: true;
  readonly status: number;
  readonly body: T;
  /** One-line summary for transports that can only carry `{status, detail}` (IPC errors, logs). */
  readonly message: string;
}

export function withStatus<T>(status: number, body: T, message = `status ${status}`): StatusResult<T> {
  if (!Number.isInteger(status) || status < 200 || status > 599) throw new RangeError(`withStatus: ${status} is not an HTTP status`);
  return { [BRAND]: true, status, body, message };
}

export function isStatusResult(v: unknown): v is StatusResult<unknown> {
  return v !== null && typeof v === 'object' && (v as Record<symbol, unknown>)[BRAND] === true;
}
