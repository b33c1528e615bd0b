/**
 * How MCP tools reach Loupe's answers: by calling contract operations, never SQL. Tools see one
 * `Caller`; behind it is either this process's dispatch (the `/mcp` route of a running Loupe, or
 * `loupe mcp` on a data folder no Loupe holds) or the contract's HTTP routes of the Loupe that runs
 * on the folder (`loupe mcp` beside a running app: no second writer, no lock fight).
 */
import type { z } from 'zod';
import type { Contract, OpInput, OpName } from '../../shared/contract/index.js';
import { httpRequestOf } from '../../shared/contract/http-request.js';
import { ServiceError } from '../../shared/errors.js';
import { checkKey, dispatch } from '../transport/dispatch.js';
import type { ServiceContext } from '../service/context.js';

/** An operation's answer as it arrives (JSON of the output schema: every defaulted key present). */
export type OpResult<K extends OpName> = z.output<Contract[K]['output']>;

export interface Caller {
  call<K extends OpName>(name: K, input: OpInput<K>, signal?: AbortSignal): Promise<OpResult<K>>;
  /**
   * Null when writes (add_feedback) may run; else why not, said to the agent. Over HTTP the key is
   * the one credential (decision 0008); a stdio server was started by the user and holds it.
   */
  writeRefusal: string | null;
  /** Which Loupe answers (its data folder or URL): answers kept for a moment are kept per Loupe. */
  scope: string;
}

export const KEY_HINT =
  'send the API key as a bearer token: add the header "Authorization: Bearer <key>" to this MCP server in your agent\'s configuration (`loupe key` prints the key; Settings → Coding agents shows the configuration), or use the stdio server `loupe mcp`';

/** This process's operations, as the HTTP route or IPC would call them. */
export function localCaller(ctx: ServiceContext, auth: { authorization?: string | null; trusted?: boolean }): Caller {
  const trusted = auth.trusted === true;
  const keyed = trusted || checkKey(auth.authorization, ctx.apiKey);
  return {
    scope: `${ctx.dataDir}|${ctx.traces.location}`,
    writeRefusal: keyed ? null : `writes need Loupe's API key and this request carried none (or a wrong one): ${KEY_HINT}`,
    async call(name, input, signal) {
      return (await dispatch(name, input, ctx, { authorization: auth.authorization ?? null, trusted, signal })) as OpResult<typeof name>;
    },
  };
}

/** A Loupe running at `baseUrl` (this machine's loopback), called with its key. */
export function remoteCaller(baseUrl: string, key: string): Caller {
  return {
    scope: baseUrl,
    writeRefusal: null,
    async call(name, input, signal) {
      const req = httpRequestOf(name, input);
      const headers: Record<string, string> = { authorization: `Bearer ${key}` };
      if (req.body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${baseUrl}${req.url}`, { method: req.method, headers, body: req.body, signal });
      const text = await res.text();
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        throw new ServiceError(res.status >= 400 ? res.status : 502, `the Loupe at ${baseUrl} answered ${name} with something that is not JSON`);
      }
      if (!res.ok) {
        const detail = (body as { detail?: unknown } | null)?.detail;
        const retry = Number(res.headers.get('retry-after'));
        const err = new ServiceError(res.status, typeof detail === 'string' || Array.isArray(detail) ? (detail as ServiceError['detail']) : `the Loupe at ${baseUrl} answered ${res.status}`);
        if (Number.isFinite(retry) && retry > 0) err.retryAfterSeconds = retry;
        throw err;
      }
      return body as OpResult<typeof name>;
    },
  };
}
