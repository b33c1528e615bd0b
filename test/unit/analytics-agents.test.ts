import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, contextOf, detailOf, tempStore } from '../helpers/analytics-call.js';
import { load, type SpanSpec } from '../helpers/analytics-data.js';
import type { TestStores } from '../helpers/temp-store.js';
import { openDatabase } from '../../src/main/store/sqlite/open.js';
import { explainAgents } from '../../src/main/store/sqlite/explain.js';
import { parseAgentsQuery } from '../../src/main/service/analytics/plan/lists.js';

const P = 'acme/agents';
let store: TestStores;
let ctx: ReturnType<typeof contextOf>;

// planner: 2 invocations (traces 1 and 2), one ERROR child; coder: 1 invocation; a span without agent is not an agent.
const data: SpanSpec[] = [
  { trace: 1, span: 1, op: 'invoke_agent', agent: 'planner', start: 0, end: 1000, input_tokens: 999, output_tokens: 999 },
  { trace: 1, span: 2, parent: 1, op: 'chat', start: 10, end: 400, input_tokens: 100, output_tokens: 10, model: 'gpt-4o' },
  { trace: 1, span: 3, parent: 1, op: 'chat', agent: 'planner', start: 400, end: 900, input_tokens: 50, output_tokens: 5, status: 'ERROR' },
  { trace: 2, span: 4, op: 'invoke_agent', agent: 'planner', start: 5000, end: 5500 },
  { trace: 2, span: 5, parent: 4, op: 'invoke_agent', agent: 'coder', start: 5100, end: 5300, input_tokens: 7, output_tokens: 3 },
  { trace: 3, span: 6, op: 'chat', start: 9000, end: 9100, input_tokens: 1, output_tokens: 1 },
];

beforeAll(async () => {
  store = await tempStore();
  ctx = contextOf(store);
  await load(store, P, data);
  await load(store, 'other/project', [{ trace: 9, span: 9, op: 'invoke_agent', agent: 'intruder', start: 0 }]);
});
afterAll(() => store.close());

describe('agents.query (semantics §6)', () => {
  it('summarises each agent: counts, durations, errors, first/last seen; tokens from usage-bearing leaves', async () => {
    const r = await call(ctx, 'agents.query', { project_id: P });
    expect(r.total_count).toBe(2);
    expect(r.agents.map((a: { agent_name: string }) => a.agent_name)).toEqual(['coder', 'planner']); // last_seen desc
    const planner = r.agents[1];
    expect(planner).toMatchObject({
      project_id: P,
      invocation_count: 2,
      // Span 2 carries no agent: it runs under planner and is credited to it (issue 18: the same set
      // as the agent's spans in the Spans view and group-by agent_name). Span 5 is coder's own.
      span_count: 4,
      error_count: 1,
      total_duration_ms: 1000 + 390 + 500 + 500,
      usage_known: true,
      first_seen: '2026-11-01T12:00:00.000000Z',
      last_seen: '2026-11-01T12:00:05.000000Z',
      // Leaves under planner: span 2 (inherits planner) + span 3; span 1 repeats its children and is not counted.
      total_input_tokens: 150,
      total_output_tokens: 15,
      total_cost_usd: null, // not requested
    });
    expect(r.agents[0]).toMatchObject({ agent_name: 'coder', invocation_count: 1, span_count: 1, total_input_tokens: 7, total_output_tokens: 3 });
  });

  it('include_costs adds costs; sorting, filters and paging', async () => {
    const costs = await call(ctx, 'agents.query', { project_id: P, include_costs: true });
    const byName = Object.fromEntries(costs.agents.map((a: { agent_name: string }) => [a.agent_name, a]));
    expect(byName.planner.total_cost_usd).toBeGreaterThan(0); // gpt-4o is priced
    expect(byName.coder.total_cost_usd).toBeNull(); // no model: unknown cost, never 0
    const cases: [unknown, string[]][] = [
      [[{ field: 'agent_name', direction: 'asc' }], ['coder', 'planner']],
      [[{ field: 'span_count', direction: 'desc' }], ['planner', 'coder']],
      [[{ field: 'first_seen', direction: 'desc' }], ['coder', 'planner']],
      [[{ field: 'total_input_tokens', direction: 'asc' }], ['coder', 'planner']],
      [[{ field: 'error_count', direction: 'desc' }], ['planner', 'coder']],
    ];
    for (const [sort_by, names] of cases) {
      const r = await call(ctx, 'agents.query', { project_id: P, sort_by });
      expect(r.agents.map((a: { agent_name: string }) => a.agent_name), JSON.stringify(sort_by)).toEqual(names);
    }
    const one = await call(ctx, 'agents.query', { project_id: P, filters: { agent_name: 'coder' } });
    expect(one).toMatchObject({ total_count: 1, agents: [{ agent_name: 'coder' }] });
    const page = await call(ctx, 'agents.query', { project_id: P, limit: 1, offset: 1 });
    expect(page.total_count).toBe(2);
    expect(page.agents.map((a: { agent_name: string }) => a.agent_name)).toEqual(['planner']);
    expect((await call(ctx, 'agents.query', { project_id: 'nobody/here' })).agents).toEqual([]);
  });

  it('rejects unknown sort fields (and total_cost_usd without include_costs) naming the allowed ones; checks bounds', async () => {
    const d = await detailOf(ctx, 'agents.query', { project_id: P, sort_by: [{ field: 'name; DROP TABLE spans', direction: 'desc' }] });
    expect(d[0]!.loc).toEqual(['body', 'sort_by', 0, 'field']);
    expect(d[0]!.msg).toMatch(/allowed: .*last_seen.*invocation_count/);
    const c = await detailOf(ctx, 'agents.query', { project_id: P, sort_by: [{ field: 'total_cost_usd', direction: 'desc' }] });
    expect(c[0]!.msg).toMatch(/include_costs/);
    expect(await call(ctx, 'agents.query', { project_id: P, include_costs: true, sort_by: [{ field: 'total_cost_usd' }] })).toHaveProperty('total_count', 2);
    expect((await detailOf(ctx, 'agents.query', { project_id: P, limit: 10001 }))[0]).toMatchObject({ loc: ['body', 'limit'], type: 'less_than_equal' });
    expect((await detailOf(ctx, 'agents.query', { project_id: P, offset: -1 }))[0]).toMatchObject({ loc: ['body', 'offset'] });
    expect((await detailOf(ctx, 'agents.query', { project_id: P, sort_by: [{ field: 'span_count', direction: 'sideways' }] }))[0]!.loc).toEqual(['body', 'sort_by', 0, 'direction']);
    expect((await detailOf(ctx, 'agents.query', { project_id: P, bogus: 1 }))[0]!.type).toBe('extra_forbidden');
  });

  it('re-importing a span that changed agent moves its counts; a late child takes the usage from its parent', async () => {
    const s = await tempStore();
    const c = contextOf(s);
    await load(s, P, [{ trace: 1, span: 1, op: 'invoke_agent', agent: 'a', start: 0, end: 100, input_tokens: 40, output_tokens: 4 }]);
    let r = await call(c, 'agents.query', { project_id: P });
    expect(r.agents).toMatchObject([{ agent_name: 'a', span_count: 1, total_input_tokens: 40 }]);
    await load(s, P, [{ trace: 1, span: 1, op: 'invoke_agent', agent: 'b', start: 0, end: 100, input_tokens: 40, output_tokens: 4 }]);
    r = await call(c, 'agents.query', { project_id: P });
    expect(r.agents).toMatchObject([{ agent_name: 'b', span_count: 1, invocation_count: 1, total_input_tokens: 40 }]);
    expect(r.total_count).toBe(1);
    await load(s, P, [{ trace: 1, span: 2, parent: 1, op: 'chat', start: 10, end: 50, input_tokens: 30, output_tokens: 3 }]);
    r = await call(c, 'agents.query', { project_id: P });
    // The child carries no agent: it is b's (span_count 2), and its usage replaces the parent's mirrored one.
    expect(r.agents).toMatchObject([{ agent_name: 'b', span_count: 2, total_input_tokens: 30, total_output_tokens: 3 }]);
    await load(s, P, [{ trace: 1, span: 1, op: 'invoke_agent', agent: 'b', start: -500, end: 100 }]);
    r = await call(c, 'agents.query', { project_id: P });
    expect(r.agents[0].first_seen).toBe('2026-11-01T11:59:59.500000Z');
    await s.close();
  });

  it('reads agent_summaries only: EXPLAIN QUERY PLAN never scans spans', () => {
    const db = openDatabase(store.file);
    for (const req of [
      { project_id: P, include_costs: false, limit: 100, offset: 0 },
      { project_id: P, include_costs: true, limit: 100, offset: 0, sort_by: [{ field: 'span_count', direction: 'desc' as const }] },
      { project_id: P, include_costs: false, limit: 100, offset: 0, filters: { agent_name: 'coder' } },
    ]) {
      const plan = explainAgents(db, parseAgentsQuery(req)).join('\n');
      expect(plan).not.toMatch(/\bspans\b/);
      expect(plan).toMatch(/agent_summaries/);
      expect(plan).not.toMatch(/^SCAN agent_summaries$/m);
    }
    db.close();
  });
});
