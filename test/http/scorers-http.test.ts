/**
 * Rule scorers over HTTP (issue 20 item 2) on a real server, on both stores (the `clickhouse`
 * project reruns it): every rule kind on two turns built for it, one that passes and one that fails
 * (test/helpers/eval-turns.ts), each scorer run on demand through `POST /app/scorers/run` and its
 * scores read back with `POST /app/scores/query`. Also: versions go up when a definition changes,
 * a second run skips what the version already scored (a stopped run resumes), selections by
 * conversation and by filters, the estimate before a run, and 422s naming the bad field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startTestServer } from './server-harness.js';
import { buildTurn, postTurns } from '../helpers/eval-turns.js';
import type { RunningLoupe } from '../../src/main/serve.js';

const P = 'acme/rules';
let app: RunningLoupe;
const post = (path: string, body: unknown) => postJson(app.url, path, body);

const at = Date.parse('2026-11-20T10:00:00.000Z');
// Passes every rule below.
const good = buildTurn({
  seed: 'rule-good', conversation: 'conv-good', at, agent: 'Support', question: 'What is the capital of France?', answer: '{"city": "Paris"}',
  tools: [{ name: 'lookup', args: { q: 'France' } }], durationMs: 3000, inputTokens: 120, outputTokens: 30,
});
// Fails every rule below: no JSON, no Paris, search (not lookup) called three times alike and failing, cut at the length limit, slow, many tokens.
const bad = buildTurn({
  seed: 'rule-bad', conversation: 'conv-bad', at: at + 60_000, agent: 'Researcher', question: 'What is the capital of Spain?', answer: 'I could not find it because the search',
  finish: 'length', durationMs: 20_000, inputTokens: 40_000, outputTokens: 4_000,
  tools: [
    { name: 'search', args: { q: 'Spain capital' } },
    { name: 'search', args: { q: 'Spain capital' } },
    { name: 'search', args: { q: 'Spain capital' }, error: { type: 'TimeoutError', message: 'search timed out after 30000 ms' } },
  ],
});

const RULES: Record<string, Record<string, unknown>> = {
  'mentions-paris': { kind: 'answer_matches', pattern: 'paris', flags: 'i' },
  'no-apology': { kind: 'answer_matches', pattern: 'could not', expect: 'no_match' },
  'json-city': { kind: 'answer_json_schema', schema: { type: 'object', required: ['city'], properties: { city: { type: 'string' } } } },
  'calls-lookup': { kind: 'tool_called', tool: 'lookup' },
  'no-search': { kind: 'tool_called', tool: 'search', called: false },
  'tools-ok': { kind: 'tool_error' },
  'search-ok': { kind: 'tool_error', tool: 'search' },
  'fast': { kind: 'threshold', measure: 'latency_ms', max: 10_000 },
  'few-tokens': { kind: 'threshold', measure: 'tokens', max: 1_000 },
  'cheap': { kind: 'threshold', measure: 'cost_usd', max: 0.001 },
  'not-cut': { kind: 'finish_length' },
  'no-loop': { kind: 'repeated_tool_call', times: 3 },
};

beforeAll(async () => {
  app = await startTestServer();
  await postTurns(app.url, P, [good, bad]);
  for (const [scorer_id, rule] of Object.entries(RULES)) {
    const r = await post('/app/scorers/save', { project_id: P, scorer: { scorer_id, rule } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  }
}, 180_000);

afterAll(async () => {
  await app?.close();
});

async function scoresOf(name: string) {
  const r = await post('/app/scores/query', { project_id: P, name, limit: 100 });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.scores as { trace_id: string; value: unknown; explanation: string; source: string; scorer: string; scorer_version: string; conversation_id: string; agent_name: string }[];
}

describe('rule scorers', () => {
  it('each rule passes the turn built to pass it and fails the one built to fail it', async () => {
    for (const scorer_id of Object.keys(RULES)) {
      const run = await post('/app/scorers/run', { project_id: P, scorer_id, wait: true });
      expect(run.status, JSON.stringify(run.body)).toBe(200);
      expect(run.body, scorer_id).toMatchObject({ status: 'completed', turns: 2, scored: 2, skipped: 0, failed: 0, scorer_version: 'v1' });
      const scores = await scoresOf(scorer_id);
      const byTrace = Object.fromEntries(scores.map((s) => [s.trace_id, s]));
      expect(byTrace[good.traceId]?.value, `${scorer_id} on the good turn: ${byTrace[good.traceId]?.explanation}`).toBe(true);
      expect(byTrace[bad.traceId]?.value, `${scorer_id} on the bad turn: ${byTrace[bad.traceId]?.explanation}`).toBe(false);
      expect(byTrace[good.traceId]).toMatchObject({ source: 'rule', scorer: scorer_id, scorer_version: 'v1', conversation_id: 'conv-good', agent_name: 'Support' });
    }
  });

  it('explains what it found', async () => {
    const ex = async (name: string) => (await scoresOf(name)).find((s) => s.trace_id === bad.traceId)!.explanation;
    expect(await ex('tools-ok')).toBe('search failed: search timed out after 30000 ms');
    expect(await ex('no-loop')).toBe('search was called 3 times in a row with the same arguments');
    expect(await ex('not-cut')).toBe('1 model output was cut at the length limit');
    expect(await ex('json-city')).toBe('the answer is not JSON');
    expect(await ex('fast')).toMatch(/^latency_ms \d+ > 10000$/);
    expect(await ex('few-tokens')).toBe('tokens 44000 > 1000');
  });

  it('a second run skips what this version scored; a changed definition is a new version', async () => {
    const again = await post('/app/scorers/run', { project_id: P, scorer_id: 'fast', wait: true });
    expect(again.body).toMatchObject({ status: 'completed', turns: 2, scored: 0, skipped: 2 });
    const est = await post('/app/scorers/estimate', { project_id: P, scorer_id: 'fast' });
    expect(est.body).toMatchObject({ turns: 2, to_score: 0, already_scored: 2, est_cost_usd: 0 });

    const same = await post('/app/scorers/save', { project_id: P, scorer: { scorer_id: 'fast', rule: RULES.fast } });
    expect(same.body.version).toBe(1);
    const changed = await post('/app/scorers/save', { project_id: P, scorer: { scorer_id: 'fast', rule: { kind: 'threshold', measure: 'latency_ms', max: 30_000 } } });
    expect(changed.body.version).toBe(2);
    const v2 = await post('/app/scorers/run', { project_id: P, scorer_id: 'fast', wait: true });
    expect(v2.body).toMatchObject({ scorer_version: 'v2', scored: 2, skipped: 0 });
    // The scorer's score on a turn is replaced, not added to.
    const scores = await scoresOf('fast');
    expect(scores.map((s) => [s.trace_id, s.value, s.scorer_version]).sort()).toEqual([[bad.traceId, true, 'v2'], [good.traceId, true, 'v2']].sort());

    const runs = await post('/app/scorers/runs', { project_id: P });
    expect(runs.body.runs[0]).toMatchObject({ scorer_id: 'fast', scorer_version: 'v2', status: 'completed' });
  });

  it('runs on a selection: conversations by id, the list filters, a score filter', async () => {
    await post('/app/scorers/save', { project_id: P, scorer: { scorer_id: 'sel', rule: RULES['calls-lookup'] } });
    const one = await post('/app/scorers/run', { project_id: P, scorer_id: 'sel', selection: { conversation_ids: ['conv-bad'] }, wait: true });
    expect(one.body).toMatchObject({ turns: 1, scored: 1 });
    expect((await scoresOf('sel')).map((s) => s.trace_id)).toEqual([bad.traceId]);
    const byAgent = await post('/app/scorers/estimate', { project_id: P, scorer_id: 'sel', selection: { filters: { agent_names: ['Support'] } } });
    expect(byAgent.body).toMatchObject({ turns: 1, to_score: 1 });
    const failing = await post('/app/scorers/estimate', { project_id: P, scorer_id: 'sel', selection: { filters: { scores: [{ name: 'tools-ok', max: 0 }] } } });
    expect(failing.body).toMatchObject({ turns: 1, to_score: 0, already_scored: 1 });
  });

  it('refuses bad definitions naming the field, and unknown scorers', async () => {
    const re = await post('/app/scorers/save', { project_id: P, scorer: { scorer_id: 'broken', rule: { kind: 'answer_matches', pattern: '(' } } });
    expect(re.status).toBe(422);
    expect(JSON.stringify(re.body)).toContain('scorer');
    const schema = await post('/app/scorers/save', { project_id: P, scorer: { scorer_id: 'broken', rule: { kind: 'answer_json_schema', schema: { type: 'no-such-type' } } } });
    expect(schema.status).toBe(422);
    const both = await post('/app/scorers/save', { project_id: P, scorer: { scorer_id: 'broken', rule: RULES.fast, judge: { base_url: 'http://127.0.0.1:1/v1', model: 'm', prompt: 'p' } } });
    expect(both.status).toBe(422);
    const id = await post('/app/scorers/save', { project_id: P, scorer: { scorer_id: 'Bad Id', rule: RULES.fast } });
    expect(id.status).toBe(422);
    const missing = await post('/app/scorers/run', { project_id: P, scorer_id: 'nope' });
    expect(missing.status).toBe(404);
    const list = await post('/app/scorers', { project_id: P });
    expect((list.body.scorers as { scorer_id: string }[]).map((s) => s.scorer_id)).not.toContain('broken');
    const del = await post('/app/scorers/delete', { project_id: P, scorer_id: 'sel' });
    expect(del.body).toEqual({ deleted: true });
    // Its scores stay.
    expect(await scoresOf('sel')).toHaveLength(1);
  });
});
