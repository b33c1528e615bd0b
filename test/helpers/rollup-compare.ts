/**
 * What the span-rollup tests of both adapters compare (test/unit/rollups.test.ts for SQLite,
 * test/unit/clickhouse-rollups.test.ts): every measure the rollups keep, a condition that makes the
 * same request scan, and rounding of float sums that add in another order.
 */

/** A condition every span meets (span_id is never null): the same rows, read by a scan. */
export const ALWAYS = { $expr: { $not: { $eq: [{ $getField: 'span_id' }, { $literal: null }] } } };

/** Every measure the rollups answer. */
export const MEASURES = [
  { alias: 'n', aggregation: 'count' },
  ...['duration_ms', 'total_tokens', 'total_cost_usd'].flatMap((key) =>
    ['sum', 'avg', 'min', 'max', 'count'].map((aggregation) => ({ alias: `${key}_${aggregation}`, aggregation, value: { key, source: 'derived' } })),
  ),
  ...['is_error', 'is_invocation'].flatMap((key) =>
    ['count_true', 'count_false', 'sum', 'avg', 'min', 'max', 'count'].map((aggregation) => ({ alias: `${key}_${aggregation}`, aggregation, value: { key, source: 'derived' } })),
  ),
];

/** Group rows with floats to 10 significant digits (sums of per-unit sums add in another order). */
export const rounded = (x: unknown): unknown =>
  JSON.parse(JSON.stringify(x, (_k, v: unknown) => (typeof v === 'number' && !Number.isInteger(v) ? Number(v.toPrecision(10)) : v)));

const field = (name: string) => ({ $getField: name });
const lit = (value: string | boolean | null) => ({ $literal: value });
const eq = (name: string, value: string | boolean | null) => ({ $eq: [field(name), lit(value)] });

/** A request whose condition also reads span_id (never null): the same spans, read by a scan. */
export function scanned(body: Record<string, unknown>): Record<string, unknown> {
  const q = body.query as { $expr: unknown } | undefined;
  return { ...body, query: q ? { $expr: { $and: [q.$expr, ALWAYS.$expr] } } : ALWAYS };
}

/**
 * Group-by requests with conditions, measure filters, keys and time windows over the columns the
 * keyed rollups are split by (decision 0021), for data with chat / execute_tool / invoke_agent spans,
 * errors, several models and providers, spans without an agent or a conversation. `window` holds two
 * instants inside the data (ISO), chosen so that some conversations run across them.
 */
export function filteredCases(window: [string, string]): { name: string; body: Record<string, unknown>; names?: true; offEdge?: true }[] {
  const [from, to] = window;
  const byAgent = [{ key: 'agent_name', source: 'field' }];
  const chat = { $expr: eq('gen_ai.operation.name', 'chat') };
  return [
    { name: 'chat spans by agent', body: { group_by: byAgent, query: chat, measures: MEASURES } },
    { name: 'errors by model', body: { group_by: [{ key: 'request_model', source: 'field' }], query: { $expr: eq('status_code', 'ERROR') }, measures: MEASURES.slice(0, 8) } },
    {
      name: 'by operation and provider, AND/OR/NOT/IN/null tests',
      body: {
        group_by: [{ key: 'operation_name', source: 'field' }, { key: 'provider_name', source: 'field' }],
        query: { $expr: { $or: [
          { $and: [{ $not: eq('agent_name', null) }, { $in: [field('request_model'), [lit('gpt-4o'), lit('claude-sonnet-4-5'), lit('o3-mini')]] }] },
          eq('request_model', null),
        ] } },
        measures: MEASURES.slice(0, 6),
      },
    },
    {
      name: 'by model and status, substring test and a derived flag',
      body: {
        group_by: [{ key: 'request_model', source: 'field' }, { key: 'status_code', source: 'field' }],
        query: { $expr: { $or: [{ $contains: { input: field('request_model'), substr: lit('MINI'), case_insensitive: true } }, { $eq: [field('is_invocation'), lit(true)] }] } },
        measures: MEASURES.slice(0, 4),
      },
    },
    {
      name: 'measures with filters over the keys',
      body: {
        group_by: [{ key: 'status_code', source: 'field' }],
        measures: [
          { alias: 'chats', aggregation: 'count', filter: chat },
          { alias: 'err_tokens', aggregation: 'sum', value: { key: 'total_tokens', source: 'derived' }, filter: { $expr: { $eq: [field('is_error'), lit(true)] } } },
          { alias: 'mini_cost_avg', aggregation: 'avg', value: { key: 'total_cost_usd', source: 'derived' }, filter: { $expr: { $contains: { input: field('request_model'), substr: lit('mini') } } } },
          { alias: 'tool_ms_max', aggregation: 'max', value: { key: 'duration_ms', source: 'derived' }, filter: { $expr: eq('operation_name', 'execute_tool') } },
          { alias: 'agent_inv', aggregation: 'count_true', value: { key: 'is_invocation', source: 'derived' }, filter: { $expr: { $not: eq('agent_name', null) } } },
        ],
      },
    },
    // span_kind and response_model (keys since migration 0030): the Spans page's group view with either condition.
    { name: 'client spans by agent', body: { group_by: byAgent, query: { $expr: eq('span_kind', 'CLIENT') }, measures: MEASURES } },
    {
      name: 'by response model and span kind, not internal, in a window',
      body: {
        group_by: [{ key: 'response_model', source: 'field' }, { key: 'span_kind', source: 'field' }], started_after: from, started_before: to,
        query: { $expr: { $not: eq('span_kind', 'INTERNAL') } }, measures: MEASURES.slice(0, 8),
      },
    },
    { name: 'one response model by operation', body: { group_by: [{ key: 'operation_name', source: 'field' }], query: { $expr: eq('response_model', 'o3-mini') }, measures: MEASURES } },
    {
      name: 'condition, sort, paging and a group filter',
      body: {
        group_by: byAgent, query: { $expr: { $not: eq('operation_name', 'execute_tool') } }, measures: MEASURES.slice(0, 4),
        sort_by: [{ field: 'total_cost_usd', direction: 'desc' }], limit: 2, offset: 1,
        group_filters: [{ group_by: byAgent, measure: { aggregation: 'count' }, min: 2 }],
      },
    },
    // span_name and duration bounds (migration 0031's name layer): the Spans page's group view with either condition.
    { name: 'chat-named spans by agent', names: true, body: { group_by: byAgent, query: { $expr: { $contains: { input: field('span_name'), substr: lit('chat') } } }, measures: MEASURES } },
    {
      name: 'longer than 5 s (a bucket edge) or a client span, by agent',
      names: true,
      body: { group_by: byAgent, query: { $expr: { $or: [{ $gt: [field('duration_ms'), { $literal: 5000 }] }, eq('span_kind', 'CLIENT')] } }, measures: MEASURES },
    },
    {
      name: 'a span name, or tools up to 5 s, by operation',
      names: true,
      body: {
        group_by: [{ key: 'operation_name', source: 'field' }],
        query: { $expr: { $or: [eq('span_name', 'invoke_agent agent-01'), { $and: [{ $lte: [field('duration_ms'), { $literal: 5000 }] }, eq('operation_name', 'execute_tool')] }] } },
        measures: MEASURES.slice(0, 8),
      },
    },
    {
      name: 'bounds off the bucket edges (scanned), by model',
      names: true,
      offEdge: true,
      body: {
        group_by: [{ key: 'request_model', source: 'field' }],
        query: { $expr: { $and: [{ $gte: [field('duration_ms'), { $literal: 333 }] }, { $lt: [field('duration_ms'), { $literal: 2222 }] }] } },
        measures: MEASURES.slice(0, 8),
      },
    },
    {
      name: 'window, a span name and a bound',
      names: true,
      body: {
        group_by: byAgent, started_after: from, started_before: to, measures: MEASURES,
        query: { $expr: { $and: [{ $contains: { input: field('span_name'), substr: lit('chat') } }, { $not: { $gt: [field('duration_ms'), { $literal: 5000 }] } }] } },
      },
    },
    { name: 'window from', body: { group_by: byAgent, started_after: from, measures: MEASURES } },
    { name: 'window to', body: { group_by: [{ key: 'request_model', source: 'field' }], started_before: to, measures: MEASURES.slice(0, 8) } },
    { name: 'window and condition', body: { group_by: byAgent, started_after: from, started_before: to, query: chat, measures: MEASURES } },
    {
      name: 'window, two keys, sorted by last seen',
      body: {
        group_by: [{ key: 'provider_name', source: 'field' }, { key: 'operation_name', source: 'field' }], started_after: from, started_before: to,
        measures: MEASURES.slice(0, 4), sort_by: [{ field: 'last_seen', direction: 'desc' }],
      },
    },
  ];
}
