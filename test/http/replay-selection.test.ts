/**
 * Replay selections beyond ids (issue 21 item 1): a failure cluster, conversations-list filters and a
 * dataset made from conversations each replay exactly their conversations; and the report compares
 * both sides with the project's scorers (issue 21 item 2): a rule scorer applied to both turns, a
 * judge's stored scores read, each with its totals and the sign test of the change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyHeader, postJson, startTestServer } from './server-harness.js';
import { startScriptedOpenAi, type ScriptedServer } from '../helpers/scripted-openai.js';
import { CONVS, KINDS, PROJECT, calcScript, getJson, storeCalc, waitFor } from '../helpers/calc-replay.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;
const of = (kind: string) => CONVS.filter((_, i) => KINDS[i] === kind);
const sums = (cs: typeof CONVS) => Object.fromEntries(cs.map((c) => [c.conv, `\\b${c.a + c.b}\\b`]));

describe('replay selections and scorers', () => {
  let server: Server;
  let model: ScriptedServer;
  let target: { base_url: string; model: string };

  beforeAll(async () => {
    model = await startScriptedOpenAi(calcScript);
    server = await startTestServer();
    target = { base_url: model.url, model: 'new-model' };
    await storeCalc(server);
    // A rule scorer of the project: the answer has the form "The answer is N." (the 'changed' kind's replay does not).
    const saved = await postJson(server.url, '/app/scorers/save', { project_id: PROJECT, scorer: { scorer_id: 'says-answer', rule: { kind: 'answer_matches', pattern: '^The answer is \\d+\\.$' } } });
    expect(saved.status).toBe(200);
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await model?.close();
  });

  it('replays a failure cluster and a score filter: exactly their conversations; the report carries the sign test', async () => {
    const worse = of('worse');
    const score = (cs: typeof CONVS, value: number) => cs.map((c) => ({ target: 'conversation', conversation_id: c.conv, name: 'quality', value }));
    const created = await postJson(server.url, '/app/scores/create', { project_id: PROJECT, scores: [...score(worse, 0), ...score(of('same'), 1)] });
    expect(created.status).toBe(200);
    const clusters = await postJson(server.url, '/app/clusters', { project_id: PROJECT });
    const low = (clusters.body.clusters as any[]).find((c) => c.kind === 'low_score' && c.signature.includes('quality'));
    expect(low).toMatchObject({ count: 10 });

    const est = await postJson(server.url, '/app/replays/estimate', { project_id: PROJECT, selection: { cluster_id: low.cluster_id }, target });
    expect(est.status).toBe(200);
    expect(est.body).toMatchObject({ turns: 10, model_calls: 20 });
    const byFilter = await postJson(server.url, '/app/replays/estimate', { project_id: PROJECT, selection: { filters: { scores: [{ name: 'quality', min: 1 }] } }, target });
    expect(byFilter.body).toMatchObject({ turns: 10 });
    const capped = await postJson(server.url, '/app/replays/estimate', { project_id: PROJECT, selection: { cluster_id: low.cluster_id, max_turns: 3 }, target });
    expect(capped.body).toMatchObject({ turns: 3 });

    const { status, body } = await postJson(server.url, '/app/replays', {
      project_id: PROJECT, selection: { cluster_id: low.cluster_id }, target, budget: { concurrency: 4 },
      check: { name: 'correct', expected: sums(worse), match: 'regex' }, scorers: ['says-answer'],
    });
    expect(status).toBe(200);
    const done = await waitFor(server.url, body.replay_id);
    expect(done.selected_by).toEqual({ kind: 'selection', dataset: null, cluster_id: low.cluster_id });
    expect(done.scorers).toEqual(['says-answer']);
    expect((done.items as any[]).map((i) => i.original_trace_id).sort()).toEqual(worse.map((c) => c.trace).sort());
    const report = (await getJson(server.url, `/app/replays/${body.replay_id}/report`)).body;
    expect(report.totals).toMatchObject({ worse: 10, better: 0 });
    expect(report.score_names).toEqual([{ name: 'correct', source: 'expected', scorer_id: null }, { name: 'says-answer', source: 'scorer', scorer_id: 'says-answer' }]);
    const [correct, says] = report.score_totals;
    // 10 of 10 pairs went down: z = -10/√10, p = 2 · 2^-10 (exact two-sided sign test).
    expect(correct).toMatchObject({ name: 'correct', pairs: 10, original_mean: 1, replay_mean: 0, up: 0, down: 10 });
    expect(correct.z).toBeCloseTo(-10 / Math.sqrt(10), 9);
    expect(correct.p).toBeCloseTo(2 / 1024, 12);
    expect(says).toMatchObject({ pairs: 10, original_mean: 1, replay_mean: 1, up: 0, down: 0, z: null, p: null });
    expect(report.rows[0].scores['says-answer']).toEqual({ original: 1, replay: 1 });

    const unknown = await postJson(server.url, '/app/replays/estimate', { project_id: PROJECT, selection: { cluster_id: 'nope' }, target });
    expect(unknown.status).toBe(422);
    expect(JSON.stringify(unknown.body)).toContain('cluster_id');
    const two = await postJson(server.url, '/app/replays/estimate', { project_id: PROJECT, trace_ids: [CONVS[0]!.trace], selection: {}, target });
    expect(two.status).toBe(422);
    expect(JSON.stringify(two.body)).toContain('one of trace_ids, conversation_ids, selection or dataset');
  }, 120_000);

  it('replays the conversations a dataset was made from; a rule scorer scores both sides', async () => {
    const changed = of('changed');
    const ds = await postJson(server.url, '/datasets/from-conversations', { project_id: PROJECT, conversation_ids: changed.map((c) => c.conv), name: 'changed-five' });
    expect(ds.status).toBe(200);
    expect(ds.body.lines).toBe(5);
    const { status, body } = await postJson(server.url, '/app/replays', { project_id: PROJECT, dataset: ds.body.url, target, scorers: ['says-answer'] });
    expect(status).toBe(200);
    expect(body.estimate.turns).toBe(5);
    const done = await waitFor(server.url, body.replay_id);
    expect(done.selected_by).toEqual({ kind: 'dataset', dataset: ds.body.url, cluster_id: null });
    expect((done.items as any[]).map((i) => i.original_trace_id)).toEqual(changed.map((c) => c.trace));
    const report = (await getJson(server.url, `/app/replays/${body.replay_id}/report`)).body;
    // The replayed answer "N is the sum." fails the rule the original passed: each pair is worse.
    expect(report.totals).toMatchObject({ worse: 5 });
    expect(report.score_totals).toEqual([{ name: 'says-answer', pairs: 5, original_mean: 1, replay_mean: 0, up: 0, down: 5, z: expect.closeTo(-Math.sqrt(5), 9), p: expect.closeTo(0.0625, 12) }]);

    // An uploaded dataset has no conversations behind it; an unknown scorer is named.
    const up = await fetch(`${server.url}/v1/preview/datasets?entity=local&project=calc&name=uploaded`, {
      method: 'POST', headers: { ...keyHeader(server), 'content-type': 'application/jsonl' },
      body: `${JSON.stringify({ messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }] })}\n`,
    });
    expect(up.status).toBe(200);
    const uploaded = (await up.json()) as { url: string };
    const r = await postJson(server.url, '/app/replays/estimate', { project_id: PROJECT, dataset: uploaded.url, target });
    expect(r.status).toBe(422);
    expect(JSON.stringify(r.body)).toContain('not made from conversations');
    const s = await postJson(server.url, '/app/replays', { project_id: PROJECT, dataset: ds.body.url, target, scorers: ['no-such'] });
    expect(s.status).toBe(422);
    expect(JSON.stringify(s.body)).toContain('no scorer no-such');
  }, 120_000);

  it("reads a judge scorer's stored scores of both sides", async () => {
    const judge = { scorer_id: 'helpful', judge: { base_url: 'http://127.0.0.1:9/v1', model: 'judge', prompt: 'Is {{answer}} helpful?' } };
    const saved = await postJson(server.url, '/app/scorers/save', { project_id: PROJECT, scorer: judge }, keyHeader(server));
    expect(saved.status).toBe(200);
    const better = of('better').slice(0, 3);
    const { body } = await postJson(server.url, '/app/replays', { project_id: PROJECT, trace_ids: better.map((c) => c.trace), target, scorers: ['helpful'] });
    const done = await waitFor(server.url, body.replay_id);
    const judged = (traceId: string, value: number) => ({ target: 'turn', trace_id: traceId, name: 'helpful', value, source: 'judge', scorer: 'helpful', scorer_version: 'v1' });
    const scores = (done.items as any[]).flatMap((i) => [judged(i.original_trace_id, 0.2), judged(i.replay_trace_id, 0.9)]);
    expect((await postJson(server.url, '/app/scores/create', { project_id: PROJECT, scores })).status).toBe(200);
    const report = (await getJson(server.url, `/app/replays/${body.replay_id}/report`)).body;
    expect(report.totals).toMatchObject({ better: 3 });
    expect(report.score_totals[0]).toMatchObject({ name: 'helpful', pairs: 3, up: 3, down: 0 });
    expect(report.score_totals[0].p).toBeCloseTo(0.25, 12);
    expect(report.score_totals[0].original_mean).toBeCloseTo(0.2, 9);
    expect(report.score_totals[0].replay_mean).toBeCloseTo(0.9, 9);
  }, 120_000);
});
