/**
 * How one operation call travels over HTTP, from its contract record: path parameters filled in,
 * GET/DELETE inputs as the query string (POST and DELETE-with-body as JSON). The renderer's client
 * and the MCP server's caller of a running Loupe (src/main/mcp/caller.ts) both build requests here.
 */
import { contract, type OpName } from './index.js';
import { textOf } from '../text.js';

export interface HttpRequestOf {
  method: 'GET' | 'POST' | 'DELETE';
  /** Path and query string, e.g. `/v1/preview/models/m1/checkpoints?limit=10`. */
  url: string;
  /** JSON text of the body, when the request has one. */
  body?: string;
  /** Whether the operation (or this input of it) needs the API key over HTTP. */
  needsKey: boolean;
}

export function httpRequestOf(name: OpName, input: unknown): HttpRequestOf {
  const def = contract[name];
  const rest: Record<string, unknown> = { ...(input as Record<string, unknown>) };
  let url = def.path.replace(/:([A-Za-z_]+)/g, (_, p: string) => {
    const v = rest[p];
    delete rest[p];
    return encodeURIComponent(String(v));
  });
  const needsKey = def.auth === 'key' || !!def.keyFor;
  if (def.method === 'GET') {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(rest)) if (v !== undefined && v !== null) qs.set(k, textOf(v));
    if ([...qs].length) url += `?${qs.toString()}`;
    return { method: def.method, url, needsKey };
  }
  if (Object.keys(rest).length || def.method === 'POST') return { method: def.method, url, body: JSON.stringify(rest), needsKey };
  return { method: def.method, url, needsKey };
}
