/**
 * Property test over every operation of the contract (issue 13.8): for inputs generated from each
 * operation's schema and mutated with hostile values, the server never answers 5xx (except the 503s
 * an operation declares, and 503 + Retry-After for a store that is busy), every error is JSON in the
 * operation's declared shape (`detail`, or OpenAI's `error` for the OpenAI-compatible routes), the server stays alive, and afterwards the store passes integrity_check and its
 * summaries agree with its spans. Bounded: RUNS inputs per operation, fixed seed (reproducible; a
 * failure prints the seed and the shrunk input).
 */
import fc from 'fast-check';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contract } from '../../src/shared/contract/index.js';
import type { OpDef } from '../../src/shared/contract/define.js';
import { keyHeader, rawRequest, startTestServer } from './server-harness.js';
import { hostile, inputArbitrary } from '../helpers/schema-arbitrary.js';
import { storeConsistency } from '../helpers/store-consistency.js';
import { textOf } from '../../src/shared/text.js';

const RUNS = Number(process.env.LOUPE_FUZZ_RUNS ?? 40);
const SEED = Number(process.env.LOUPE_FUZZ_SEED ?? 1313);

/** Operations whose effects would make the run slow or change the server under test; fuzzed with fewer runs. */
const HEAVY = new Set(['system.loadDemo', 'training.createSftJob', 'training.createRlJob', 'training.chatCompletions', 'system.checkIntegrity', 'training.log']);

let server: Awaited<ReturnType<typeof startTestServer>>;
const tally = { tried: 0, answered4xx: 0, answered2xx: 0, answered503: 0 };

beforeAll(async () => {
  server = await startTestServer();
  const demo = await rawRequest(server.port, { method: 'POST', path: '/app/demo', headers: { 'content-type': 'application/json' }, body: '{}' });
  expect(demo.status).toBe(200);
}, 120_000);
afterAll(async () => {
  console.log(`fuzz: ${tally.tried} inputs over ${Object.keys(contract).length} operations: ${tally.answered2xx} accepted, ${tally.answered4xx} refused with 4xx, ${tally.answered503} declared 503s (system-check, Retry-After), no 500`);
  await server?.close();
});

/** Method, path and body (or query string) of one call, as a client would send it. */
function request(def: OpDef, input: unknown): { method: string; path: string; body?: string } {
  const rest: Record<string, unknown> = input && typeof input === 'object' && !Array.isArray(input) ? { ...(input as Record<string, unknown>) } : {};
  const path = def.path.replace(/:([A-Za-z_]+)/g, (_, p: string) => {
    const v = rest[p];
    delete rest[p];
    return encodeURIComponent(textOf(v) || 'x');
  });
  if (def.method === 'GET') {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(rest)) if (v !== undefined) qs.set(k, typeof v === 'string' ? v : JSON.stringify(v));
    return { method: 'GET', path: [...qs].length ? `${path}?${qs.toString()}` : path };
  }
  const bodyValue = input && typeof input === 'object' && !Array.isArray(input) ? rest : input;
  return { method: def.method, path, body: JSON.stringify(bodyValue) };
}

const declared503 = (def: OpDef) => (def.alsoAnswers ?? []).some((a) => a.status === 503);

describe('every operation, fuzzed from its schema', () => {
  for (const [name, def] of Object.entries(contract) as [string, OpDef][]) {
    it(`${name}: no 5xx, {detail} on every error, server alive`, async () => {
      const schema = z.toJSONSchema(def.input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
      await fc.assert(
        fc.asyncProperty(inputArbitrary(schema), fc.boolean(), async (input, withKey) => {
          const req = request(def, input);
          const headers: Record<string, string> = { ...(withKey ? keyHeader(server) : {}), ...(req.body === undefined ? {} : { 'content-type': 'application/json' }) };
          const res = await rawRequest(server.port, { ...req, headers });
          tally.tried++;
          const text = res.body.toString('utf8');
          const where = `${req.method} ${req.path.slice(0, 200)} ${String(req.body).slice(0, 300)} → ${res.status} ${text.slice(0, 300)}`;
          if (res.status >= 500) {
            const allowed = (res.status === 503 && (declared503(def) || res.headers['retry-after'] !== undefined));
            expect(allowed, where).toBe(true);
          }
          if (res.status >= 400) {
            if (res.status < 500) tally.answered4xx++;
            else tally.answered503++;
            const type = String(res.headers['content-type'] ?? '');
            expect(type, where).toMatch(/json/);
            const parsed = JSON.parse(text) as Record<string, unknown>;
            // The error shape the operation declares: {"detail"} or, for the OpenAI-compatible routes, {"error": {message, type}}.
            const shaped = def.errorShape === 'openai' ? typeof (parsed.error as { message?: unknown } | undefined)?.message === 'string' : 'detail' in parsed;
            expect(shaped || declared503(def), where).toBe(true);
          } else tally.answered2xx++;
        }),
        { numRuns: HEAVY.has(name) ? Math.ceil(RUNS / 4) : RUNS, seed: SEED, endOnFailure: true },
      );
      const alive = await rawRequest(server.port, { path: '/v1/health' });
      expect(alive.status).toBe(200);
    }, 120_000);
  }

  it('POST /v1/traces: OTLP-shaped bodies with hostile leaves never answer 5xx; bad spans are rejected one by one', async () => {
    const leaf = fc.oneof(hostile, fc.string({ maxLength: 8 }), fc.integer(), fc.constantFrom('18446744073709551615', '9223372036854775808', '-1', '0'));
    const anyValue = fc.oneof(
      fc.record({ stringValue: leaf }),
      fc.record({ intValue: leaf }),
      fc.record({ doubleValue: leaf }),
      fc.record({ boolValue: leaf }),
      fc.record({ arrayValue: fc.record({ values: fc.array(fc.record({ stringValue: leaf }), { maxLength: 3 }) }) }),
      fc.record({ kvlistValue: leaf }),
      leaf,
    );
    const attrs = fc.array(fc.record({ key: fc.oneof(leaf, fc.constantFrom('gen_ai.input.messages', 'gen_ai.usage.input_tokens', 'gen_ai.request.model')), value: anyValue }), { maxLength: 4 });
    const span = fc.record(
      {
        traceId: fc.oneof(fc.constantFrom('5b8efff798038103d269b633813fc60c', 'W47/95gDgQPSabYzgT/GDA=='), leaf),
        spanId: fc.oneof(fc.constantFrom('eee19b7ec3c1b174', '7uGbfsPBsXQ='), leaf),
        parentSpanId: leaf,
        name: leaf,
        kind: leaf,
        startTimeUnixNano: fc.oneof(fc.constantFrom('1763800000000000000'), leaf),
        endTimeUnixNano: fc.oneof(fc.constantFrom('1763800000500000000'), leaf),
        attributes: fc.oneof(attrs, leaf),
        events: fc.oneof(fc.array(fc.record({ name: leaf, timeUnixNano: leaf, attributes: attrs }), { maxLength: 2 }), leaf),
        status: fc.oneof(fc.record({ code: leaf, message: leaf }), leaf),
      },
      { requiredKeys: ['traceId', 'spanId'] },
    );
    const body = fc.record({
      resourceSpans: fc.array(fc.record({ resource: fc.record({ attributes: attrs }), scopeSpans: fc.array(fc.record({ scope: fc.record({ name: leaf }), spans: fc.array(span, { maxLength: 4 }) }), { maxLength: 2 }) }), { maxLength: 2 }),
    });
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        const res = await rawRequest(server.port, { method: 'POST', path: '/v1/traces', headers: { 'content-type': 'application/json', 'x-project-id': 'fuzz/otlp' }, body: JSON.stringify(b) });
        tally.tried++;
        expect(res.status, `${JSON.stringify(b).slice(0, 400)} → ${res.status} ${res.body.toString().slice(0, 300)}`).toBeLessThan(500);
        if (res.status === 200) tally.answered2xx++;
        else tally.answered4xx++;
      }),
      { numRuns: RUNS * 3, seed: SEED, endOnFailure: true },
    );
  }, 120_000);

  it('afterwards the store is consistent: integrity_check ok, summaries agree with spans', async () => {
    const problems = storeConsistency(server.ctx.traces.location);
    expect(problems).toEqual([]);
  });
});
