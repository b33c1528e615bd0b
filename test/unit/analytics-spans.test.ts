import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, contextOf, detailOf, tempStore } from '../helpers/analytics-call.js';
import { load, spanHex, type SpanSpec } from '../helpers/analytics-data.js';
import type { TestStores } from '../helpers/temp-store.js';

const P = 'acme/spans';
let store: TestStores;
let ctx: ReturnType<typeof contextOf>;
const LONG = `  ${'x'.repeat(300)}  `;

// Conversation c1: 2 turns (traces 1, 2); c2: 1 turn (trace 3). Rewards are custom float attributes.
const data: SpanSpec[] = [
  { trace: 1, span: 1, op: 'invoke_agent', agent: 'planner', conversation: 'c1', start: 0, end: 1000, attrs: { reward: 0.5, tier: 'gold', ok: true },
    input: [{ role: 'system', content: 'be nice' }, { role: 'user', content: '  Where is order A-1187?  ' }] },
  { trace: 1, span: 2, parent: 1, op: 'chat', agent: 'planner', conversation: 'c1', model: 'gpt-4o', start: 100, end: 900, input_tokens: 100, output_tokens: 10,
    attrs: { reward: 1.5, tier: 'gold', ok: false }, output: [{ role: 'assistant', content: 'Looking it up.' }] },
  { trace: 2, span: 3, op: 'invoke_agent', agent: 'coder', conversation: 'c1', start: 2000, end: 2600, status: 'ERROR', attrs: { reward: 2.5, tier: 'silver', ok: true } },
  { trace: 2, span: 4, parent: 3, op: 'chat', agent: 'coder', conversation: 'c1', model: 'gpt-4o-mini', start: 2100, end: 2500, input_tokens: 50, output_tokens: 5,
    attrs: { reward: 3.5, tier: 'bronze' }, output: [{ role: 'assistant', content: LONG }] },
  { trace: 3, span: 5, op: 'invoke_agent', agent: 'planner', conversation: 'c2', start: 5000, end: 5200, attrs: { reward: 10.5, tier: 'gold' },
    input: [{ role: 'user', content: 'Hi' }], output: [{ role: 'assistant', content: 'Hello' }] },
  // A trace of its own, no agent and no conversation anywhere in it: what the (none) groups hold. (A
  // tool span under span 5 would be credited to planner and c2, issue 18: see accounting.test.ts.)
  { trace: 4, span: 6, op: 'execute_tool', name: 'execute_tool lookup_order', start: 5050, end: 5100, attrs: { tier: 'iron' } },
];

beforeAll(async () => {
  store = await tempStore();
  ctx = contextOf(store);
  await load(store, P, data);
});
afterAll(() => store.close());

const q = (body: Record<string, unknown>) => call(ctx, 'spans.query', { project_id: P, ...body });
const num = (s: { span_id: string }) => Number.parseInt(s.span_id, 16);

describe('spans.query list mode', () => {
  it('returns rows newest first with total_count; pages; heavy fields, costs and custom maps only on request', async () => {
    const r = await q({ limit: 2 });
    expect(r.groups).toEqual([]);
    expect(r.total_count).toBe(6);
    expect(r.spans.map(num)).toEqual([6, 5]);
    const row = r.spans[1];
    expect(row).toMatchObject({ span_id: spanHex(5), operation_name: 'invoke_agent', agent_name: 'planner', conversation_id: 'c2', status_code: 'UNSET',
      started_at: '2026-11-01T12:00:05.000000Z', ended_at: '2026-11-01T12:00:05.200000Z', input_messages: [], output_messages: [], raw_span_dump: null,
      custom_attrs_float: {}, custom_attrs_string: {}, total_cost_usd: null });
    expect((await q({ offset: 5 })).spans.map(num)).toEqual([1]);
    const d = await q({ include_details: true, include_costs: true, custom_attr_columns: [{ key: 'reward', source: 'custom_attrs_float' }, { key: 'tier' }],
      query: { $expr: { $eq: [{ $getField: 'span_id' }, { $literal: spanHex(2) }] } } });
    expect(d.spans[0]).toMatchObject({ custom_attrs_float: { reward: 1.5 }, custom_attrs_string: { tier: 'gold' }, custom_attrs_bool: {},
      output_messages: [{ role: 'assistant', content: 'Looking it up.' }] });
    expect(d.spans[0].total_cost_usd).toBeGreaterThan(0);
    expect(JSON.parse(d.spans[0].raw_span_dump).spanId).toBe(spanHex(2));
  });

  it('sorts by columns and requested custom columns; rejects other sort fields naming the allowed ones', async () => {
    const byTokens = await q({ sort_by: [{ field: 'input_tokens', direction: 'desc' }], limit: 2 });
    expect(byTokens.spans.map(num)).toEqual([2, 4]);
    const byReward = await q({ custom_attr_columns: [{ key: 'reward', source: 'custom_attrs_float' }], sort_by: [{ field: 'custom_attrs_float.reward', direction: 'asc' }] });
    expect(byReward.spans.map(num).slice(-3)).toEqual([3, 4, 5]);
    const bad = await detailOf(ctx, 'spans.query', { project_id: P, sort_by: [{ field: 'custom_attrs_float.reward', direction: 'asc' }] });
    expect(bad[0]).toMatchObject({ loc: ['body', 'sort_by', 0, 'field'] });
    expect(bad[0]!.msg).toMatch(/allowed: .*started_at/);
    const inj = await detailOf(ctx, 'spans.query', { project_id: P, sort_by: [{ field: 'started_at; DROP TABLE spans', direction: 'asc' }] });
    expect(inj[0]!.loc).toEqual(['body', 'sort_by', 0, 'field']);
  });

  it('started_after is inclusive, started_before exclusive', async () => {
    const r = await q({ started_after: '2026-11-01T12:00:02Z', started_before: '2026-11-01T12:00:05Z' });
    expect(r.spans.map(num)).toEqual([4, 3]);
  });
});

describe('spans.query group mode', () => {
  it('groups with fixed totals and measures (derived, field, custom), default order by the first measure', async () => {
    const r = await q({
      group_by: [{ key: 'agent_name', source: 'field' }],
      measures: [
        { alias: 'tokens', aggregation: 'sum', value: { key: 'total_tokens', source: 'derived' } },
        { alias: 'avg_reward', aggregation: 'avg', value: { key: 'reward', source: 'custom_attrs_float' } },
        { alias: 'errors', aggregation: 'count_true', value: { key: 'is_error', source: 'derived' } },
        { alias: 'chats', aggregation: 'count', filter: { $expr: { $eq: [{ $getField: 'operation_name' }, { $literal: 'chat' }] } } },
        { alias: 'models', aggregation: 'count_distinct', value: { key: 'request_model', source: 'field' } },
        { alias: 'max_dur', aggregation: 'max', value: { key: 'duration_ms', source: 'derived' } },
        { alias: 'oks', aggregation: 'count_false', value: { key: 'ok', source: 'custom_attrs_bool' } },
      ],
    });
    expect(r.spans).toEqual([]);
    expect(r.total_count).toBe(3);
    expect(r.groups.map((g: { group_keys: unknown }) => g.group_keys)).toEqual([{ agent_name: 'planner' }, { agent_name: 'coder' }, { agent_name: null }]);
    const planner = r.groups[0];
    expect(planner).toMatchObject({
      span_count: 3, invocation_count: 2, conversation_count: 2, error_count: 0, total_input_tokens: 100, total_output_tokens: 10,
      total_duration_ms: 1000 + 800 + 200, agent_names: ['planner'], request_models: ['gpt-4o'], first_seen: '2026-11-01T12:00:00.000000Z',
      last_seen: '2026-11-01T12:00:05.000000Z', total_cost_usd: null, first_message: null, last_message: null,
      metrics: { tokens: 110, avg_reward: (0.5 + 1.5 + 10.5) / 3, errors: 0, chats: 1, models: 1, max_dur: 1000, oks: 1 },
    });
    expect(r.groups[1].metrics).toMatchObject({ tokens: 55, errors: 1, chats: 1 });
    expect(r.groups[2].metrics).toMatchObject({ tokens: null, avg_reward: null, max_dur: 50 }); // no valid values → null
  });

  it('groups by a custom attribute, applies group filters (inclusive bounds), sorts and pages with total_count', async () => {
    const r = await q({
      group_by: [{ key: 'tier', source: 'custom_attrs_string', alias: 'tier' }],
      measures: [{ alias: 'n', aggregation: 'count' }],
      group_filters: [{ measure: { alias: 'n' }, min: 1, max: 3 }],
      sort_by: [{ field: 'tier', direction: 'asc' }],
    });
    expect(r.groups.map((g: { group_keys: { tier: string }; metrics: { n: number } }) => [g.group_keys.tier, g.metrics.n])).toEqual([
      ['bronze', 1], ['gold', 3], ['iron', 1], ['silver', 1],
    ]);
    const f = await q({
      group_by: [{ key: 'tier', source: 'custom_attrs_string', alias: 'tier' }],
      group_filters: [{ measure: { alias: 'reward_sum', aggregation: 'sum', value: { key: 'reward', source: 'custom_attrs_float' } }, min: 3 }],
      sort_by: [{ field: 'tier', direction: 'asc' }],
      limit: 1,
    });
    expect(f.total_count).toBe(2); // gold (0.5+1.5+10.5) and bronze (3.5); silver (2.5) is filtered out
    expect(f.groups.map((g: { group_keys: { tier: string } }) => g.group_keys.tier)).toEqual(['bronze']);
    const page2 = await q({ group_by: [{ key: 'tier', source: 'custom_attrs_string' }], limit: 2, offset: 10 });
    expect(page2).toMatchObject({ groups: [], total_count: 4 }); // offset past the end still counts the groups
  });

  it('groups by a dotted custom attribute key without an alias: the alias is derived (app.customer_tier → app_customer_tier)', async () => {
    const D = 'acme/dotted';
    await load(store, D, [
      { trace: 7, span: 1, op: 'chat', start: 0, end: 10, attrs: { 'app.customer_tier': 'gold' } },
      { trace: 7, span: 2, op: 'chat', start: 20, end: 30, attrs: { 'app.customer_tier': 'gold' } },
      { trace: 8, span: 3, op: 'chat', start: 40, end: 50, attrs: { 'app.customer_tier': 'silver' } },
    ]);
    const r = await call(ctx, 'spans.query', {
      project_id: D,
      group_by: [{ key: 'app.customer_tier', source: 'custom_attrs_string' }],
      sort_by: [{ field: 'app_customer_tier', direction: 'asc' }],
    });
    expect(r.groups.map((g: { group_keys: Record<string, unknown>; span_count: number }) => [g.group_keys, g.span_count])).toEqual([
      [{ app_customer_tier: 'gold' }, 2],
      [{ app_customer_tier: 'silver' }, 1],
    ]);
    // An alias the request gives is still checked as written.
    const bad = await detailOf(ctx, 'spans.query', { project_id: D, group_by: [{ key: 'app.customer_tier', source: 'custom_attrs_string', alias: 'app.customer_tier' }] });
    expect(bad[0]).toMatchObject({ loc: ['body', 'group_by', 0, 'alias'] });
  });

  it('numeric distributions: equal-width bins over min..max, last bin inclusive; one bin when min = max', async () => {
    const r = await q({
      group_by: [{ key: 'conversation_id', source: 'field' }],
      group_distributions: [{ alias: 'reward', value: { key: 'reward', source: 'custom_attrs_float' }, bins: 3 }],
      sort_by: [{ field: 'conversation_id', direction: 'asc' }],
    });
    expect(r.groups[0].group_keys).toEqual({ conversation_id: null }); // the tool span without a conversation: NULL sorts first
    expect(r.groups[0].distributions.reward).toMatchObject({ total_count: 1, present_count: 0, missing_count: 1, bins: [] });
    const c1 = r.groups[1].distributions.reward;
    expect(c1).toEqual({
      total_count: 4, present_count: 4, missing_count: 0, kind: 'numeric', min: 0.5, max: 3.5,
      bins: [{ lower: 0.5, upper: 1.5, count: 1 }, { lower: 1.5, upper: 2.5, count: 1 }, { lower: 2.5, upper: 3.5, count: 2 }],
    });
    const c2 = r.groups[2].distributions.reward;
    expect(c2).toEqual({ total_count: 1, present_count: 1, missing_count: 0, kind: 'numeric', min: 10.5, max: 10.5, bins: [{ lower: 10.5, upper: 10.5, count: 1 }] });
  });

  it('categorical distributions: top_n by count desc then value asc, with other_count; bools as "true"/"false"', async () => {
    const r = await q({
      group_by: [{ key: 'operation_name', source: 'field', alias: 'op' }],
      group_distributions: [
        { alias: 'tier', value: { key: 'tier', source: 'custom_attrs_string' }, top_n: 1 },
        { alias: 'ok', value: { key: 'ok', source: 'custom_attrs_bool' } },
      ],
      sort_by: [{ field: 'op', direction: 'asc' }],
    });
    const chat = r.groups.find((g: { group_keys: { op: string } }) => g.group_keys.op === 'chat');
    expect(chat.distributions.tier).toEqual({ total_count: 2, present_count: 2, missing_count: 0, kind: 'categorical', values: [{ value: 'bronze', count: 1 }], other_count: 1 });
    const agent = r.groups.find((g: { group_keys: { op: string } }) => g.group_keys.op === 'invoke_agent');
    expect(agent.distributions.tier.values).toEqual([{ value: 'gold', count: 2 }]);
    expect(agent.distributions.ok).toMatchObject({ present_count: 2, missing_count: 1, values: [{ value: 'true', count: 2 }], other_count: 0 });
    expect(chat.distributions.ok.values).toEqual([{ value: 'false', count: 1 }]);
  });

  it('first/last message previews when grouped by exactly conversation_id, trimmed and cut at 280 characters', async () => {
    const r = await q({ group_by: [{ key: 'conversation_id', source: 'field' }], sort_by: [{ field: 'conversation_id', direction: 'asc' }] });
    expect(r.groups[0]).toMatchObject({ group_keys: { conversation_id: null }, first_message: null, last_message: null });
    expect(r.groups[1].first_message).toEqual({ role: 'user_message', text: 'Where is order A-1187?' });
    expect(r.groups[1].last_message).toEqual({ role: 'assistant_message', text: `${'x'.repeat(280)}…` });
    expect(r.groups[2]).toMatchObject({ first_message: { role: 'user_message', text: 'Hi' }, last_message: { role: 'assistant_message', text: 'Hello' } });
    const two = await q({ group_by: [{ key: 'conversation_id', source: 'field' }, { key: 'agent_name', source: 'field' }] });
    expect(two.groups.every((g: { first_message: unknown }) => g.first_message === null)).toBe(true);
  });
});

describe('spans.query validation, in the order of semantics §7', () => {
  const G = [{ key: 'agent_name', source: 'field' }];
  const cases: [string, Record<string, unknown>, (string | number)[], RegExp][] = [
    ['measures without group_by', { measures: [{ alias: 'n' }] }, ['body', 'measures'], /group_by/],
    ['distributions without group_by (before the distribution rules)', { group_distributions: [{ alias: 'd', value: { key: 'x', source: 'field' } }] }, ['body', 'group_distributions'], /group_by/],
    ['distributions with two group_by', { group_by: [...G, { key: 'tool_name', source: 'field' }], group_distributions: [{ alias: 'd', value: { key: 'x', source: 'custom_attrs_int' } }], include_details: true }, ['body', 'group_distributions'], /exactly one/],
    ['custom_attr_columns with group_by', { group_by: G, custom_attr_columns: [{ key: 'x', source: 'field' }] }, ['body', 'custom_attr_columns'], /group_by/],
    ['include_details with group_by', { group_by: G, include_details: true }, ['body', 'include_details'], /group_by/],
    ['custom_attr_columns with a non-custom source', { custom_attr_columns: [{ key: 'x', source: 'field' }] }, ['body', 'custom_attr_columns', 0, 'source'], /custom_attrs_string/],
    ['duplicate measure aliases', { group_by: G, measures: [{ alias: 'n' }, { alias: 'n' }, { alias: 'span_count' }] }, ['body', 'measures', 1, 'alias'], /duplicate/],
    ['measure alias colliding with a row field', { group_by: G, measures: [{ alias: 'span_count' }] }, ['body', 'measures', 0, 'alias'], /row field/],
    ['measure alias colliding with a group alias', { group_by: [{ key: 'agent_name', source: 'field', alias: 'who' }], measures: [{ alias: 'who' }] }, ['body', 'measures', 0, 'alias'], /group alias/],
    ['duplicate distribution aliases', { group_by: G, group_distributions: Array.from({ length: 21 }, () => ({ alias: 'd', value: { key: 'x', source: 'custom_attrs_int' } })) }, ['body', 'group_distributions', 1, 'alias'], /duplicate/],
    ['more than 20 distributions', { group_by: G, group_distributions: Array.from({ length: 21 }, (_, i) => ({ alias: `d${i}`, value: { key: 'x', source: 'custom_attrs_int' } })) }, ['body', 'group_distributions'], /at most 20/],
    ['group alias that is not an identifier', { group_by: [{ key: 'agent_name', source: 'field', alias: 'a b; DROP TABLE spans' }] }, ['body', 'group_by', 0, 'alias'], /A-Za-z_/],
    ['group_by field not allowed', { group_by: [{ key: 'raw_span_dump', source: 'field' }] }, ['body', 'group_by', 0, 'key'], /cannot group by 'raw_span_dump'; allowed: .*agent_name/],
    ['unknown group sort field', { group_by: G, sort_by: [{ field: 'nope', direction: 'asc' }] }, ['body', 'sort_by', 0, 'field'], /allowed: agent_name, span_count/],
    ['aggregation without a value', { group_by: G, measures: [{ alias: 's', aggregation: 'sum' }] }, ['body', 'measures', 0, 'value'], /only count/],
    ['unknown derived key', { group_by: G, measures: [{ alias: 's', value: { key: 'nope', source: 'derived' } }] }, ['body', 'measures', 0, 'value', 'key'], /duration_ms/],
    ['group filter without bounds', { group_by: G, group_filters: [{ measure: { alias: 'n', aggregation: 'count' } }] }, ['body', 'group_filters', 0], /min, max/],
    ['group filter max < min', { group_by: G, group_filters: [{ measure: { aggregation: 'count' }, min: 3, max: 1 }] }, ['body', 'group_filters', 0, 'max'], /at least min/],
    ['group filter naming an unknown measure', { group_by: G, group_filters: [{ measure: { alias: 'typo' }, min: 1 }] }, ['body', 'group_filters', 0, 'measure', 'alias'], /no measure named 'typo'/],
    ['distribution over a non-custom value', { group_by: G, group_distributions: [{ alias: 'd', value: { key: 'input_tokens', source: 'field' } }] }, ['body', 'group_distributions', 0, 'value', 'source'], /custom/],
    ['limit above 10000', { limit: 10001 }, ['body', 'limit'], /less than or equal to 10000/],
    ['unknown top-level key', { bogus: true }, ['body', 'bogus'], /Extra inputs/],
  ];
  for (const [name, body, loc, msg] of cases) {
    it(name, async () => {
      const d = await detailOf(ctx, 'spans.query', { project_id: P, ...body });
      expect(d[0]!.loc).toEqual(loc);
      expect(d[0]!.msg).toMatch(msg);
    });
  }
});
