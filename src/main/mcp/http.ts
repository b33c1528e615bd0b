/**
 * Streamable HTTP at `/mcp` on the loopback server. The route sits behind the server's Host/Origin
 * guard like every other (transport/guard.ts: a foreign Host or Origin gets 403 before this runs).
 * The SDK's handler serves the stateless 2026-07-28 revision and, statelessly, the 2025 revisions
 * (each request answered by a fresh server instance; no session is kept). Reads are open to local
 * processes as the query operations are (decision 0008); the request's bearer token is checked by
 * the caller for writes and by dispatch for the training reads.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createMcpHandler } from '@modelcontextprotocol/server';
import type { ServiceContext } from '../service/context.js';
import { localCaller } from './caller.js';
import { MCP_PATH } from './config.js';
import { mcpServerFactory } from './server.js';

/** JSON-RPC bodies are small; a larger one is refused before it is parsed. */
export const MCP_MAX_BODY = 1024 * 1024;

export function registerMcpRoute(app: FastifyInstance, ctx: ServiceContext, log?: (line: string) => void): void {
  const handler = createMcpHandler(
    mcpServerFactory((request) => localCaller(ctx, { authorization: request.requestInfo?.headers.get('authorization') ?? null }), {
      onOverBudget: (tool, bytes, budget) => log?.(`mcp: ${tool} answered ${bytes} bytes, over its ${budget}-byte budget`),
    }),
    { maxRequestBodySize: MCP_MAX_BODY, onerror: (err) => log?.(`mcp: ${err.message}`) },
  );
  app.addHook('onClose', async () => handler.close());
  // Its own scope: the MCP handler reads the body itself (a JSON parse error is JSON-RPC's -32700, not the API's 422).
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MCP_MAX_BODY }, (_req, body, done) => done(null, body));
    scope.route({ method: ['GET', 'POST', 'DELETE'], url: MCP_PATH, bodyLimit: MCP_MAX_BODY, handler: (request, reply) => serve(handler.fetch, request, reply) });
  });
}

async function serve(fetch: (r: Request) => Promise<Response>, request: FastifyRequest, reply: FastifyReply) {
  const headers = new Headers();
  for (const [k, v] of Object.entries(request.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : String(v));
  // Stops the tool's reads when the agent goes away (dispatch passes the signal to the store).
  const gone = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) gone.abort();
  });
  const body = request.method === 'POST' && Buffer.isBuffer(request.body) ? new Uint8Array(request.body) : undefined;
  const res = await fetch(new Request(`http://${request.headers.host ?? '127.0.0.1'}${request.url}`, { method: request.method, headers, body, signal: gone.signal }));
  reply.code(res.status);
  res.headers.forEach((v, k) => void reply.header(k, v));
  if (!res.body) return reply.send();
  return reply.send(Readable.fromWeb(res.body));
}
