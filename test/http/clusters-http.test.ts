/**
 * Failure clusters (issue 20 item 4, done-when "a clustering test on a generated set of 2,000
 * conversations with five planted failure kinds recovers each kind as one cluster (and no cluster
 * mixing two kinds) with the right counts"), on a real server, on both stores.
 *
 * The five kinds, each with per-occurrence detail that the signature must mask: a tool failing with
 * an invoice id and a status number; the agent failing with a rate limit and a retry delay; the same
 * tool call three times in a row (arguments differ between conversations); answers cut at the length
 * limit; a user asking again in other words. The other conversations are clean, some with two turns
 * on different questions. Then: opening a cluster is a filter everywhere else (conversations list,
 * spans `$score`, a scorer run's selection), the time window, naming a cluster by hand, resuming.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startTestServer } from './server-harness.js';
import { buildTurn, postTurns, type TurnSpec } from '../helpers/eval-turns.js';
import type { RunningLoupe } from '../../src/main/serve.js';

const P = 'acme/clusters';
let app: RunningLoupe;
const post = (path: string, body: unknown) => postJson(app.url, path, body);

type Kind = 'tool' | 'ratelimit' | 'loop' | 'cut' | 'rephrase';
const PLANTED: Record<Kind, number> = { tool: 120, ratelimit: 80, loop: 60, cut: 100, rephrase: 50 };
const TOTAL = 2000;
const DAY = 86_400_000;
const t0 = Date.parse('2026-11-01T08:00:00.000Z');

/** Expected trace ids per kind (the failing turn's). */
const planted: Record<Kind, Set<string>> = { tool: new Set(), ratelimit: new Set(), loop: new Set(), cut: new Set(), rephrase: new Set() };
/** Planted turns per kind started on 2026-11-01 (the time-window check). */
const firstDay: Record<Kind, number> = { tool: 0, ratelimit: 0, loop: 0, cut: 0, rephrase: 0 };
const turns: ReturnType<typeof buildTurn>[] = [];

function generate() {
  const kinds: Kind[] = [];
  for (const [k, n] of Object.entries(PLANTED) as [Kind, number][]) for (let i = 0; i < n; i++) kinds.push(k);
  for (let c = 0; c < TOTAL; c++) {
    // Planted conversations spread over the set (every 4th, in kind order), the rest clean.
    const kind = c % 4 === 0 ? kinds[c / 4] : undefined;
    const conversation = `conv-${c}`;
    const at = t0 + (c % 10) * DAY + c * 1000;
    const base: TurnSpec = { seed: `cl-${c}-0`, conversation, at, agent: c % 3 ? 'Support' : 'Billing', question: `Where is my order ${c}?`, answer: `Order ${c} ships tomorrow.`, tools: [{ name: 'lookup', args: { order: c } }] };
    const push = (spec: TurnSpec, k?: Kind) => {
      const t = buildTurn(spec);
      turns.push(t);
      if (k) planted[k].add(t.traceId);
      if (k && spec.at < t0 + DAY) firstDay[k] += 1;
    };
    switch (kind) {
      case 'tool':
        push({ ...base, tools: [{ name: 'fetch_invoice', args: { id: `INV-${c}` }, error: { type: 'NotFound', message: `invoice INV-${c} not found (status 404) after ${c % 7 + 1} attempts` } }] }, 'tool');
        break;
      case 'ratelimit':
        push({ ...base, agentError: { type: 'RateLimitError', message: `rate limit exceeded for org_${c}: retry after ${c % 50} s` } }, 'ratelimit');
        break;
      case 'loop': {
        const args = { query: `refund policy ${c}` };
        push({ ...base, tools: [{ name: 'search_kb', args }, { name: 'search_kb', args }, { name: 'search_kb', args }] }, 'loop');
        break;
      }
      case 'cut':
        push({ ...base, finish: 'length', answer: `Here is the full history of order ${c}: first it was placed, then` }, 'cut');
        break;
      case 'rephrase':
        push(base);
        push({ ...base, seed: `cl-${c}-1`, at: at + 60_000, question: `where is my order ${c} please?` }, 'rephrase');
        break;
      default:
        push(base);
        if (c % 5 === 1) push({ ...base, seed: `cl-${c}-1`, at: at + 60_000, question: 'Thanks! Could you also change the delivery address to the office?', answer: 'Done.' });
    }
  }
}

beforeAll(async () => {
  generate();
  app = await startTestServer();
  await postTurns(app.url, P, turns, 250);
}, 600_000);

afterAll(async () => {
  await app?.close();
});

interface ClusterOut { cluster_id: string; title: string; signature: string; kind: string; count: number; first_seen: string; last_seen: string; agent_names: string[]; trace_ids: string[]; trend: { day: string; count: number }[]; filter: Record<string, unknown> }

describe('failure clusters', () => {
  let clusters: ClusterOut[];

  it('recovers each planted kind as one cluster with the right count', async () => {
    const run = await post('/app/clusters/compute', { project_id: P, wait: true });
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    expect(run.body).toMatchObject({ status: 'completed', turns: turns.length, scored: turns.length, skipped: 0 });
    const r = await post('/app/clusters', { project_id: P });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    clusters = r.body.clusters;
    expect(clusters.map((c) => [c.kind, c.count, c.signature])).toEqual([
      ['tool_error', 120, 'tool error · fetch_invoice: invoice <id> not found (status <n>) after <n> attempts'],
      ['length_cutoff', 100, 'length cut-off · gpt-4o-mini'],
      ['error', 80, 'error · RateLimitError: rate limit exceeded for <id>: retry after <n> s'],
      ['repeated_tool_call', 60, 'repeated tool call · search_kb'],
      ['rephrased', 50, 'user repeated or rephrased the question'],
    ]);
    const kindOf: Record<string, Kind> = { tool_error: 'tool', length_cutoff: 'cut', error: 'ratelimit', repeated_tool_call: 'loop', rephrased: 'rephrase' };
    for (const c of clusters) {
      const want = planted[kindOf[c.kind]!];
      expect(c.trace_ids.length).toBe(20);
      // No cluster mixes two kinds: every example is of its own kind.
      for (const id of c.trace_ids) expect(want.has(id), `${c.signature}: ${id}`).toBe(true);
      expect(c.agent_names.sort()).toEqual(['Billing', 'Support']);
      expect(c.trend.reduce((n, d) => n + d.count, 0)).toBe(c.count);
      expect(c.trend.length).toBe(5); // planted conversations start on days 0, 2, 4, 6, 8
      expect(Date.parse(c.first_seen)).toBeLessThan(Date.parse(c.last_seen));
    }
  }, 300_000);

  it('opening a cluster filters the conversations, the spans and a scorer run', async () => {
    const tool = clusters.find((c) => c.kind === 'tool_error')!;
    const convs = await post('/app/conversations', { project_id: P, filters: { scores: [tool.filter] }, limit: 1000 });
    expect(convs.status, JSON.stringify(convs.body)).toBe(200);
    expect(convs.body.total_count).toBe(120);
    const spans = await post('/agents/spans/query', { project_id: P, query: { $expr: { $and: [{ $score: tool.filter }, { $eq: [{ $getField: 'operation_name' }, { $literal: 'execute_tool' }] }] } }, limit: 1000 });
    expect(spans.status, JSON.stringify(spans.body)).toBe(200);
    expect(new Set((spans.body.spans as { trace_id: string }[]).map((s) => s.trace_id))).toEqual(planted.tool);

    await post('/app/scorers/save', { project_id: P, scorer: { scorer_id: 'invoice-ok', rule: { kind: 'tool_error', tool: 'fetch_invoice' } } });
    const est = await post('/app/scorers/estimate', { project_id: P, scorer_id: 'invoice-ok', selection: { cluster_id: tool.cluster_id } });
    expect(est.body).toMatchObject({ turns: 120, to_score: 120 });
  }, 60_000);

  it('reads a time window, names a cluster, and a second pass skips signed turns', async () => {
    const window = await post('/app/clusters', { project_id: P, since: '2026-11-01T00:00:00Z', until: '2026-11-02T00:00:00Z' });
    const cut = (window.body.clusters as ClusterOut[]).find((c) => c.kind === 'length_cutoff')!;
    expect(cut.count).toBe(firstDay.cut);
    expect(firstDay.cut).toBeGreaterThan(0);
    const named = await post('/app/clusters/name', { project_id: P, cluster_id: cut.cluster_id, name: 'Order history answers cut off' });
    expect(named.body).toEqual({ cluster_id: cut.cluster_id, title: 'Order history answers cut off' });
    const again = await post('/app/clusters', { project_id: P });
    expect((again.body.clusters as ClusterOut[]).find((c) => c.cluster_id === cut.cluster_id)!.title).toBe('Order history answers cut off');
    const rerun = await post('/app/clusters/compute', { project_id: P, wait: true });
    expect(rerun.body).toMatchObject({ status: 'completed', scored: 0, skipped: turns.length });
    const missing = await post('/app/clusters/name', { project_id: P, cluster_id: 'sig-nope', name: 'x' });
    expect(missing.status).toBe(404);
  }, 120_000);

  it('a low-score cluster counts turns, not score rows', async () => {
    // Two reviewers score one turn low, one reviewer another, a span of the first turn is scored low too;
    // a third turn is scored high: the cluster holds 2 turns.
    const [a, b, c] = turns.slice(0, 3);
    const score = (t: (typeof turns)[number], creator: string, value: number, span?: string) =>
      ({ target: span ? 'span' : 'turn', trace_id: t.traceId, ...(span ? { span_id: span } : {}), name: 'helpfulness', value, source: 'human', creator });
    const made = await post('/app/scores/create', { project_id: P, scores: [score(a!, 'ana', 0.2), score(a!, 'bo', 0.1), score(b!, 'ana', 0.3), score(c!, 'ana', 0.9), score(a!, 'ana', 0, String(a!.spans()[0]!.spanId))] });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const low = (await post('/app/clusters', { project_id: P })).body.clusters.find((x: ClusterOut) => x.kind === 'low_score' && x.signature.includes('helpfulness'));
    expect(low.count).toBe(2);
    expect(low.trend.reduce((n: number, d: { count: number }) => n + d.count, 0)).toBe(2);
  }, 60_000);
});
