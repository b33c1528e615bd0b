/**
 * One fastify route per contract operation (and per alias), built by iterating the contract: no
 * route is written by hand. Input = path params + (GET: query string; otherwise query + JSON body),
 * and dispatch is told where each key came from so a 422 `loc` starts with "path", "query" or "body".
 */
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { contract } from '../../shared/contract/index.js';
import type { OpDef } from '../../shared/contract/define.js';
import { ServiceError, unauthorized } from '../../shared/errors.js';
import { isStatusResult } from '../../shared/status-result.js';
import type { ServiceContext } from '../service/context.js';
import { checkKey, dispatch } from './dispatch.js';
import { rawBodyHandlers } from '../service/raw-body-handlers.js';
import { coerceQuery } from './query-coerce.js';
import { sendJsonl } from './jsonl.js';
import { sendSse } from './sse.js';

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

export function registerContractRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  const raw: [string, OpDef][] = [];
  for (const [name, def] of Object.entries(contract) as [string, OpDef][]) {
    if (def.rawBody) {
      raw.push([name, def]);
      continue;
    }
    for (const url of [def.path, ...(def.aliases ?? [])]) {
      app.route({
        method: def.method,
        url, // contract paths use `:param`, fastify's own syntax
        bodyLimit: def.maxBodyBytes ?? DEFAULT_BODY_LIMIT,
        config: { errorShape: def.errorShape ?? 'detail' },
        handler: (request, reply) => handle(name, def, request, reply, ctx),
      });
    }
  }
  // Raw-body operations live in their own plugin scope, where every body passes through unparsed
  // as the request stream (fastify scopes content-type parsers by plugin).
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    for (const [name, def] of raw) {
      if (!rawBodyHandlers[name]) throw new Error(`${name} is a rawBody operation without a raw-body handler (service/raw-body.ts)`);
      for (const url of [def.path, ...(def.aliases ?? [])]) {
        scope.route({
          method: def.method,
          url,
          config: { errorShape: def.errorShape ?? 'detail' },
          handler: (request, reply) => handleRaw(name, def, request, reply, ctx),
        });
      }
    }
  });
}

/** A rawBody operation over HTTP: the key is checked before a byte of the body is read. */
async function handleRaw(name: string, def: OpDef, request: FastifyRequest, reply: FastifyReply, ctx: ServiceContext): Promise<unknown> {
  const body = request.body instanceof Readable ? request.body : Readable.from([]);
  if (def.auth === 'key' && !checkKey(request.headers.authorization ?? null, ctx.apiKey)) {
    body.resume(); // drain: the answer goes out without reading the body into memory
    throw unauthorized();
  }
  const result = await rawBodyHandlers[name]!(
    {
      body,
      maxBytes: def.maxBodyBytes ?? DEFAULT_BODY_LIMIT,
      params: (request.params ?? {}) as Record<string, unknown>,
      query: coerceQuery(def.input, (request.query ?? {}) as Record<string, unknown>),
      contentType: request.headers['content-type'] ?? null,
      contentLength: request.headers['content-length'] ? Number(request.headers['content-length']) : null,
    },
    ctx,
  );
  return reply.send(result);
}

async function handle(name: string, def: OpDef, request: FastifyRequest, reply: FastifyReply, ctx: ServiceContext): Promise<unknown> {
  const params = (request.params ?? {}) as Record<string, string>;
  const query = coerceQuery(def.input, (request.query ?? {}) as Record<string, unknown>);
  const body = request.body;
  if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body))) {
    throw new ServiceError(422, [{ loc: ['body'], msg: 'Input should be a valid dictionary', type: 'dict_type', input: body }]);
  }
  const input: Record<string, unknown> = { ...query, ...((body as Record<string, unknown> | undefined) ?? {}), ...params };
  const locOf = (key: string | number | undefined) => {
    if (typeof key === 'string' && Object.hasOwn(params, key)) return 'path';
    if (typeof key === 'string' && Object.hasOwn(query, key) && !(body && typeof body === 'object' && Object.hasOwn(body, key))) return 'query';
    return def.method === 'GET' ? 'query' : 'body';
  };
  // The client hanging up (a page left, a query superseded) stops its read in the store.
  const gone = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) gone.abort();
  });
  const result = await dispatch(name, input, ctx, { authorization: request.headers.authorization ?? null, locOf, signal: gone.signal, header: (k, v) => void reply.header(k, v) });
  // A handler that chose its own status (e.g. system-check's 503) sends its body as is.
  if (isStatusResult(result)) return reply.code(result.status).send(result.body);

  if (def.stream === 'jsonl') {
    return sendJsonl(reply, result as Iterable<unknown> | AsyncIterable<unknown>);
  }
  if (def.stream === 'sse-optional' && isAsyncIterable(result)) {
    await sendSse(reply, result);
    return reply;
  }
  return reply.send(result);
}

const isAsyncIterable = (v: unknown): v is AsyncIterable<unknown> =>
  v !== null && typeof v === 'object' && typeof (v as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function';
