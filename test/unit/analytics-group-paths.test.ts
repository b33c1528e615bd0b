/**
 * Pins the fast paths of group mode (the group-key shortcuts for conversation_count and the
 * distinct-name lists) to the general path on the same data: the same request answered without a
 * condition, with a tautology as its condition, and by a plain JS aggregation of the list-mode rows
 * must agree exactly. (Migration 0005's covering index was dropped in 0013: both read the table.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, contextOf } from '../helpers/analytics-call.js';
import { load, type SpanSpec } from '../helpers/analytics-data.js';
import { seededRandom } from '../../src/shared/seeded-random.js';
import { COUNTS_COST, COUNTS_USAGE, countedSpans } from '../../src/main/domain/chat/tree.js';
import { openTestStores, type TestStores } from '../helpers/temp-store.js';
import { openDatabase, type Db } from '../../src/main/store/sqlite/open.js';
import { statementCache } from '../../src/main/store/sqlite/analytics/stmt-cache.js';
import { countSource } from '../../src/main/store/sqlite/analytics/scan-choice.js';
import { whereOf } from '../../src/main/store/sqlite/analytics/filters.js';
import { explainGroup } from '../../src/main/store/sqlite/explain.js';
import { parseScope, parseSpansQuery } from '../../src/main/service/analytics/plan/spans.js';
import { spansInput } from '../helpers/analytics-call.js';
import { textOf } from '../../src/shared/text.js';

const P = 'acme/group-paths';
let store: TestStores;
let db: Db;
let ctx: ReturnType<typeof contextOf>;

/** ~300 spans: 4 agent names (one absent), 7 conversations (one absent), models, versions, errors, usage, costs, open spans. */
function dataset(): SpanSpec[] {
  const rnd = seededRandom(1234);
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const spans: SpanSpec[] = [];
  let id = 1;
  for (let t = 1; t <= 60; t++) {
    const conversation = pick(['c1', 'c2', 'c3', 'c4', 'c5', 'c6', undefined]);
    const n = 2 + Math.floor(rnd() * 6);
    const root = id;
    for (let i = 0; i < n; i++, id++) {
      const start = t * 10_000 + i * 100 + Math.floor(rnd() * 50);
      const usage = rnd() < 0.6;
      spans.push({
        trace: t, span: id, parent: i ? root : undefined,
        op: i ? pick(['chat', 'execute_tool', 'chat']) : 'invoke_agent',
        agent: pick(['planner', 'coder', 'critic', undefined]),
        conversation,
        start, end: rnd() < 0.1 ? null : start + Math.floor(rnd() * 900),
        status: rnd() < 0.15 ? 'ERROR' : rnd() < 0.5 ? 'OK' : undefined,
        model: pick(['gpt-4o', 'gpt-4o-mini', undefined]),
        ...(usage ? { input_tokens: Math.floor(rnd() * 500), output_tokens: rnd() < 0.8 ? Math.floor(rnd() * 80) : undefined } : {}),
        ...(rnd() < 0.3 ? { cost: Math.round(rnd() * 1000) / 10_000 } : {}),
        attrs: {
          ...(rnd() < 0.7 ? { 'gen_ai.agent.version': pick(['1.0', '1.1', '2.0']) } : {}),
          ...(rnd() < 0.7 ? { 'gen_ai.provider.name': pick(['openai', 'anthropic']) } : {}),
          ...(conversation && rnd() < 0.8 ? { 'gen_ai.conversation.name': `${conversation} ${pick(['a', 'b'])}` } : {}),
          ...(rnd() < 0.5 ? { tier: pick(['gold', 'silver']) } : {}),
        },
      });
    }
  }
  return spans;
}

const SMALL = 'acme/small';

beforeAll(async () => {
  store = await openTestStores();
  db = openDatabase(store.file); // a second connection, to ask which plan a count takes
  ctx = contextOf(store);
  await load(store, P, dataset());
  // A second project holding a few percent of the table: its counts keep the project index.
  await load(store, SMALL, dataset().slice(0, 12).map((sp) => ({ ...sp, trace: Number(sp.trace) + 1000 })));
});
afterAll(async () => {
  db.close();
  await store.close();
});

const MEASURES = [
  { alias: 'tokens', aggregation: 'sum', value: { key: 'total_tokens', source: 'derived' } },
  { alias: 'p_dur', aggregation: 'avg', value: { key: 'duration_ms', source: 'derived' } },
  { alias: 'errors', aggregation: 'count_true', value: { key: 'is_error', source: 'derived' } },
  { alias: 'models', aggregation: 'count_distinct', value: { key: 'request_model', source: 'field' } },
  { alias: 'max_in', aggregation: 'max', value: { key: 'input_tokens', source: 'field' } },
];
/** True for every span (span_name is never NULL). */
const TABLE_ONLY = { $expr: { $not: { $eq: [{ $getField: 'span_name' }, { $literal: '\u0001never' }] } } };
const field = (key: string) => ({ key, source: 'field' });

const groupBody = (group_by: { key: string; source: string }[], extra: Record<string, unknown> = {}) => ({
  project_id: P, group_by, measures: MEASURES, include_costs: true, limit: 1000, sort_by: group_by.map((g) => ({ field: g.key, direction: 'asc' })), ...extra,
});
/** The group plan a request body parses into (through the contract's schema, as dispatch does). */
const groupPlan = (body: Record<string, unknown>) => {
  const q = parseSpansQuery(spansInput(body));
  if (q.mode !== 'group') throw new Error('not a group request');
  return q.plan;
};

describe('fast paths of the spans query', () => {
  it('group by agent_name with the bench measures reads the table once, with or without a condition, to the same rows', async () => {
    const body = groupBody([field('agent_name')]);
    expect(explainGroup(db, groupPlan(body)).join('\n')).toMatch(/^SCAN s$/m);
    expect(explainGroup(db, groupPlan({ ...body, query: TABLE_ONLY })).join('\n')).toMatch(/^SCAN s$/m);
    const fast = await call(ctx, 'spans.query', body);
    const slow = await call(ctx, 'spans.query', { ...body, query: TABLE_ONLY });
    expect(fast.groups.length).toBe(4);
    expect(fast).toEqual(slow);
  });

  it.each([
    ['conversation_id', [field('conversation_id')]],
    ['agent_version', [field('agent_version')]],
    ['request_model + agent_name', [field('request_model'), field('agent_name')]],
    ['provider_name + conversation_name', [field('provider_name'), field('conversation_name')]],
  ])('group by %s: same rows with and without the fast paths', async (_, group_by) => {
    const body = groupBody(group_by);
    const fast = await call(ctx, 'spans.query', body);
    expect(fast.groups.length).toBeGreaterThan(1);
    expect(fast).toEqual(await call(ctx, 'spans.query', { ...body, query: TABLE_ONLY }));
  });

  it('agrees with a JS aggregation of the list-mode rows (fixed totals, distinct lists, measures)', async () => {
    const rows = (await call(ctx, 'spans.query', { project_id: P, include_costs: true, limit: 10000 })).spans as Record<string, any>[];
    expect(rows.length).toBeGreaterThan(200);
    // Token and cost totals count what the one counting rule (domain countedSpans, per trace) counts.
    const counted = new Map<string, number>();
    const byTrace = new Map<string, Record<string, any>[]>();
    for (const r of rows) byTrace.set(r.trace_id, [...(byTrace.get(r.trace_id) ?? []), r]);
    for (const spans of byTrace.values()) {
      const bits = countedSpans(spans.map((r) => ({ ...r, start_ns: null, end_ns: null })) as never[]);
      for (const r of spans) counted.set(`${r.trace_id}/${r.span_id}`, bits.get(r.span_id) ?? 0);
    }
    const bitsOf = (r: Record<string, any>) => counted.get(`${r.trace_id}/${r.span_id}`)!;
    expect(rows.some((r) => (r.input_tokens !== null || r.output_tokens !== null) && !(bitsOf(r) & COUNTS_USAGE))).toBe(true);
    for (const key of ['agent_name', 'conversation_id', 'agent_version']) {
      const got = (await call(ctx, 'spans.query', groupBody([field(key)]))).groups as Record<string, any>[];
      const byKey = new Map<unknown, Record<string, any>[]>();
      for (const r of rows) byKey.set(r[key], [...(byKey.get(r[key]) ?? []), r]);
      expect(got.map((g) => g.group_keys[key])).toEqual([...byKey.keys()].sort((a, b) => (a === null ? -1 : b === null ? 1 : textOf(a) < textOf(b) ? -1 : 1)));
      for (const g of got) {
        const rs = byKey.get(g.group_keys[key])!;
        const list = (c: string) => [...new Set(rs.map((r) => r[c]).filter((v) => typeof v === 'string' && v !== ''))].sort();
        const sum = (f: (r: Record<string, any>) => number | null | undefined) => rs.reduce((a, r) => a + (f(r) ?? 0), 0);
        const us = (iso: string | null) => (iso === null ? null : Date.parse(iso));
        const durs = rs.filter((r) => r.ended_at !== null).map((r) => us(r.ended_at)! - us(r.started_at)!);
        const withTokens = rs.filter((r) => bitsOf(r) & COUNTS_USAGE);
        const tokensOf = (r: Record<string, any>, c: string) => (bitsOf(r) & COUNTS_USAGE ? r[c] : 0);
        expect(g).toMatchObject({
          span_count: rs.length,
          conversation_count: new Set(rs.map((r) => r.conversation_id).filter((c) => c !== null)).size,
          invocation_count: rs.filter((r) => r.operation_name === 'invoke_agent').length,
          error_count: rs.filter((r) => r.status_code === 'ERROR').length,
          agent_names: list('agent_name'), agent_versions: list('agent_version'), provider_names: list('provider_name'),
          request_models: list('request_model'), conversation_names: list('conversation_name'),
          total_input_tokens: sum((r) => tokensOf(r, 'input_tokens')), total_output_tokens: sum((r) => tokensOf(r, 'output_tokens')),
          total_duration_ms: sum((r) => (r.ended_at !== null ? us(r.ended_at)! - us(r.started_at)! : 0)),
          first_seen: rs.map((r) => r.started_at).sort()[0], last_seen: rs.map((r) => r.started_at).sort().at(-1),
        });
        expect(g.metrics.tokens).toBe(withTokens.length ? sum((r) => (tokensOf(r, 'input_tokens') ?? 0) + (tokensOf(r, 'output_tokens') ?? 0)) : null);
        expect(g.metrics.errors).toBe(rs.filter((r) => r.status_code === 'ERROR').length);
        expect(g.metrics.p_dur).toBeCloseTo(durs.reduce((a, b) => a + b, 0) / durs.length, 9);
        expect(g.metrics.models).toBe(new Set(rs.map((r) => r.request_model).filter((m) => m !== null)).size);
        const costs = rs.filter((r) => bitsOf(r) & COUNTS_COST).map((r) => r.total_cost_usd) as number[];
        if (costs.length) expect(g.total_cost_usd).toBeCloseTo(costs.reduce((a, b) => a + b, 0), 12);
        else expect(g.total_cost_usd).toBeNull();
      }
    }
  });

  it('list total_count with a custom-attribute filter is the number of matching rows, by table scan (big project) or index (small one)', async () => {
    const prep = statementCache(db);
    const custom = { $expr: { $eq: [{ $getField: 'tier' }, { $literal: 'gold' }] } };
    const where = (project_id: string, query?: { $expr: Record<string, unknown> }) => whereOf(parseScope({ project_id, query })).sql;
    expect(countSource(prep, P, where(P, custom))).toBe('spans s NOT INDEXED');
    expect(countSource(prep, SMALL, where(SMALL, custom))).toBe('spans s');
    expect(countSource(prep, P, where(P))).toBe('spans s');
    // A filter an index leads with (conversation_id: spans_project_conversation) is left to the planner;
    // agent_name has no index since 0025 (the count of one agent alone is its summary row), so a big
    // project is read front to back.
    const agent = { $expr: { $and: [custom.$expr, { $eq: [{ $getField: 'gen_ai.agent.name' }, { $literal: 'coder' }] }] } };
    expect(countSource(prep, P, where(P, agent))).toBe('spans s NOT INDEXED');
    const conv = { $expr: { $and: [custom.$expr, { $eq: [{ $getField: 'gen_ai.conversation.id' }, { $literal: 'c1' }] }] } };
    expect(countSource(prep, P, where(P, conv))).toBe('spans s');
    for (const project_id of [P, SMALL]) {
      const all = (await call(ctx, 'spans.query', { project_id, limit: 10000, custom_attr_columns: [{ key: 'tier', source: 'custom_attrs_string' }] })).spans;
      const gold = all.filter((r: Record<string, any>) => r.custom_attrs_string.tier === 'gold').length;
      expect(gold).toBeGreaterThan(0);
      const r = await call(ctx, 'spans.query', { project_id, limit: 1, query: { $expr: { $eq: [{ $getField: 'tier' }, { $literal: 'gold' }] } } });
      expect(r.total_count).toBe(gold);
      const notGold = await call(ctx, 'spans.query', { project_id, limit: 1, query: { $expr: { $not: { $eq: [{ $getField: 'tier' }, { $literal: 'gold' }] } } } });
      expect(notGold.total_count).toBe(all.length - gold);
    }
  });
});
