/**
 * The MCP read tools over issue 20's evaluations, driven by the SDK's own Client against a real
 * server on port 0: list_clusters (the Clusters view's `clusters.list`) and query_scores
 * (`scores.query` + `scores.summary`), on the demo data with its failure signatures computed and
 * scores written through the contract. Each answer is checked against the operation's own answer
 * (same rows, nothing computed twice), within the budget the tool states; cursors walk every score
 * once; a cluster's filter opens it in search_conversations and query_spans; bad arguments are
 * tool errors naming the argument.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { postJson, startTestServer, tempDir } from './server-harness.js';
import { call, httpClient, prepareMcpData, statedBudget } from '../helpers/mcp.js';
import type { RunningLoupe } from '../../src/main/serve.js';

const P = 'local/demo';
let server: RunningLoupe;
let c: Client;
let budgets: Map<string, number>;
const post = async (path: string, body: unknown) => {
  const r = await postJson(server.url, path, body);
  expect(r.status, `${path}: ${JSON.stringify(r.body)}`).toBe(200);
  return r.body;
};

/** Calls a tool and checks its answer against the budget its description states. */
async function within(name: string, args: Record<string, unknown> = {}) {
  const a = await call(c, name, args);
  expect(a.bytes, `${name} ${JSON.stringify(args)}: ${a.bytes} bytes`).toBeLessThanOrEqual(budgets.get(name)!);
  return a;
}

/** Turns (traces) of the demo with their conversation, from the list's own operation. */
const turns: { trace_id: string; conversation_id: string }[] = [];

beforeAll(async () => {
  const dataDir = tempDir('loupe-mcp-evals-');
  await prepareMcpData(dataDir, { big: false });
  server = await startTestServer({ dataDir });
  c = await httpClient(server.url, '2026-07-28');
  budgets = new Map((await c.listTools()).tools.map((t) => [t.name, statedBudget(t.description)]));
  const convs = await post('/app/conversations', { project_id: P, limit: 10, sort_by: [{ field: 'first_activity', direction: 'asc' }] });
  for (const row of convs.conversations.slice(0, 3)) {
    const page = await post('/agents/conversations/chat', { project_id: P, conversation_id: row.conversation_id });
    for (const t of page.turns) turns.push({ trace_id: t.trace_id, conversation_id: row.conversation_id });
  }
  expect(turns.length).toBeGreaterThanOrEqual(3);
}, 180_000);
afterAll(async () => {
  await c?.close();
  await server?.close();
});

describe('MCP tools over evaluations', () => {
  it('tools/list offers list_clusters and query_scores with schemas and a stated budget', async () => {
    const { tools } = await c.listTools();
    for (const name of ['list_clusters', 'query_scores']) {
      const t = tools.find((x) => x.name === name)!;
      expect(t, name).toBeTruthy();
      expect(t.outputSchema, name).toBeTruthy();
      expect(statedBudget(t.description)).toBeGreaterThan(0);
    }
  });

  it('list_clusters before any signature pass says so and how to compute them', async () => {
    const a = await within('list_clusters', { project: P });
    expect(a.isError).toBe(false);
    expect(a.structured.signed).toBe(false);
    expect(a.structured.clusters).toEqual([]);
    expect(a.text).toMatch(/never computed.*\/app\/clusters\/compute/);
  });

  it('list_clusters answers the Clusters view\'s clusters, and a cluster\'s filter opens it in search_conversations and query_spans', async () => {
    await post('/app/clusters/compute', { project_id: P, wait: true });
    const view = (await post('/app/clusters', { project_id: P })).clusters as { cluster_id: string; count: number; kind: string; trace_ids: string[]; filter: unknown; title: string }[];
    expect(view.length, 'the demo has failing tools: at least one cluster').toBeGreaterThan(0);
    const a = await within('list_clusters', { project: P });
    expect(a.structured.signed).toBe(true);
    expect(a.structured.total_count).toBe(view.length);
    expect(a.structured.clusters.map((x: { cluster_id: string; count: number }) => [x.cluster_id, x.count])).toEqual(view.slice(0, 20).map((x) => [x.cluster_id, x.count]));
    const first = a.structured.clusters[0];
    expect(view[0]!.trace_ids).toEqual(expect.arrayContaining(first.trace_ids));
    expect(first.trace_ids.length).toBeGreaterThan(0);
    expect(a.text).toContain(first.cluster_id);
    expect(a.text).toContain(first.trace_ids[0]);

    // limit 1: one cluster, and the answer says how many more there are.
    const one = await within('list_clusters', { project: P, limit: 1 });
    expect(one.structured.clusters).toHaveLength(1);
    if (view.length > 1) expect(one.text).toContain(`${view.length - 1} more clusters`);

    // The filter is the conversations list's score condition: the same rows as the operation.
    const listed = await post('/app/conversations', { project_id: P, filters: { scores: [first.filter] }, limit: 50 });
    const found = await within('search_conversations', { project: P, score: first.filter, limit: 50 });
    expect(found.isError).toBe(false);
    expect(found.structured.conversations.map((r: { id: string }) => r.id).sort()).toEqual(listed.conversations.map((r: { conversation_id: string }) => r.conversation_id).sort());
    expect(found.structured.conversations.length).toBeGreaterThan(0);
    // … and `$score` in query_spans: the spans of the cluster's example turns.
    const spans = await within('query_spans', { project: P, filter: { $expr: { $score: first.filter } }, limit: 200 });
    expect(spans.isError, spans.text).toBe(false);
    expect(spans.structured.spans.map((s: { trace_id: string }) => s.trace_id)).toEqual(expect.arrayContaining([first.trace_ids[0]]));

    // A window before every turn: no clusters, said plainly.
    const none = await within('list_clusters', { project: P, until: '2000-01-01T00:00:00Z' });
    expect(none.structured.clusters).toEqual([]);
    expect(none.text).toContain('No failure clusters');
  });

  it('query_scores: the rows of scores.query, the names summary, and a cursor that walks every score once', async () => {
    const [a, b, c3] = turns;
    const helpful = Array.from({ length: 45 }, (_, i) => ({
      target: 'turn', trace_id: a!.trace_id, name: 'helpful', value: i % 3 !== 0, creator: `reviewer-${i}`, explanation: `reviewer ${i}: ${'because '.repeat(60)}`,
    }));
    await post('/app/scores/create', {
      project_id: P,
      scores: [
        ...helpful,
        { target: 'turn', trace_id: b!.trace_id, name: 'topic', label: 'refund', creator: 'ann', correction: 'A better answer. '.repeat(200) },
        { target: 'conversation', conversation_id: c3!.conversation_id, name: 'quality', value: 0.25, source: 'rule', scorer: 'len-check', scorer_version: 'v2' },
      ],
    });

    // The rows are the operation's, newest first, in the tool's words.
    const direct = await post('/app/scores/query', { project_id: P, name: 'helpful', limit: 20 });
    const first = await within('query_scores', { project: P, name: 'helpful' });
    expect(first.isError, first.text).toBe(false);
    const rows = first.structured.scores as { trace_id: string; creator: string; value: boolean; explanation: string | null }[];
    // 20 asked, fewer fit 16 KB (each explanation cut at 400 characters): the cut path is walked below.
    expect(first.structured.cut).toBe(true);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThan(20);
    expect(rows.map((r) => r.creator)).toEqual(direct.scores.slice(0, rows.length).map((s: { creator: string }) => s.creator));
    expect(rows.every((r) => r.trace_id === a!.trace_id)).toBe(true);
    expect(first.text).toMatch(/why: "reviewer \d+: because.*…\[cut: \d+ more characters; the whole text: POST \/app\/scores\/query\]"/);
    // The names summary: 45 helpful scores, 30 of them true.
    expect(first.structured.names).toEqual([{ name: 'helpful', count: 45, mean: 30 / 45, labels: {} }]);
    expect(first.text).toContain('helpful: 45 scores · mean 0.667');

    // Walk to the end: every score once (cut pages continue after their last row).
    const seen: string[] = [...rows.map((r) => r.creator)];
    let cursor: string | null = first.structured.next_cursor;
    for (let i = 0; cursor && i < 20; i++) {
      const page = await within('query_scores', { project: P, name: 'helpful', cursor });
      expect(page.structured.names).toBeNull();
      seen.push(...page.structured.scores.map((r: { creator: string }) => r.creator));
      cursor = page.structured.next_cursor;
    }
    expect(cursor).toBeNull();
    expect(new Set(seen).size).toBe(45);
    expect(seen).toHaveLength(45);

    // A trace id without a project: found in the project that holds its scores; a long correction is cut with a marker.
    // (The trace also carries its `failures` signature score from the pass above.)
    const topic = await within('query_scores', { trace_id: b!.trace_id });
    expect(topic.structured.project).toBe(P);
    const direct2 = await post('/app/scores/query', { project_id: P, trace_id: b!.trace_id });
    expect(topic.structured.scores.map((s: { name: string }) => s.name)).toEqual(direct2.scores.map((s: { name: string }) => s.name));
    const row = topic.structured.scores.find((s: { name: string }) => s.name === 'topic');
    expect(row).toMatchObject({ label: 'refund', source: 'human', creator: 'ann', target: 'turn' });
    expect(row.correction).toMatch(/…\[cut: [\d,]+ more characters; the whole correction: POST \/app\/scores\/query\]$/);
    expect(topic.structured.names).toContainEqual({ name: 'topic', count: 1, mean: null, labels: { refund: 1 } });
    expect(topic.structured.names.map((n: { name: string }) => n.name)).toContain('failures');

    // By conversation and source: the rule score on c3's conversation.
    const rule = await within('query_scores', { project: P, conversation_id: c3!.conversation_id, source: 'rule', name: 'quality' });
    expect(rule.structured.scores).toMatchObject([{ name: 'quality', value: 0.25, target: 'conversation', scorer: 'len-check', scorer_version: 'v2' }]);
    expect(rule.text).toContain('rule len-check v2');

    // Nothing about an unknown trace: an answer that says where scores come from, not an error.
    const empty = await within('query_scores', { project: P, trace_id: 'f'.repeat(32) });
    expect(empty.isError).toBe(false);
    expect(empty.structured.scores).toEqual([]);
    expect(empty.text).toMatch(/No scores about trace f+ in project local\/demo: scores come from/);
  });

  it('bad arguments are tool errors naming the argument', async () => {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['query_scores', { project: P, source: 'robot' }, /source/],
      ['query_scores', { project: P, cursor: 'garbage' }, /argument "cursor"/],
      ['query_scores', { project: P, limit: 0 }, /limit/],
      ['query_scores', { project: 'no/such' }, /argument "project": no project "no\/such"/],
      ['list_clusters', { project: P, since: 'yesterday' }, /since/],
      ['list_clusters', { project: P, limit: 500 }, /limit/],
      ['search_conversations', { project: P, score: { label: 'x' } }, /score/],
    ];
    for (const [name, args, message] of cases) {
      const a = await call(c, name, args);
      expect(a.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect(a.text).toMatch(message);
    }
    // A cursor of another call's arguments is refused, saying so.
    const page = await call(c, 'query_scores', { project: P, name: 'helpful', limit: 1 });
    const other = await call(c, 'query_scores', { project: P, name: 'topic', cursor: page.structured.next_cursor });
    expect(other.isError).toBe(true);
    expect(other.text).toMatch(/argument "cursor": this cursor belongs to a call with other arguments/);
  });
});
