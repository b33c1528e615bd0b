/**
 * Transport-neutral entry: look the operation up, check auth, validate the input with the
 * contract's zod schema, call the handler. HTTP and IPC both call this and nothing else.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { contract, type OpName } from '../../shared/contract/index.js';
import { ServiceError, unauthorized } from '../../shared/errors.js';
import { toValidationIssues } from '../../shared/validation.js';
import { nestedDeeperThan } from '../../shared/bounded.js';
import { handlers, type CallOptions } from '../service/handlers.js';
import type { ServiceContext } from '../service/context.js';

export interface CallMeta {
  /** Raw Authorization header (HTTP) — IPC calls come from the app itself and are trusted. */
  authorization?: string | null;
  trusted?: boolean;
  /** Where each top-level input key came from, for 422 `loc` (default "body"). */
  locOf?: (key: string | number | undefined) => string;
  /** Fires when the caller is gone (HTTP connection closed, IPC call cancelled). */
  signal?: AbortSignal;
  /** Sets a response header (HTTP). */
  header?: (name: string, value: string) => void;
}

export function isOpName(name: string): name is OpName {
  return Object.prototype.hasOwnProperty.call(contract, name);
}

/** Deepest input accepted: above what any operation means (a `$expr` filter may nest 32 operators, ~66 JSON levels; its compiler names that limit). */
export const MAX_INPUT_DEPTH = 128;

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Constant-time comparison of the bearer key (style: lock the loopback door). */
export function checkKey(authorization: string | null | undefined, apiKey: string): boolean {
  const m = /^Bearer\s+(.+)$/i.exec(authorization ?? '');
  if (!m) return false;
  return timingSafeEqual(digest(m[1]!.trim()), digest(apiKey));
}

export async function dispatch(name: string, rawInput: unknown, ctx: ServiceContext, meta: CallMeta = {}): Promise<unknown> {
  if (!isOpName(name)) throw new ServiceError(404, `Unknown operation: ${name}`);
  const def = contract[name];
  if (def.auth === 'key' && !meta.trusted && !checkKey(meta.authorization, ctx.apiKey)) throw unauthorized();
  // zod walks input recursively: a body nested thousands of levels deep would overflow its stack
  // (and the error's own serialization). No operation's input legitimately nests this deep.
  if (nestedDeeperThan(rawInput, MAX_INPUT_DEPTH)) {
    throw new ServiceError(422, [
      { loc: [meta.locOf?.(undefined) ?? 'body'], msg: `Input is nested more than ${MAX_INPUT_DEPTH} levels deep`, type: 'too_deep', ctx: { max_depth: MAX_INPUT_DEPTH } },
    ]);
  }
  const parsed = def.input.safeParse(rawInput ?? {});
  if (!parsed.success) throw new ServiceError(422, toValidationIssues(parsed.error, rawInput, meta.locOf));
  const needs = (def.keyFor as ((i: unknown) => string | null) | undefined)?.(parsed.data);
  if (needs && !meta.trusted && !checkKey(meta.authorization, ctx.apiKey)) {
    throw unauthorized(`${needs} needs the API key over HTTP (Authorization: Bearer <key>; \`loupe key\` prints it)`);
  }
  const handler = handlers[name] as (input: unknown, c: ServiceContext, call: CallOptions) => unknown;
  return await handler(parsed.data, ctx, { signal: meta.signal, header: meta.header });
}
