/**
 * LLM judge scorers (issue 20 item 2) against a scripted OpenAI-compatible server (a real HTTP server
 * on port 0, test/helpers/scripted-openai.ts) on both stores: the key kept in the secrets file reaches
 * the endpoint, the estimate names the cost before the run, a 429 and a 503 are retried with backoff,
 * the scores carry the judge's explanation, a call that never succeeds counts as failed, and every
 * attempt is a traced `chat` span in the project `<project>-judge`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startTestServer } from './server-harness.js';
import { buildTurn, postTurns } from '../helpers/eval-turns.js';
import { startScriptedOpenAi, type ScriptedServer } from '../helpers/scripted-openai.js';
import type { RunningLoupe } from '../../src/main/serve.js';

const P = 'acme/judged';
let app: RunningLoupe;
let model: ScriptedServer;
const post = (path: string, body: unknown, headers: Record<string, string> = {}) => postJson(app.url, path, body, headers);

const at = Date.parse('2026-11-21T09:00:00.000Z');
const france = buildTurn({ seed: 'judge-fr', conversation: 'conv-fr', at, agent: 'Support', question: 'What is the capital of France?', answer: 'Paris.' });
const spain = buildTurn({ seed: 'judge-es', conversation: 'conv-es', at: at + 60_000, agent: 'Support', question: 'What is the capital of Spain?', answer: 'Lisbon.' });
const peru = buildTurn({ seed: 'judge-pe', conversation: 'conv-pe', at: at + 120_000, agent: 'Support', question: 'What is the capital of Peru?', answer: 'Lima.' });

/** Request times per question, to check the backoff between attempts. */
const calls = new Map<string, number[]>();
const PRICE = { input_per_mtok: 2, output_per_mtok: 8 };

beforeAll(async () => {
  model = await startScriptedOpenAi((req) => {
    const prompt = req.messages.map((m) => m.content ?? '').join('\n');
    const country = /capital of (\w+)/.exec(prompt)?.[1] ?? 'unknown';
    const times = [...(calls.get(country) ?? []), Date.now()];
    calls.set(country, times);
    if (country === 'France') return { text: '```json\n{"score": 0.9, "explanation": "Paris is the capital of France."}\n```', usage: [150, 25] };
    // Spain: rate limited, then a server error, then an answer.
    if (country === 'Spain') {
      if (times.length === 1) return { status: 429, body: { error: { message: 'rate limited' } } };
      if (times.length === 2) return { status: 503 };
      return { text: '{"score": 0.1, "explanation": "Lisbon is the capital of Portugal, not Spain."}', usage: [160, 30] };
    }
    // Peru: never answers with the asked JSON.
    return { text: 'I think it is fine.', usage: [140, 10] };
  });
  app = await startTestServer();
  await postTurns(app.url, P, [france, spain, peru]);
  const auth = { authorization: `Bearer ${app.ctx.apiKey}` };
  expect((await post('/app/scorers/secret', { name: 'judge-key', value: 'sk-judge-test' }, auth)).status).toBe(200);
  const judge = { base_url: model.url, model: 'judge-model', api_key_secret: 'judge-key', prompt: 'Is this answer correct?\n{{transcript}}', concurrency: 2, retries: 2, price: PRICE };
  const saved = await post('/app/scorers/save', { project_id: P, scorer: { scorer_id: 'correct', judge } }, auth);
  expect(saved.status, JSON.stringify(saved.body)).toBe(200);
}, 180_000);

afterAll(async () => {
  await app?.close();
  await model?.close();
});

describe('LLM judge scorer', () => {
  it('saving a judge needs the key; the estimate shows tokens and cost before a run', async () => {
    const unkeyed = await post('/app/scorers/save', { project_id: P, scorer: { scorer_id: 'other', judge: { base_url: model.url, model: 'm', prompt: 'x' } } });
    expect(unkeyed.status).toBe(401);
    const est = await post('/app/scorers/estimate', { project_id: P, scorer_id: 'correct', selection: {} });
    expect(est.status, JSON.stringify(est.body)).toBe(200);
    expect(est.body).toMatchObject({ turns: 3, to_score: 3, already_scored: 0 });
    expect(est.body.est_input_tokens).toBeGreaterThan(3 * 60);
    expect(est.body.est_output_tokens).toBe(3 * 80);
    expect(est.body.est_cost_usd).toBeCloseTo((est.body.est_input_tokens * 2 + est.body.est_output_tokens * 8) / 1e6, 12);
    expect(model.requests).toHaveLength(0); // an estimate calls nobody
  });

  it('scores every turn with the explanation, retries 429/5xx with backoff, counts a call that never succeeds as failed', async () => {
    const run = await post('/app/scorers/run', { project_id: P, scorer_id: 'correct', wait: true });
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    expect(run.body).toMatchObject({ status: 'completed', turns: 3, scored: 2, failed: 1, skipped: 0, scorer_version: 'v1' });
    // Cost: the usage the endpoint reported, at the judge's price (France 150/25, Spain 160/30; Peru's failed calls are not a verdict).
    expect(run.body.cost_usd).toBeCloseTo(((150 + 160) * 2 + (25 + 30) * 8) / 1e6, 12);
    // The kept key went to the endpoint on every call; the prompt carried the turn.
    expect(new Set(model.authorizations)).toEqual(new Set(['Bearer sk-judge-test']));
    expect(model.requests.every((r) => r.model === 'judge-model' && r.temperature === 0)).toBe(true);
    expect(model.requests.find((r) => r.messages.some((m) => m.content?.includes('Assistant: Lisbon.')))).toBeDefined();
    // Attempts: France 1, Spain 3 (429, 503, answer), Peru 3 (retries exhausted); waits of ≥ 200 then ≥ 400 ms.
    expect([calls.get('France')?.length, calls.get('Spain')?.length, calls.get('Peru')?.length]).toEqual([1, 3, 3]);
    const es = calls.get('Spain')!;
    expect(es[1]! - es[0]!).toBeGreaterThanOrEqual(190);
    expect(es[2]! - es[1]!).toBeGreaterThanOrEqual(390);

    const q = await post('/app/scores/query', { project_id: P, name: 'correct', limit: 10 });
    const byTrace = Object.fromEntries((q.body.scores as { trace_id: string }[]).map((s) => [s.trace_id, s]));
    expect(Object.keys(byTrace).sort()).toEqual([france.traceId, spain.traceId].sort());
    expect(byTrace[france.traceId]).toMatchObject({ value: 0.9, explanation: 'Paris is the capital of France.', source: 'judge', scorer: 'correct', scorer_version: 'v1', conversation_id: 'conv-fr', agent_name: 'Support' });
    expect(byTrace[spain.traceId]).toMatchObject({ value: 0.1, explanation: 'Lisbon is the capital of Portugal, not Spain.', source: 'judge' });
  });

  it('traces every attempt as a chat span in the project <p>-judge', async () => {
    const r = await post('/agents/spans/query', { project_id: `${P}-judge`, limit: 100 });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const spans = r.body.spans as { operation_name: string; request_model: string; status_code: string; input_tokens: number | null; agent_name: string | null }[];
    expect(spans).toHaveLength(7);
    expect(spans.every((s) => s.operation_name === 'chat' && s.request_model === 'judge-model' && s.agent_name === 'judge correct')).toBe(true);
    // Errors: Spain's 429 and 503, Peru's three answers that were not the asked JSON.
    expect(spans.filter((s) => s.status_code === 'ERROR')).toHaveLength(5);
    expect(spans.filter((s) => s.status_code !== 'ERROR').map((s) => s.input_tokens).sort()).toEqual([150, 160]);
  });

  it('a second run calls nobody for what this version scored and retries only the failed turn', async () => {
    const before = model.requests.length;
    const run = await post('/app/scorers/run', { project_id: P, scorer_id: 'correct', wait: true });
    expect(run.body).toMatchObject({ status: 'completed', turns: 3, skipped: 2, scored: 0, failed: 1 });
    expect(model.requests.length - before).toBe(3); // Peru again, its three attempts
  });
});
