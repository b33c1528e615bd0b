/**
 * The renderer's one client. In Electron it calls through the preload bridge (IPC); in a browser
 * against `loupe serve` it uses HTTP with the method and path the contract gives. Either way the
 * same operation names and types are used, so pages never know which transport they are on.
 */
import { contract, type OpName, type OpInput, type OpOutput } from '../../../shared/contract/index';
import { ServiceError } from '../../../shared/errors';
import type { LoupeEvent } from '../../../shared/events';
import { reportReachable, reportUnreachable, unreachableError } from './connection';
import { authHeaders, forgetKey, localKey, SIGN_IN_HOW } from './session';
import { httpRequestOf } from '../../../shared/contract/http-request';

// Sign in at once when opened from a login link, so the one-time code leaves the address bar.
if (typeof window !== 'undefined' && !window.api) void localKey();

let calls = 0;

/** `signal` (react-query passes one): when it aborts, the server stops the call's reads. */
export async function call<K extends OpName>(name: K, input: OpInput<K>, signal?: AbortSignal): Promise<OpOutput<K>> {
  if (window.api) {
    const api = window.api;
    const id = signal ? `c${++calls}` : undefined;
    if (id) signal!.addEventListener('abort', () => api.cancel(id), { once: true });
    const res = await api.call(name, input, id);
    if (!res.ok) throw new ServiceError(res.error.status, res.error.detail, res.error.body);
    return res.result as OpOutput<K>;
  }
  return httpCall(name, input, signal);
}

async function httpCall<K extends OpName>(name: K, input: OpInput<K>, signal?: AbortSignal): Promise<OpOutput<K>> {
  const def = contract[name];
  const req = httpRequestOf(name, input);
  const headers: Record<string, string> = req.needsKey ? await authHeaders() : {};
  if (req.body !== undefined) headers['content-type'] = 'application/json';
  const { url, body } = req;
  let res: Response;
  try {
    res = await fetch(url, { method: def.method, headers, body, signal });
  } catch (e) {
    // Cancelled by the caller (react-query no longer needs it): not a connection problem.
    if (signal?.aborted) throw e;
    // The browser's own text ("Failed to fetch") says nothing useful: say what happened, and let the
    // connection module pause queries until the server answers again (api/connection.ts).
    reportUnreachable();
    throw unreachableError();
  }
  reportReachable();
  const type = res.headers.get('content-type') ?? '';
  if (res.status === 401) {
    // A key the server does not know (another data folder, a new key) is forgotten; either way say how to sign in.
    if (headers.authorization) forgetKey();
    throw new ServiceError(401, `This page is not signed in to Loupe. ${SIGN_IN_HOW}`);
  }
  if (!res.ok) {
    const payload: { detail?: unknown; error?: { message?: unknown } } | null = type.includes('json') ? await res.json().catch(() => null) : null;
    // OpenAI-shaped errors (the chat-completions route): the message is in error.message.
    if (typeof payload?.error?.message === 'string') throw new ServiceError(res.status, payload.error.message);
    // A status result (e.g. system-check's 503) or a non-JSON answer has no `detail`: keep its body on the error.
    if (!payload || (typeof payload.detail !== 'string' && !Array.isArray(payload.detail))) {
      throw new ServiceError(res.status, `the server answered ${res.status} ${res.statusText || ''}`.trim(), payload ?? undefined);
    }
    throw new ServiceError(res.status, payload.detail as ServiceError['detail']);
  }
  try {
    if (def.stream === 'jsonl') {
      const text = await res.text();
      return text.split('\n').filter(Boolean).map((l) => JSON.parse(l)) as OpOutput<K>;
    }
    return (await res.json()) as OpOutput<K>;
  } catch {
    // The connection dropped mid-answer, or the body is not what the contract says.
    throw new ServiceError(res.status, `the answer to ${name} could not be read`);
  }
}

/**
 * The training key for display in Settings (reveal/copy). Over HTTP the page holds it once signed in
 * (api/session.ts); the Electron bridge does not hand it out, so null there (Settings shows the key file).
 */
export async function trainingKey(): Promise<string | null> {
  if (window.api) return null;
  return (await localKey()) || null;
}

/**
 * Subscribes to push events (IPC in Electron, server-sent events over HTTP). The stream needs the
 * page to be signed in: EventSource cannot send a header, so it carries an events-only ticket the key
 * buys (POST /app/events-ticket), never the key itself. `onReopen` runs when the stream comes back
 * after a break (the browser reconnects by itself): events were missed then.
 */
export function onEvent(listener: (event: LoupeEvent) => void, onReopen?: () => void): () => void {
  if (window.api) return window.api.onEvent(listener);
  let source: EventSource | null = null;
  let closed = false;
  let everOpened = false;
  let retry: ReturnType<typeof setTimeout> | null = null;
  const open = async () => {
    const ticket = await eventsTicket();
    if (closed) return;
    if (!ticket) {
      // Not signed in (no live events until a login link is opened), or the server is away: try again later.
      retry = setTimeout(() => void open(), STREAM_RETRY_MS);
      return;
    }
    const s = new EventSource(`/events?ticket=${encodeURIComponent(ticket)}`);
    source = s;
    s.onmessage = (m) => listener(JSON.parse(m.data) as LoupeEvent);
    s.onopen = () => {
      reportReachable();
      if (everOpened) onReopen?.();
      everOpened = true;
    };
    s.onerror = () => {
      if (s.readyState === EventSource.OPEN) return;
      // The stream broke: the probe decides whether the server is away (a stream can break on a healthy server).
      void fetch('/v1/health', { cache: 'no-store' }).catch(() => reportUnreachable());
      // A refused reconnection (a restarted server does not know the old ticket) closes the stream for
      // good: buy a new ticket and open a new one.
      if (s.readyState === EventSource.CLOSED && !closed) {
        s.close();
        retry = setTimeout(() => void open(), STREAM_RETRY_MS);
      }
    };
  };
  void open();
  return () => {
    closed = true;
    if (retry) clearTimeout(retry);
    source?.close();
  };
}

/** Pause before the event stream is opened again after it closed. */
const STREAM_RETRY_MS = 2000;

async function eventsTicket(): Promise<string | null> {
  const headers = await authHeaders();
  if (!headers.authorization) return null;
  try {
    const res = await fetch('/app/events-ticket', { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: '{}' });
    if (res.status === 401) forgetKey();
    return res.ok ? ((await res.json()) as { ticket: string }).ticket : null;
  } catch {
    return null;
  }
}
