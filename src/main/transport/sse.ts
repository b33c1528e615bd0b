/**
 * Server-sent events: the `/events` stream of every LoupeEvent, and the streamed form of
 * `sse-optional` operations (chat completions with `stream: true`).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../service/context.js';

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

import { ServiceError } from '../../shared/errors.js';
import { openAiError } from '../../shared/openai-error.js';

/** Sends each chunk as `data: <json>\n\n`, then `data: [DONE]\n\n` (the OpenAI streaming shape). */
export async function sendSse(reply: FastifyReply, chunks: AsyncIterable<unknown>): Promise<void> {
  // Headers the handler set (reply.header) go out with the stream's own.
  const own = reply.getHeaders() as Record<string, string>;
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, { ...own, ...SSE_HEADERS });
  try {
    for await (const chunk of chunks) {
      if (res.destroyed) return;
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    }
    res.write('data: [DONE]\n\n');
  } catch (err) {
    // Headers are gone: report the failure in-band as OpenAI's streams do, an event holding
    // `{"error": {message, type, param, code}}` (the openai client raises it as an APIError).
    const e = err instanceof ServiceError ? openAiError(err.status, err.detail, { code: err.code, param: err.param }) : openAiError(500, (err as Error).message ?? String(err));
    res.write(`data: ${JSON.stringify(e.body)}\n\n`);
  } finally {
    res.end();
  }
}

/** GET /events: every event on the bus until the client goes away or the server closes. */
export function registerEventStream(app: FastifyInstance, ctx: ServiceContext, onRequest: (request: FastifyRequest) => Promise<void>): void {
  const open = new Set<() => void>();
  app.get('/events', { onRequest }, (request, reply) => {
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, SSE_HEADERS);
    res.write(': connected\n\n');
    const off = ctx.events.on((event) => res.write(`data: ${JSON.stringify(event)}\n\n`));
    // A comment line every 15 s keeps proxies and idle timers from cutting a quiet stream.
    const ping = setInterval(() => res.write(': ping\n\n'), 15_000);
    ping.unref();
    const end = () => {
      off();
      clearInterval(ping);
      open.delete(end);
      if (!res.writableEnded) res.end();
    };
    open.add(end);
    request.raw.on('close', end);
  });
  app.addHook('onClose', async () => {
    for (const end of [...open]) end();
  });
}
