import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, contextOf, detailOf, tempStore } from '../helpers/analytics-call.js';
import { load, spanHex } from '../helpers/analytics-data.js';
import type { TestStores } from '../helpers/temp-store.js';

const P = 'acme/expr';
let store: TestStores;
let ctx: ReturnType<typeof contextOf>;

beforeAll(async () => {
  store = await tempStore();
  ctx = contextOf(store);
  await load(store, P, [
    { trace: 1, span: 1, op: 'invoke_agent', agent: 'Planner', conversation: 'c1', start: 0, end: 2500, attrs: { tier: 'gold', reward: 0.75, retries: 2, beta: true } },
    { trace: 1, span: 2, parent: 1, op: 'chat', model: 'gpt-4o', start: 10, end: 510, input_tokens: 100, output_tokens: 20, attrs: { tier: 'Silver', reward: 0.25 } },
    { trace: 2, span: 3, op: 'execute_tool', name: 'execute_tool lookup_order', start: 3000, end: 3100, status: 'ERROR', attrs: { retries: 0, beta: false } },
    { trace: 2, span: 4, op: 'chat', model: 'claude-3-5-sonnet', start: 4000, end: 4900, input_tokens: 5, output_tokens: 1, attrs: { note: "it's 100% \"quoted\"" } },
  ]);
});
afterAll(() => store.close());

const ids = async (query: unknown) => {
  const r = await call(ctx, 'spans.query', { project_id: P, query, sort_by: [{ field: 'span_id', direction: 'asc' }] });
  return r.spans.map((s: { span_id: string }) => Number.parseInt(s.span_id, 16));
};
const f = (name: string) => ({ $getField: name });
const l = (v: unknown) => ({ $literal: v });

describe('$expr compiled to parameterized SQL (semantics §7)', () => {
  const cases: [string, Record<string, unknown>, number[]][] = [
    // The agent a span is credited to (issue 18, decision 0022): span 2, a model call under Planner's
    // invoke_agent span, is Planner's too, so the Agents click-through and group-by count the same spans.
    ['semantic name gen_ai.agent.name', { $eq: [f('gen_ai.agent.name'), l('Planner')] }, [1, 2]],
    ['semantic name agent.name', { $eq: [f('agent.name'), l('Planner')] }, [1, 2]],
    ['semantic gen_ai.request.model', { $eq: [f('gen_ai.request.model'), l('gpt-4o')] }, [2]],
    ['direct column', { $eq: [f('operation_name'), l('chat')] }, [2, 4]],
    ['literal on the left', { $eq: [l('chat'), f('operation_name')] }, [2, 4]],
    ['derived duration_ms', { $gte: [f('duration_ms'), l(900)] }, [1, 4]],
    ['derived total_tokens', { $gt: [f('total_tokens'), l(100)] }, [2]],
    ['bare custom name typed by a string literal', { $eq: [f('tier'), l('gold')] }, [1]],
    ['bare custom name typed by a float literal', { $gt: [f('reward'), l(0.5)] }, [1]],
    ['bare custom name typed by an int literal', { $gte: [f('retries'), l(1)] }, [1]],
    ['bare custom name typed by a bool literal', { $eq: [f('beta'), l(false)] }, [3]],
    ['explicit custom_attrs_<type>.<key>', { $lt: [f('custom_attrs_float.reward'), l(0.5)] }, [2]],
    ['$eq null is IS NULL', { $eq: [f('request_model'), l(null)] }, [1, 3]],
    ['$eq null on a bare custom name: absent from every map', { $eq: [f('tier'), l(null)] }, [3, 4]],
    ['$in', { $in: [f('operation_name'), [l('execute_tool'), l('invoke_agent')]] }, [1, 3]],
    ['$in with a $literal list and null', { $in: [f('request_model'), { $literal: ['gpt-4o', null] }] }, [1, 2, 3]],
    ['$in on a bare custom name', { $in: [f('tier'), [l('gold'), l('Silver')]] }, [1, 2]],
    ['$contains case-sensitive', { $contains: { input: f('tier'), substr: l('silver') } }, []],
    ['$contains case-insensitive', { $contains: { input: f('tier'), substr: l('SILVER'), case_insensitive: true } }, [2]],
    ['$contains treats % and _ as text', { $contains: { input: f('note'), substr: l('100%') } }, [4]],
    ['$contains on span name', { $contains: { input: f('span_name'), substr: l('lookup') } }, [3]],
    ['$not', { $not: [{ $eq: [f('operation_name'), l('chat')] }] }, [1, 3]],
    ['$or of $and', { $or: [{ $and: [{ $eq: [f('operation_name'), l('chat')] }, { $lt: [f('input_tokens'), l(10)] }] }, { $eq: [f('status_code'), l('ERROR')] }] }, [3, 4]],
    ['time comparison with ISO literal', { $gte: [f('started_at'), l('2026-11-01T12:00:03Z')] }, [3, 4]],
    ['time comparison with another offset', { $lt: [f('started_at'), l('2026-11-01T13:00:00.010+01:00')] }, [1]],
    ['$convert to string', { $gt: [{ $convert: { input: f('custom_attrs_string.tier'), to: 'string' } }, l('a')] }, [1]],
    ['$convert exists', { $eq: [{ $convert: { input: f('reward'), to: 'exists' } }, l(true)] }, [1, 2]],
    ['empty $and matches everything', { $and: [] }, [1, 2, 3, 4]],
  ];
  for (const [name, op, want] of cases) {
    it(name, async () => {
      expect(await ids({ $expr: op })).toEqual(want);
    });
  }
});

describe('hostile and malformed expressions are 422 or plain data, never SQL', () => {
  it('SQL in literals and custom keys is data', async () => {
    expect(await ids({ $expr: { $eq: [f('agent_name'), l("x' OR '1'='1")] } })).toEqual([]);
    expect(await ids({ $expr: { $eq: [f("tier') OR 1=1 --"), l('gold')] } })).toEqual([]);
    expect(await ids({ $expr: { $eq: [f('custom_attrs_string.tier; DROP TABLE spans'), l('x')] } })).toEqual([]);
    expect(await ids({ $expr: { $and: [] } })).toHaveLength(4); // the table is still there
  });

  it('rejects keys that cannot be a JSON path, unknown operators and bad shapes with a located 422', async () => {
    const bad: [unknown, (string | number)[], RegExp][] = [
      [{ $expr: { $eq: [f('a"b'), l('x')] } }, ['body', 'query', '$expr', '$eq', 0], /quotes/],
      [{ $expr: { $drop: [] } }, ['body', 'query', '$expr', '$drop'], /unknown operator/],
      [{ $expr: { $eq: [f('agent_name')] } }, ['body', 'query', '$expr', '$eq'], /two operands/],
      [{ $expr: { $gt: [f('agent_name'), l(null)] } }, ['body', 'query', '$expr', '$gt'], /null/],
      [{ $expr: { $eq: [f('mystery'), f('other')] } }, ['body', 'query', '$expr', '$eq', 0], /unknown field 'mystery'/],
      [{ $expr: { $eq: [f('input_tokens'), l('many')] } }, ['body', 'query', '$expr', '$eq', 1], /number/],
      [{ $expr: { $gte: [f('started_at'), l('yesterday-ish')] } }, ['body', 'query', '$expr', '$gte', 1], /datetime/],
      [{ $expr: { $eq: [{ $literal: { x: 1 } }, l(1)] } }, ['body', 'query', '$expr', '$eq', 0, '$literal'], /literal/],
      [{ $expr: { $eq: [f('a'), l(1)], $or: [] } }, ['body', 'query', '$expr'], /exactly one key/],
      [{ $expr: { $convert: { input: f('tier'), to: 'blob' } } }, ['body', 'query', '$expr', '$convert'], /unknown operator/],
    ];
    for (const [query, loc, msg] of bad) {
      const d = await detailOf(ctx, 'spans.query', { project_id: P, query });
      expect(d[0]!.loc, JSON.stringify(query)).toEqual(loc);
      expect(d[0]!.msg).toMatch(msg);
    }
  });

  it('refuses a deeply nested or huge expression with 422, not a crash', async () => {
    const nest = (levels: number) => {
      let deep: Record<string, unknown> = { $eq: [f('agent_name'), l('x')] };
      for (let i = 0; i < levels; i++) deep = { $not: [deep] };
      return deep;
    };
    const d1 = await detailOf(ctx, 'spans.query', { project_id: P, query: { $expr: nest(40) } });
    expect(d1[0]!.type).toBe('expression_too_deep');
    // Thousands of levels are refused before validation, by dispatch's depth guard (issue 13.8).
    const d0 = await detailOf(ctx, 'spans.query', { project_id: P, query: { $expr: nest(5000) } });
    expect(d0[0]!.type).toBe('too_deep');
    const wide = { $or: Array.from({ length: 20000 }, (_, i) => ({ $eq: [f('agent_name'), l(`a${i}`)] })) };
    const d2 = await detailOf(ctx, 'spans.query', { project_id: P, query: { $expr: wide } });
    expect(d2[0]!.type).toBe('expression_too_large');
    const bigIn = { $in: [f('agent_name'), { $literal: Array.from({ length: 5000 }, (_, i) => `a${i}`) }] };
    expect((await detailOf(ctx, 'spans.query', { project_id: P, query: { $expr: bigIn } }))[0]!.msg).toMatch(/at most 1000/);
  });

  it('span ids in results are the stored ones', async () => {
    const r = await call(ctx, 'spans.query', { project_id: P, query: { $expr: { $eq: [f('span_id'), l(spanHex(3))] } } });
    expect(r.spans.map((s: { span_id: string }) => s.span_id)).toEqual([spanHex(3)]);
  });
});
