/** The HTTP form of `jsonl` operations: `application/jsonl`, one JSON document per line as yielded. */
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';

const isAsyncIterable = (v: unknown): v is AsyncIterable<unknown> =>
  v !== null && typeof v === 'object' && typeof (v as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function';

function iteratorOf(items: Iterable<unknown> | AsyncIterable<unknown>): AsyncIterator<unknown> | Iterator<unknown> {
  if (isAsyncIterable(items)) return items[Symbol.asyncIterator]();
  if (items && typeof (items)[Symbol.iterator] === 'function') return (items)[Symbol.iterator]();
  throw new Error('a jsonl operation must return an iterable');
}

/**
 * Pulls the first element before the status line goes out, so a generator handler that validates
 * lazily (a 422, a 404 thrown on first `next()`) still answers with its own status and detail; later
 * elements stream as they come (nothing is buffered). A failure after the first line can only cut
 * the stream short.
 */
export async function sendJsonl(reply: FastifyReply, items: Iterable<unknown> | AsyncIterable<unknown>): Promise<FastifyReply> {
  const it = iteratorOf(items);
  const first = await it.next();
  async function* lines(): AsyncGenerator<string> {
    for (let r = first; !r.done; r = await it.next()) yield `${JSON.stringify(r.value)}\n`;
  }
  reply.type('application/jsonl; charset=utf-8');
  return reply.send(Readable.from(lines()));
}
