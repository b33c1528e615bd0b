/**
 * The renderer's one client. In Electron it calls through the preload bridge (IPC); in a browser
 * against `loupe serve` it uses HTTP with the method and path the contract gives. Either way the
 * same operation names and types are used, so pages never know which transport they are on.
 */
import { contract, type OpName, type OpInput, type OpOutput } from '../../../shared/contract/index';
import { ServiceError } from '../../../shared/errors';
import type { LoupeEvent } from '../../../shared/events';

export async function call<K extends OpName>(name: K, input: OpInput<K>): Promise<OpOutput<K>> {
  if (window.api) {
    const res = await window.api.call(name, input);
    if (!res.ok) throw new ServiceError(res.error.status, res.error.detail, res.error.body);
    return res.result as OpOutput<K>;
  }
  return httpCall(name, input);
}

async function httpCall<K extends OpName>(name: K, input: OpInput<K>): Promise<OpOutput<K>> {
  const def = contract[name];
  const rest: Record<string, unknown> = { ...(input as Record<string, unknown>) };
  const path = def.path.replace(/:([A-Za-z_]+)/g, (_, p: string) => {
    const v = rest[p];
    delete rest[p];
    return encodeURIComponent(String(v));
  });
  const headers: Record<string, string> = {};
  if (def.auth === 'key') headers.authorization = `Bearer ${await localKey()}`;
  let url = path;
  let body: string | undefined;
  if (def.method === 'GET') {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(rest)) if (v !== undefined && v !== null) qs.set(k, String(v));
    if ([...qs].length) url += `?${qs}`;
  } else if (Object.keys(rest).length || def.method === 'POST') {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(rest);
  }
  const res = await fetch(url, { method: def.method, headers, body });
  const type = res.headers.get('content-type') ?? '';
  if (!res.ok) {
    const payload = type.includes('json') ? await res.json() : { detail: await res.text() };
    // A status result (e.g. system-check's 503) has no `detail`: keep its body on the error.
    if (payload?.detail === undefined) throw new ServiceError(res.status, `${def.method} ${path} answered ${res.status}`, payload);
    throw new ServiceError(res.status, payload.detail);
  }
  if (def.stream === 'jsonl') {
    const text = await res.text();
    return text.split('\n').filter(Boolean).map((l) => JSON.parse(l)) as OpOutput<K>;
  }
  return (await res.json()) as OpOutput<K>;
}

/**
 * The training key for display in Settings (reveal/copy). Over HTTP it comes from the same-origin
 * /app/key endpoint; the Electron bridge does not hand it out, so null there (Settings shows the key file).
 */
export function trainingKey(): Promise<string | null> {
  if (window.api) return Promise.resolve(null);
  return localKey();
}

let keyPromise: Promise<string> | null = null;
/** The training key, read from the loopback server's same-origin-only endpoint. */
function localKey(): Promise<string> {
  keyPromise ??= fetch('/app/key').then((r) => (r.ok ? r.json() : { key: '' })).then((j: { key: string }) => j.key);
  return keyPromise;
}

/** Subscribes to push events (IPC in Electron, server-sent events over HTTP). */
export function onEvent(listener: (event: LoupeEvent) => void): () => void {
  if (window.api) return window.api.onEvent(listener);
  const source = new EventSource('/events');
  source.onmessage = (m) => listener(JSON.parse(m.data) as LoupeEvent);
  return () => source.close();
}
