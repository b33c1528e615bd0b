/** The streamed form of `sse-optional` operations: `data: <json>` per chunk, then `data: [DONE]`. */
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
    expect(text).toBe('data: {"n":1}\n\n' + 'data: {"error":{"message":"trainer worker stopped"}}\n\n');
  });
});
