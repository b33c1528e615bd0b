/**
 * The IPC bridge as plain functions (Electron's ipcMain only wires them up in src/main/index.ts),
 * so every path the desktop app takes is exercised by Node tests. One channel, `loupe:call`,
 * carries `(operation, input)`; the same dispatch as HTTP runs it, trusted (the renderer is the
 * app's own code, so the training key is not needed). Results are plain data: jsonl operations
 * become arrays and streams are collected, because structured clone cannot carry iterators.
 */
import { errorMessage, ServiceError, type WireError } from '../../shared/errors.js';
import type { LoupeEvent } from '../../shared/events.js';
import type { ServiceContext } from '../service/context.js';
import { isStatusResult } from '../../shared/status-result.js';
import { dispatch } from './dispatch.js';
import { storeFailure } from './store-errors.js';
import { StoreAbortedError } from '../store/ports.js';

export const CALL_CHANNEL = 'loupe:call';
export const EVENT_CHANNEL = 'loupe:event';
/** `(callId)`: the renderer no longer needs the answer of that call (react-query cancelled it). */
export const CANCEL_CHANNEL = 'loupe:cancel';

/** Calls in flight that named an id, so a cancel can stop their reads. */
const inFlight = new Map<string, AbortController>();

/** Stops the reads of a call in flight (unknown or finished ids are ignored). */
export function handleIpcCancel(callId: unknown): void {
  if (typeof callId === 'string') inFlight.get(callId)?.abort();
}

export type IpcResult = { ok: true; result: unknown } | { ok: false; error: WireError };

export async function handleIpcCall(ctx: ServiceContext, operation: unknown, input: unknown, callId?: unknown): Promise<IpcResult> {
  const id = typeof callId === 'string' && callId ? callId : null;
  const cancel = new AbortController();
  if (id) inFlight.set(id, cancel);
  try {
    if (typeof operation !== 'string') throw new ServiceError(400, 'operation must be a string naming a contract operation');
    const result = await dispatch(operation, input ?? {}, ctx, { trusted: true, signal: cancel.signal });
    if (isStatusResult(result)) {
      // No status line over IPC: a non-2xx answer is an error that still carries its body.
      if (result.status >= 300) return { ok: false, error: { status: result.status, detail: result.message, body: result.body } };
      return { ok: true, result: result.body };
    }
    return { ok: true, result: await collect(result) };
  } catch (thrown) {
    const err = storeFailure(thrown, ctx.health) ?? thrown;
    if (err instanceof ServiceError) {
      return { ok: false, error: { status: err.status, detail: err.detail, ...(err.retryAfterSeconds === undefined ? {} : { retry_after: err.retryAfterSeconds }) } };
    }
    if (err instanceof StoreAbortedError) return { ok: false, error: { status: 499, detail: err.message } };
    return { ok: false, error: { status: 500, detail: errorMessage(err) } };
  } finally {
    if (id) inFlight.delete(id);
  }
}

/** Arrays, plain objects and primitives pass; generators and async iterables are drained. */
async function collect(result: unknown): Promise<unknown> {
  if (result === null || typeof result !== 'object' || Array.isArray(result)) return result;
  const it = result as Partial<AsyncIterable<unknown> & Iterable<unknown>>;
  if (typeof it[Symbol.asyncIterator] === 'function' || typeof it[Symbol.iterator] === 'function') {
    const out: unknown[] = [];
    for await (const item of it as AsyncIterable<unknown>) out.push(item);
    return out;
  }
  return result;
}

/**
 * Whether a URL belongs to the app's own origin (the loopback server the window loads). Used for
 * both doors of the desktop shell: IPC calls are answered only for frames of this origin, and the
 * window never navigates elsewhere — a foreign page must never see `window.api`, which is trusted
 * (training key not needed).
 */
export function isAppUrl(url: string | null | undefined, appUrl: string): boolean {
  if (!url) return false;
  try {
    return new URL(url).origin === new URL(appUrl).origin;
  } catch {
    return false;
  }
}

/**
 * Whether a link may be handed to the OS (shell.openExternal): http and https only. Any other scheme
 * (file:, smb:, a custom protocol handler) could open a local file or start a program (issue 13.9).
 */
export function isWebUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Forwards every service event to one renderer; returns the unsubscribe function. */
export function forwardEvents(ctx: ServiceContext, send: (channel: string, event: LoupeEvent) => void): () => void {
  return ctx.events.on((event) => send(EVENT_CHANNEL, event));
}
