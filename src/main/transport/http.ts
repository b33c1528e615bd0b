/**
 * The loopback HTTP server: contract routes (generated), OTLP receiver, /events, /openapi.json,
 * /app/key and the renderer. Every request passes the Host/Origin guard first; errors leave as
 * `{"detail": ...}` with the ServiceError's status.
 */
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { ServiceError, unauthorized, type ErrorDetail } from '../../shared/errors.js';
import { openAiError } from '../../shared/openai-error.js';
import { checkKey } from './dispatch.js';
import { eventsTicket } from '../settings/login-codes.js';
import { timingSafeEqual } from 'node:crypto';
import type { ServiceContext } from '../service/context.js';
import { registerContractRoutes } from './contract-routes.js';
import { guardRequest } from './guard.js';
import { storeFailure } from './store-errors.js';
import { StoreAbortedError } from '../store/ports.js';
import { buildOpenApi } from './openapi.js';
import { registerOtlpRoutes } from './otlp.js';
import { registerEventStream } from './sse.js';
import { serveStatic } from './static.js';
import { registerMcpRoute } from '../mcp/http.js';

export interface HttpOptions {
  rendererDir: string | null;
  version: string;
  log?: (line: string) => void;
}

export interface LoupeHttp {
  app: FastifyInstance;
  /** Binds 127.0.0.1:port (0 = any); when the port is taken, says so and takes a free one. */
  listen(port: number): Promise<number>;
}

/** How long close waits for handlers still running before it cuts their connections. */
export const CLOSE_WAIT_MS = 30_000;

const isThenable = (v: unknown): v is PromiseLike<unknown> => v !== null && typeof v === 'object' && typeof (v as PromiseLike<unknown>).then === 'function';

export function buildHttpServer(ctx: ServiceContext, opts: HttpOptions): LoupeHttp {
  // The port the guard accepts in Origin; known once listening.
  let boundPort = -1;
  const app = Fastify({
    logger: false,
    // Shutdown closes keep-alive and streaming (/events) connections instead of waiting for them.
    forceCloseConnections: true,
    return503OnClosing: true,
    // Requests too broken to parse (bad framing) still get the API's {"detail"} shape.
    clientErrorHandler: (_err, socket) => {
      if (!socket.writable) return socket.destroy();
      const body = '{"detail":"Bad Request"}';
      socket.end(`HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
    },
    // Errors the router raises before any route runs (bad %-encoding, an over-long path segment)
    // leave in the API's {"detail"} shape too, not fastify's own.
    frameworkErrors: (error, _request, reply) => {
      const status = error.statusCode ?? 400;
      void (reply as FastifyReply).code(status >= 400 && status < 500 ? status : 400).send({ detail: error.message });
    },
  });

  // Close waits for the handlers still running (bounded) before it cuts connections, so the store is
  // never closed under one: a demo load or an import cut there failed halfway, its write rejecting
  // with "The database connection is not open" after its client was gone. `closing` is set before
  // preClose runs, so requests arriving meanwhile get 503 (return503OnClosing).
  const running = new Set<Promise<unknown>>();
  app.addHook('onRoute', (route) => {
    const handler = route.handler;
    route.handler = function (this: FastifyInstance, request, reply) {
      const result: unknown = handler.call(this, request, reply);
      if (!isThenable(result)) return result;
      const tracked = Promise.resolve(result);
      running.add(tracked);
      const done = () => running.delete(tracked);
      tracked.then(done, done);
      return tracked;
    };
  });
  app.addHook('preClose', async () => {
    if (!running.size) return;
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)));
    await Promise.race([Promise.allSettled([...running]), limit]);
    clearTimeout(timer);
    if (running.size) opts.log?.(`closing with ${running.size} request(s) still running after ${CLOSE_WAIT_MS / 1000} s`);
  });

  // No page of another site may frame the UI (clickjacking), nor sniff a JSON answer as script.
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('x-frame-options', 'DENY');
    reply.header('content-security-policy', "frame-ancestors 'none'");
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
    return payload;
  });

  app.addHook('onRequest', async (request, reply) => {
    const refusal = guardRequest(request.headers, boundPort);
    if (refusal) return reply.code(403).send({ detail: refusal });
  });

  app.removeAllContentTypeParsers();
  // Every body of the JSON API is parsed as JSON whatever it is labelled (curl -d sends
  // x-www-form-urlencoded by default); a body that is not JSON is a 422 json_invalid, as in FastAPI.
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => {
    const text = (body as Buffer).toString('utf8');
    if (!text.trim()) return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (err) {
      done(jsonInvalid(err as Error), undefined);
    }
  });

  app.setErrorHandler((error: FastifyError | ServiceError, request, reply) => sendError(storeFailure(error, ctx.health) ?? error, request, reply, opts.log));
  app.setNotFoundHandler((request, reply) => {
    if (serveStatic(opts.rendererDir, request, reply)) return reply;
    return reply.code(404).send({ detail: 'Not Found' });
  });

  const openapi = buildOpenApi(opts.version);
  app.get('/openapi.json', async () => openapi);
  // The key and the event stream (training events, file paths of imports) are the user's alone: the
  // app's own window gets them over IPC, HTTP callers with the key (issue 13.4, docs/security.md).
  const needKey = async (request: FastifyRequest) => {
    if (!checkKey(request.headers.authorization, ctx.apiKey)) throw unauthorized(`${request.url.split('?')[0]} needs the API key (Authorization: Bearer <key>; \`loupe key\` prints it)`);
  };
  app.get('/app/key', { onRequest: needKey }, async () => ({ key: ctx.apiKey }));
  const ticket = eventsTicket(ctx.apiKey);
  registerEventStream(app, ctx, async (request) => {
    const given = (request.query as Record<string, unknown> | undefined)?.ticket;
    if (typeof given === 'string' && given.length === ticket.length && timingSafeEqual(Buffer.from(given), Buffer.from(ticket))) return;
    await needKey(request);
  });
  registerContractRoutes(app, ctx);
  registerOtlpRoutes(app, ctx);
  registerMcpRoute(app, ctx, opts.log);

  return {
    app,
    async listen(port) {
      try {
        await app.listen({ host: '127.0.0.1', port });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || port === 0) throw err;
        opts.log?.(`port ${port} is in use; using a free port instead`);
        await app.listen({ host: '127.0.0.1', port: 0 });
      }
      const address = app.server.address();
      boundPort = typeof address === 'object' && address ? address.port : port;
      return boundPort;
    },
  };
}

function sendError(error: FastifyError | ServiceError, request: FastifyRequest, reply: FastifyReply, log?: (line: string) => void) {
  // The client hung up and its read was stopped: nobody is there to answer (nginx's 499).
  if (error instanceof StoreAbortedError) return reply.code(499).send({ detail: error.message });
  // A route may ask for OpenAI's error shape (contract `errorShape`, passed as route config).
  const openai = (request.routeOptions.config as { errorShape?: string } | undefined)?.errorShape === 'openai';
  const send = (status: number, detail: ErrorDetail, hint: { code?: string; param?: string } = {}) => {
    if (!openai) return reply.code(status).send({ detail });
    const e = openAiError(status, detail, hint);
    return reply.code(e.status).send(e.body);
  };
  if (error instanceof ServiceError) {
    if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
    return send(error.status, error.detail, { code: error.code, param: error.param });
  }
  const code = error.code;
  const status = error.statusCode;
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    const limit = request.routeOptions.bodyLimit;
    return send(413, `Request body too large: ${request.method} ${request.routeOptions.url ?? request.url} accepts at most ${limit} bytes`);
  }
  if (status && status >= 400 && status < 500) return send(status, error.message);
  log?.(`error in ${request.method} ${request.url}: ${error.stack ?? error.message}`);
  return send(500, 'Internal Server Error');
}

/** FastAPI's shape for a body that is not JSON: loc ["body", <char position>], type json_invalid. */
function jsonInvalid(err: Error): ServiceError {
  const pos = /position (\d+)/.exec(err.message);
  return new ServiceError(422, [
    { loc: ['body', pos ? Number(pos[1]) : 0], msg: 'JSON decode error', type: 'json_invalid', input: {}, ctx: { error: err.message } },
  ]);
}
