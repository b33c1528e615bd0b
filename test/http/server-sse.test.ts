/**
 * Streamed answers: `sse-optional` operations (`data: <json>` per chunk, then `data: [DONE]`) and
 * `jsonl` operations (a lazily failing generator still gets its own status).
 */
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceError, invalid } from '../../src/shared/errors.js';
import { sendJsonl } from '../../src/main/transport/jsonl.js';
import { sendSse } from '../../src/main/transport/sse.js';

const app = Fastify();
beforeAll(async () => {
  app.get('/ok', async (_req, reply) => {
    await sendSse(reply, (async function* () {
      yield { id: 'c1', choices: [{ delta: { content: 'Hel' } }] };
      yield { id: 'c1', choices: [{ delta: { content: 'lo' } }] };
    })());
    return reply;
  });
  app.get('/fails', async (_req, reply) => {
    await sendSse(reply, (async function* () {
      yield { n: 1 };
      throw new Error('trainer worker stopped');
    })());
    return reply;
  });
  app.setErrorHandler((err, _req, reply) => reply.code(err instanceof ServiceError ? err.status : 500).send({ detail: err instanceof ServiceError ? err.detail : 'x' }));
  app.get('/lines', (_req, reply) => sendJsonl(reply, (function* () {
    yield { a: 1 };
    yield { a: 2 };
  })()));
  // Fails at its first item, after the route answered: the error must still come back as a 422.
  const failingAtFirst: AsyncIterable<never> = {
    [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(invalid(['sort_by', 0, 'field'], "cannot sort by 'x'")) }),
  };
  app.get('/lazy422', (_req, reply) => sendJsonl(reply, failingAtFirst));
  await app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(() => app.close());

const url = (p: string) => `http://127.0.0.1:${(app.server.address() as { port: number }).port}${p}`;

describe('sendSse', () => {
  it('sends each chunk as an event and ends with [DONE]', async () => {
    const res = await fetch(url('/ok'));
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(await res.text()).toBe(
      'data: {"id":"c1","choices":[{"delta":{"content":"Hel"}}]}\n\n' + 'data: {"id":"c1","choices":[{"delta":{"content":"lo"}}]}\n\n' + 'data: [DONE]\n\n',
    );
  });

  it('reports a failure in-band once the stream has started (headers are already sent)', async () => {
    const text = await (await fetch(url('/fails'))).text();
    // An OpenAI error event (issue 22.13): the clients' stream readers look for type, param and code.
    expect(text).toBe('data: {"n":1}\n\n' + 'data: {"error":{"message":"trainer worker stopped","type":"server_error","param":null,"code":null}}\n\n');
  });
});

describe('sendJsonl', () => {
  it('streams application/jsonl, one document per line', async () => {
    const res = await fetch(url('/lines'));
    expect(res.headers.get('content-type')).toMatch(/^application\/jsonl/);
    expect(await res.text()).toBe('{"a":1}\n{"a":2}\n');
  });

  it('answers a generator that throws before its first line with that error status and detail', async () => {
    const res = await fetch(url('/lazy422'));
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ detail: [{ loc: ['body', 'sort_by', 0, 'field'], msg: "cannot sort by 'x'", type: 'value_error' }] });
  });
});
