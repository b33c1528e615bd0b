/**
 * Scores over HTTP (issue 20 items 1 and 5) on a real server, on both stores (vitest project
 * `clickhouse` reruns it with the spans and scores in ClickHouse): stored on spans, turns and
 * conversations; paged by cursor; `$score` filtering and group-by on a score in the spans query; the
 * conversations list's score filter and score column; summaries per agent; re-scoring replaces;
 * deleting a trace deletes its scores; bad targets are a 422 naming the score.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startTestServer } from './server-harness.js';
import { chatAttributes, traceBuilder } from '../helpers/otlp.js';
import type { RunningLoupe } from '../../src/main/serve.js';

const P = 'acme/scores';
let app: RunningLoupe;

function turn(seed: string, conversation: string | null, at: string, agent: string) {
  const t = traceBuilder({ seed, start: at });
  const conv = conversation ? { 'gen_ai.conversation.id': conversation } : {};
  const root = t.span(`invoke_agent ${agent}`, { durationMs: 2000, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': agent, ...conv } });
  const chat = t.span('chat gpt-4o-mini', {
    parent: root, at: 10, durationMs: 800,
    attributes: chatAttributes({ model: 'gpt-4o-mini', conversationId: conversation ?? undefined, inputTokens: 100, outputTokens: 10, input: [{ role: 'user', content: `question ${seed}` }], output: [{ role: 'assistant', content: `answer ${seed}` }] }),
  });
  t.span('execute_tool lookup', { parent: root, at: 900, durationMs: 50, attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup' } });
  return { t, root, chat };
}

const a1 = turn('sc-a1', 'conv-a', '2026-11-20T10:00:00.000Z', 'Planner');
const a2 = turn('sc-a2', 'conv-a', '2026-11-20T10:05:00.000Z', 'Planner');
const b1 = turn('sc-b1', 'conv-b', '2026-11-20T11:00:00.000Z', 'Researcher');
const lone = turn('sc-lone', null, '2026-11-20T12:00:00.000Z', 'Researcher');

const post = (path: string, body: unknown) => postJson(app.url, path, body);
const create = (scores: unknown[]) => post('/app/scores/create', { project_id: P, scores });

beforeAll(async () => {
  app = await startTestServer();
  for (const x of [a1, a2, b1, lone]) {
    const r = await fetch(`${app.url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-project-id': P }, body: JSON.stringify(x.t.request()) });
    expect(r.status).toBe(200);
  }
  const r = await create([
    { target: 'turn', trace_id: a1.t.traceId, name: 'helpful', value: 0.2, source: 'judge', scorer: 'judge-1', scorer_version: 'v1', explanation: 'did not answer' },
    { target: 'turn', trace_id: a2.t.traceId, name: 'helpful', value: 0.9, source: 'judge', scorer: 'judge-1', scorer_version: 'v1' },
    { target: 'span', trace_id: b1.t.traceId, span_id: b1.chat.spanId, name: 'format', label: 'bad', source: 'rule', scorer: 'format-rule' },
    { target: 'conversation', conversation_id: 'conv-b', name: 'thumbs', value: false, creator: 'alice' },
    { target: 'conversation', conversation_id: 'conv-b', name: 'thumbs', value: true, creator: 'bob' },
    { target: 'turn', trace_id: lone.t.traceId, name: 'helpful', value: 0.2, source: 'judge', scorer: 'judge-1' },
  ]);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}, 180_000);

afterAll(async () => {
  await app?.close();
});

describe('scores', () => {
  it('stores scores with their targets, conversations and agents', async () => {
    const r = await post('/app/scores/query', { project_id: P, limit: 100 });
    expect(r.status).toBe(200);
    const scores = r.body.scores as Record<string, unknown>[];
    expect(scores).toHaveLength(6);
    const first = scores.find((s) => s.trace_id === a1.t.traceId)!;
    expect(first).toMatchObject({ target: 'turn', name: 'helpful', value: 0.2, label: null, explanation: 'did not answer', source: 'judge', scorer_version: 'v1', conversation_id: 'conv-a', agent_name: 'Planner', span_id: null });
    expect(typeof first.created_at).toBe('string');
    const span = scores.find((s) => s.name === 'format')!;
    expect(span).toMatchObject({ target: 'span', span_id: b1.chat.spanId, label: 'bad', value: null, conversation_id: 'conv-b' });
    const thumbs = scores.filter((s) => s.name === 'thumbs').map((s) => [s.creator, s.value]).sort();
    expect(thumbs).toEqual([['alice', false], ['bob', true]]);
    expect(scores.find((s) => s.trace_id === lone.t.traceId)).toMatchObject({ conversation_id: null, agent_name: 'Researcher' });
  });

  it('pages by cursor and filters by name, trace, conversation and span', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 10; i++) {
      const r = await post('/app/scores/query', { project_id: P, limit: 4, ...(cursor ? { cursor } : {}) });
      expect(r.status).toBe(200);
      seen.push(...(r.body.scores as { score_id: string }[]).map((s) => s.score_id));
      cursor = r.body.next_cursor ?? undefined;
      if (!cursor) break;
    }
    expect(seen).toHaveLength(6);
    expect(new Set(seen).size).toBe(6);
    const by = async (f: Record<string, string>) => ((await post('/app/scores/query', { project_id: P, ...f })).body.scores as unknown[]).length;
    expect(await by({ name: 'helpful' })).toBe(3);
    expect(await by({ trace_id: a1.t.traceId })).toBe(1);
    expect(await by({ conversation_id: 'conv-b' })).toBe(3);
    expect(await by({ span_id: b1.chat.spanId })).toBe(1);
    const bad = await post('/app/scores/query', { project_id: P, cursor: 'nonsense' });
    expect(bad.status).toBe(422);
  });

  it('refuses a score whose target is unknown, naming it', async () => {
    const r = await create([{ target: 'turn', trace_id: a1.t.traceId, name: 'x', value: 1 }, { target: 'turn', trace_id: 'ffffffffffffffffffffffffffffffff', name: 'x', value: 1 }]);
    expect(r.status).toBe(422);
    expect(JSON.stringify(r.body.detail)).toContain('scores');
    expect(JSON.stringify(r.body.detail)).toContain('has no trace');
    const span = await create([{ target: 'span', trace_id: a1.t.traceId, span_id: 'abababababababab', name: 'x', value: 1 }]);
    expect(span.status).toBe(422);
    const none = await create([{ target: 'turn', trace_id: a1.t.traceId, name: 'x' }]);
    expect(none.status).toBe(422);
    // Nothing of a refused batch was stored.
    expect(((await post('/app/scores/query', { project_id: P, name: 'x' })).body.scores as unknown[]).length).toBe(0);
  });

  it('filters spans with $score and groups them by a score', async () => {
    const low = await post('/agents/spans/query', { project_id: P, query: { $expr: { $score: { name: 'helpful', max: 0.5 } } }, limit: 100 });
    expect(low.status, JSON.stringify(low.body)).toBe(200);
    const traces = new Set((low.body.spans as { trace_id: string }[]).map((s) => s.trace_id));
    expect([...traces].sort()).toEqual([a1.t.traceId, lone.t.traceId].sort());
    expect(low.body.total_count).toBe(6);
    const spanLevel = await post('/agents/spans/query', { project_id: P, query: { $expr: { $score: { name: 'format', label: 'bad' } } } });
    expect((spanLevel.body.spans as { span_id: string }[]).map((s) => s.span_id)).toEqual([b1.chat.spanId]);
    const conv = await post('/agents/spans/query', { project_id: P, query: { $expr: { $and: [{ $score: { name: 'thumbs', max: 0 } }, { $eq: [{ $getField: 'operation_name' }, { $literal: 'chat' }] }] } } });
    expect((conv.body.spans as { trace_id: string }[]).map((s) => s.trace_id)).toEqual([b1.t.traceId]);
    const bad = await post('/agents/spans/query', { project_id: P, query: { $expr: { $score: { name: 'helpful', max: 'low' } } } });
    expect(bad.status).toBe(422);

    const grouped = await post('/agents/spans/query', {
      project_id: P, group_by: [{ source: 'score', key: 'helpful' }], measures: [{ alias: 'n', aggregation: 'count' }], sort_by: [{ field: 'helpful', direction: 'asc' }],
    });
    expect(grouped.status, JSON.stringify(grouped.body)).toBe(200);
    expect((grouped.body.groups as { group_keys: Record<string, unknown>; metrics: Record<string, number> }[]).map((g) => [g.group_keys.helpful, g.metrics.n])).toEqual([[0.2, 6], [0.9, 3]]);
    const byAgent = await post('/agents/spans/query', {
      project_id: P, group_by: [{ source: 'score', key: 'helpful' }, { key: 'agent_name' }], measures: [{ alias: 'n', aggregation: 'count' }],
      sort_by: [{ field: 'helpful', direction: 'asc' }, { field: 'agent_name', direction: 'asc' }],
    });
    expect((byAgent.body.groups as { group_keys: Record<string, unknown>; metrics: Record<string, number> }[]).map((g) => [g.group_keys.helpful, g.group_keys.agent_name, g.metrics.n]))
      // Every span of a turn is credited to its agent (one accounting, decision 0022).
      .toEqual([[0.2, 'Planner', 3], [0.2, 'Researcher', 3], [0.9, 'Planner', 3]]);
  });

  it('filters the conversations list by score and shows a score column', async () => {
    const r = await post('/app/conversations', { project_id: P, filters: { scores: [{ name: 'helpful', max: 0.5 }] } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect((r.body.conversations as { conversation_id: string }[]).map((c) => c.conversation_id).sort()).toEqual(['conv-a', lone.t.traceId].sort());
    const all = await post('/app/conversations', { project_id: P });
    const row = (all.body.conversations as { conversation_id: string; scores: { name: string; count: number; mean: number; labels: Record<string, number> }[] }[]).find((c) => c.conversation_id === 'conv-b')!;
    expect(row.scores.map((s) => [s.name, s.count, s.mean, s.labels])).toEqual([['format', 1, null, { bad: 1 }], ['thumbs', 2, 0.5, {}]]);
    const a = (all.body.conversations as { conversation_id: string; scores: { name: string; mean: number }[] }[]).find((c) => c.conversation_id === 'conv-a')!;
    expect(a.scores[0]!.mean).toBeCloseTo(0.55, 6);
    const both = await post('/app/conversations', { project_id: P, filters: { scores: [{ name: 'thumbs', min: 1 }, { name: 'format', labels: ['bad'] }] } });
    expect((both.body.conversations as { conversation_id: string }[]).map((c) => c.conversation_id)).toEqual(['conv-b']);
  });

  it('summarizes scores per agent', async () => {
    const r = await post('/app/scores/summary', { project_id: P, by: 'agent', names: ['helpful'] });
    expect(r.status).toBe(200);
    expect((r.body.summaries as { key: string; name: string; count: number; mean: number }[]).map((s) => [s.key, s.count, Number(s.mean.toFixed(3))])).toEqual([
      ['Planner', 2, 0.55],
      ['Researcher', 1, 0.2],
    ]);
  });

  it('re-scoring replaces the scorer’s score; delete and trace deletion remove scores', async () => {
    const again = await create([{ target: 'turn', trace_id: a1.t.traceId, name: 'helpful', value: 0.4, source: 'judge', scorer: 'judge-1', scorer_version: 'v2' }]);
    expect(again.status).toBe(200);
    const q = await post('/app/scores/query', { project_id: P, trace_id: a1.t.traceId });
    expect(q.body.scores).toHaveLength(1);
    expect(q.body.scores[0]).toMatchObject({ value: 0.4, scorer_version: 'v2' });
    const del = await post('/app/scores/delete', { project_id: P, score_ids: [q.body.scores[0].score_id] });
    expect(del.body).toEqual({ deleted: 1 });
    expect((await post('/app/scores/query', { project_id: P, trace_id: a1.t.traceId })).body.scores).toHaveLength(0);
    const gone = await post('/app/spans/delete', { project_id: P, trace_ids: [a2.t.traceId] });
    expect(gone.status).toBe(200);
    expect((await post('/app/scores/query', { project_id: P, trace_id: a2.t.traceId })).body.scores).toHaveLength(0);
  });
});
