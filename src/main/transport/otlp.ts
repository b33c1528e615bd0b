/**
 * OTLP/HTTP receiver (semantics §10): `POST /v1/traces` takes protobuf or JSON, optionally gzip,
 * imports it through the same importer as files, and answers in the content type it received with
 * partial-success counts. `POST /v1/logs` (same encodings) takes GenAI log records and joins them to
 * their spans as those spans' messages (service/ingest/logs.ts, log-join.ts); other log records are
 * accepted and not kept. `/v1/metrics` answers 200 and is ignored, so an SDK that exports all three
 * signals to the default endpoint keeps working. Langfuse's SDKs post the same
 * OTLP to `/api/public/otel/v1/traces` with a Basic auth header of their keys: the path is served
 * too and the header ignored (the server answers loopback only), so such an app needs only its
 * host changed to reach Loupe.
 *
 * Registered in its own fastify scope because its content-type parsers differ from the JSON API:
 * bodies arrive as raw bytes and are decoded by the importer.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError, payloadTooLarge } from '../../shared/errors.js';
import type { ServiceContext } from '../service/context.js';
import { encodeOtlpProtoResponse } from '../service/ingest/index.js';
import { bodyIngester, closeBodyIngester } from '../service/ingest/body-ingest.js';
import { decodeLogsBody, encodeLogsResponse, logEvents } from '../service/ingest/logs.js';
import { logJoiner } from '../service/ingest/log-join.js';
import { readBody } from '../service/raw-body.js';
import { DecodeBudget, EARLY_LOOK_BYTES, checkBodyStart } from '../service/ingest/budget.js';

/** 64 MiB after decompression (semantics §10). */
export const OTLP_MAX_BYTES = 64 * 1024 * 1024;

/** The OTLP path, and the one the Langfuse SDKs export to (`LANGFUSE_HOST` + this). */
export const TRACE_PATHS = ['/v1/traces', '/api/public/otel/v1/traces'] as const;

const PROTO_TYPES = new Set(['application/x-protobuf', 'application/protobuf']);

export function registerOtlpRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.addHook('onClose', () => closeBodyIngester(ctx));
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    // Read into one buffer as it arrives (raw-body.ts readBody), not gathered and then concatenated:
    // a 60 MiB body costs ~75 MiB at its peak instead of 120 (issue 23.2).
    // The start of a large body is checked against the decode budget as soon as it has arrived
    // (budget.ts checkBodyStart): a bomb is a 413 before the client has finished sending it.
    scope.addContentTypeParser('*', (request, payload, done) => {
      const length = Number(request.headers['content-length']);
      const gzip = /gzip/i.test(String(request.headers['content-encoding'] ?? ''));
      const kind = PROTO_TYPES.has(mediaType(request)) ? 'proto' : 'json';
      const budget = new DecodeBudget('body', request.url.startsWith('/v1/logs') ? 'logs' : 'traces');
      const early = { atBytes: gzip ? EARLY_LOOK_BYTES.gzip : EARLY_LOOK_BYTES.plain, look: (head: Buffer) => checkBodyStart(head, kind, gzip, budget) };
      // A refusal goes to the handler as the body, not to done(err): fastify answers a parser's error
      // with `Connection: close` and the socket ends while the client is still sending, so the client
      // may see EPIPE/ECONNRESET instead of the 413. From the handler the 413 leaves on a kept
      // connection while readBody drains the rest unread.
      readBody({ body: payload, maxBytes: OTLP_MAX_BYTES, contentLength: Number.isFinite(length) ? length : null }, early).then(
        (body) => done(null, body),
        (err: Error) => done(null, new RefusedBody(err)),
      );
    });
    for (const p of TRACE_PATHS) scope.post(p, { bodyLimit: OTLP_MAX_BYTES }, (request, reply) => receiveTraces(request, reply, ctx));
    scope.post('/v1/logs', { bodyLimit: OTLP_MAX_BYTES }, (request, reply) => receiveLogs(request, reply, ctx));
    scope.post('/v1/metrics', { bodyLimit: OTLP_MAX_BYTES }, (request, reply) => {
      const proto = PROTO_TYPES.has(mediaType(request));
      return proto ? reply.type('application/x-protobuf').send(Buffer.alloc(0)) : reply.send({});
    });
  });
}

/** A body refused while it was arriving (over the cap, or a decode bomb seen in its first bytes). */
class RefusedBody {
  constructor(readonly error: Error) {}
}

/** What every OTLP post is checked for first: JSON or protobuf, identity or gzip, within the cap. */
function otlpBody(request: FastifyRequest, path: string) {
  if (request.body instanceof RefusedBody) throw request.body.error;
  const type = mediaType(request);
  const proto = PROTO_TYPES.has(type);
  if (!proto && type !== 'application/json') {
    throw new ServiceError(415, `Unsupported Content-Type '${type || '(none)'}' for ${path}: send application/x-protobuf or application/json`);
  }
  const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  const encoding = String(request.headers['content-encoding'] ?? 'identity').toLowerCase().trim();
  if (encoding !== 'identity' && encoding !== '' && encoding !== 'gzip' && encoding !== 'x-gzip') {
    throw new ServiceError(415, `Unsupported Content-Encoding '${encoding}' for ${path}: send gzip or no encoding`);
  }
  if ((encoding === 'identity' || encoding === '') && raw.length > OTLP_MAX_BYTES) throw tooLarge();
  const projectHeader = request.headers['x-project-id'];
  const projectId = (Array.isArray(projectHeader) ? projectHeader[0] : projectHeader)?.trim() || undefined;
  return { proto, raw, encoding, projectId };
}

async function receiveLogs(request: FastifyRequest, reply: FastifyReply, ctx: ServiceContext) {
  const { proto, raw, encoding, projectId } = otlpBody(request, '/v1/logs');
  const req = decodeLogsBody(raw, { proto, contentEncoding: encoding === 'identity' ? undefined : encoding });
  const read = logEvents(req, projectId);
  if (read.events.length) await logJoiner(ctx).receive(read.events);
  return proto ? reply.type('application/x-protobuf').send(Buffer.from(encodeLogsResponse(0, ''))) : reply.type('application/json').send({});
}

async function receiveTraces(request: FastifyRequest, reply: FastifyReply, ctx: ServiceContext) {
  const { proto, raw, encoding, projectId } = otlpBody(request, '/v1/traces');
  const contentType = proto ? 'application/x-protobuf' : 'application/json';
  const contentEncoding = encoding === 'identity' ? undefined : encoding;
  const spool = ctx.spool;
  // A full spool is a 503 before a body that will surely be spooled is parsed (others are checked when kept);
  // a body that stays on the synchronous path is never refused for it.
  if (spool && raw.length >= spool.config.minBytes) spool.admit(raw.length);
  // Decompressed (capped at 64 MiB: a gzip bomb is a 413), parsed and normalized off this thread when
  // large (service/ingest/body-ingest.ts); 429 + Retry-After when too much is already waiting.
  // A body of the spool's size is only checked there, then kept on disk and answered (ingest/spool.ts).
  const out = await bodyIngester(ctx).importOrCheck(raw, {
    contentType,
    contentEncoding,
    projectId,
    events: ctx.events,
    // An exporter is answered once its spans are stored; summaries follow (ClickHouse: writer.ts).
    summaries: 'later',
  }, true, spool?.threshold);
  if ('checked' in out) {
    await spool!.put(out.body, { contentType, contentEncoding, projectId }, out.spans);
  } else {
    // Log records that arrived before their spans may find them now.
    await logJoiner(ctx).retryPending();
  }
  const report = 'checked' in out ? out.checked : out;
  const rejected = report.spans_skipped;
  const message = report.errors.map((e) => (e.line == null ? e.message : `line ${e.line}: ${e.message}`)).join('; ');
  if (proto) {
    return reply.type('application/x-protobuf').send(Buffer.from(encodeOtlpProtoResponse(rejected, message)));
  }
  const partial = rejected > 0 || message ? { partialSuccess: { rejectedSpans: String(rejected), ...(message ? { errorMessage: message } : {}) } } : {};
  return reply.type('application/json').send(partial);
}

function mediaType(request: FastifyRequest): string {
  return String(request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

const tooLarge = () => payloadTooLarge(`OTLP body exceeds ${OTLP_MAX_BYTES / 1024 / 1024} MiB after decompression`);
