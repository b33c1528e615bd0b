/**
 * Group mode of the spans query (semantics §7): fixed totals, measures, group filters, sorting and
 * paging in one aggregation over the current span versions; the number of groups comes from the same
 * pass (rows before LIMIT). Distributions and conversation previews are read for the page's groups.
 */
import type { GroupTotal, MeasurePlan, SpansGroupPlan } from '../../../domain/plans.js';
import type { FieldRef } from '../../../domain/expr.js';
import { distribution } from '../../../domain/distribution.js';
import { isoFromNs } from '../../../domain/time.js';
import type { GroupRowOut, ReadOptions } from '../../ports.js';
import type { ClickHouse } from '../connection.js';
import { columnSql, customSql, fieldSql, predicate, withProject } from '../expr.js';
import { dir, f64, ident, join, limit, raw, sql, str, type Sql } from '../sql.js';
import { FINAL_SETTINGS, currentSpans, scopeSql } from './scope.js';
import { rollupColumns, rollupDayRows, rollupMeasureSql, rollupRows } from './spans-rollup.js';
import { AGENT_ROLLUPS, rollupsAnswer } from '../../../domain/rollups.js';

/** Output column of each fixed total a plan may sort by. */
const TOTAL_COLUMN: Record<GroupTotal, string> = {
  span_count: 'span_count', invocation_count: 'invocation_count', conversation_count: 'conversation_count', error_count: 'error_count',
  first_seen: 'first_ns', last_seen: 'last_ns', total_duration_ms: 'total_duration_ms', total_input_tokens: 'total_input_tokens',
  total_output_tokens: 'total_output_tokens', total_reasoning_tokens: 'total_reasoning_tokens',
  total_cache_creation_input_tokens: 'total_cache_creation_input_tokens', total_cache_read_input_tokens: 'total_cache_read_input_tokens',
  // Cost totals are not named as the spans' own cost columns: a measure over total_cost_usd would read the alias.
  total_cost_usd: 'sum_cost_usd', total_input_cost_usd: 'sum_input_cost_usd', total_output_cost_usd: 'sum_output_cost_usd',
};

/** Columns whose distinct values every group row lists (agent_names, agent_versions, …). */
const LISTED = ['agent_name', 'agent_version', 'provider_name', 'request_model', 'conversation_name'] as const;
const TOKENS = ['input_tokens', 'output_tokens', 'reasoning_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens'];

const numericValue = (v: FieldRef) => v.type !== 'string';

/** One measure's aggregate: `agg(if(filter, value, NULL))`, NULL when no value is valid (as SQL's). */
export function measureSql(m: MeasurePlan): Sql {
  const f = m.filter ? predicate(m.filter) : null;
  if (!m.value) return f ? sql`countIf(${f})` : raw('count()');
  const v = fieldSql(m.value);
  const x = f ? sql`if(${f}, ${v}, NULL)` : v;
  // Truth of a value as SQLite's CASE WHEN sees it: non-zero numbers (texts read as numbers).
  const truth = numericValue(m.value) ? sql`(${x} != 0)` : sql`(toFloat64OrZero(${x}) != 0)`;
  switch (m.aggregation) {
    case 'sum': return sql`sum(${x})`;
    case 'avg': return sql`avg(${x})`;
    case 'min': return sql`min(${x})`;
    case 'max': return sql`max(${x})`;
    case 'count': return sql`count(${x})`;
    case 'count_distinct': return sql`uniqExact(${x})`;
    case 'count_true': return sql`countIf(ifNull(${truth}, 0))`;
    case 'count_false': return sql`countIf(ifNull(NOT ${truth}, 0))`;
  }
}

/** A metric as a number (64-bit results arrive as digits), or the text of a min/max of texts. */
function metric(m: MeasurePlan, v: unknown): unknown {
  if (v == null) return null;
  if (m.value && !numericValue(m.value) && (m.aggregation === 'min' || m.aggregation === 'max')) return v;
  return Number(v);
}

const sortedDistinct = (xs: unknown) => [...new Set((xs as (string | null)[]).filter((x): x is string => typeof x === 'string' && x !== ''))].sort();

/**
 * `rollupDays`: the rollups' day layer (migration 0015) holds every day of the store (its backfill is done), so the
 * plans the rollups answer read it — a row per day — instead of span_rollups' row per unit.
 */
export async function groupSpans(ch: ClickHouse, plan: SpansGroupPlan, opts: ReadOptions, rollupDays = false): Promise<{ groups: GroupRowOut[]; total_count: number }> {
  return withProject(plan.project_id, () => compile(plan, rollupDays)).run(ch, opts);
}

function compile(plan: SpansGroupPlan, rollupDays: boolean) {
  const keys = plan.keys.map((k) => (k.ref.kind === 'column' ? columnSql(k.ref.column) : customSql(k.ref.source, k.ref.key)));
  const keyed = (column: string) => plan.keys.some((k) => k.ref.kind === 'column' && k.ref.column === column);
  // Token and cost totals sum what the one counting rule counts (counted: 1 tokens, 2 cost), so a
  // group equals the chat header, agents and conversations list over the same spans.
  const cost = (c: string) => (plan.include_costs ? sql`sum(if(bitAnd(counted, 2) != 0, ${ident(c)}, NULL))` : raw('CAST(NULL AS Nullable(Float64))'));
  // Plans the span rollups answer exactly read them instead of every span (spans-rollup.ts). This
  // adapter's rollups are split by agent_name only (decision 0020): a condition or a window scans.
  const fromRollups = rollupsAnswer(plan, AGENT_ROLLUPS);
  const measureOf = fromRollups ? (m: MeasurePlan) => rollupMeasureSql(m)! : measureSql;
  const measures = plan.measures.map(measureOf);
  const cols: Sql[] = fromRollups ? rollupColumns(plan, measures, rollupDays) : [
    ...keys.map((k, i) => sql`${k} AS ${ident(`k${i}`)}`),
    raw('count() AS span_count'),
    raw("countIf(operation_name = 'invoke_agent') AS invocation_count"),
    raw('uniqExact(conversation_id) AS conversation_count'),
    raw("countIf(status_code = 'ERROR') AS error_count"),
    raw('min(start_ns) AS first_ns'),
    raw('max(start_ns) AS last_ns'),
    raw('intDiv(sum(if(end_ns > start_ns, end_ns - start_ns, 0)), 1000000) AS total_duration_ms'),
    ...TOKENS.map((c) => sql`ifNull(sum(if(bitAnd(counted, 1) != 0, ${ident(c)}, NULL)), 0) AS ${ident(`total_${c}`)}`),
    sql`${cost('total_cost_usd')} AS sum_cost_usd`,
    sql`${cost('input_cost_usd')} AS sum_input_cost_usd`,
    sql`${cost('output_cost_usd')} AS sum_output_cost_usd`,
    // A column that is itself a key has one value per group.
    ...LISTED.map((c) => (keyed(c) ? sql`[any(${ident(c)})] AS ${ident(`d_${c}`)}` : sql`groupUniqArray(${ident(c)}) AS ${ident(`d_${c}`)}`)),
    ...measures.map((m, i) => sql`${m} AS ${ident(`m${i}`)}`),
    raw('countIf(bitAnd(counted, 1) != 0) AS usage_spans'),
    raw('greatest(0, intDiv(max(end_ns) - min(start_ns), 1000000)) AS wall_ms'),
  ];
  const having: Sql[] = [];
  for (const h of plan.having) {
    const m = measureOf(h.measure);
    if (h.min !== null) having.push(sql`${m} >= ${f64(h.min)}`);
    if (h.max !== null) having.push(sql`${m} <= ${f64(h.max)}`);
  }
  const order = plan.sort.map((s) => {
    const col = s.ref.kind === 'key' ? `k${s.ref.index}` : s.ref.kind === 'measure' ? `m${s.ref.index}` : TOTAL_COLUMN[s.ref.total];
    return sql`${ident(col)}${dir(s.direction)}`;
  });
  const scope = scopeSql(plan);
  const query = sql`SELECT ${join(cols, ', ')} FROM ${fromRollups ? (rollupDays ? rollupDayRows(plan.project_id) : rollupRows(plan.project_id)) : currentSpans(scope)}
    GROUP BY ${join(keys.map((_, i) => ident(`k${i}`)), ', ')}${having.length ? sql` HAVING ${join(having, ' AND ')}` : raw('')}
    ORDER BY ${join(order, ', ')}${limit(plan.offset, plan.limit)}${FINAL_SETTINGS}`;

  return {
    async run(ch: ClickHouse, opts: ReadOptions): Promise<{ groups: GroupRowOut[]; total_count: number }> {
      const { rows, total } = await ch.page<Record<string, unknown>>(query, opts);
      const groups = rows.map((r): GroupRowOut => ({
        agent_names: sortedDistinct(r.d_agent_name),
        agent_versions: sortedDistinct(r.d_agent_version),
        conversation_count: Number(r.conversation_count),
        conversation_names: sortedDistinct(r.d_conversation_name),
        distributions: {},
        error_count: Number(r.error_count),
        first_message: null,
        first_seen: r.first_ns == null ? null : isoFromNs(BigInt(r.first_ns as string)),
        group_keys: Object.fromEntries(plan.keys.map((k, i) => {
          const v = r[`k${i}`];
          return [k.alias, v == null ? null : k.type === 'bool' ? v === 1 : k.type === 'int' || k.type === 'float' ? Number(v) : v];
        })),
        invocation_count: Number(r.invocation_count),
        last_message: null,
        last_seen: r.last_ns == null ? null : isoFromNs(BigInt(r.last_ns as string)),
        metrics: Object.fromEntries(plan.measures.map((m, i) => [m.alias, metric(m, r[`m${i}`])])) as Record<string, number | null>,
        provider_names: sortedDistinct(r.d_provider_name),
        request_models: sortedDistinct(r.d_request_model),
        span_count: Number(r.span_count),
        total_cache_creation_input_tokens: Number(r.total_cache_creation_input_tokens),
        total_cache_read_input_tokens: Number(r.total_cache_read_input_tokens),
        total_cost_usd: r.sum_cost_usd as number | null,
        total_duration_ms: Number(r.total_duration_ms),
        total_input_cost_usd: r.sum_input_cost_usd as number | null,
        total_input_tokens: Number(r.total_input_tokens),
        total_output_cost_usd: r.sum_output_cost_usd as number | null,
        total_output_tokens: Number(r.total_output_tokens),
        usage_known: Number(r.usage_spans) > 0,
        wall_duration_ms: r.wall_ms == null ? null : Number(r.wall_ms),
        total_reasoning_tokens: Number(r.total_reasoning_tokens),
      }));
      if (rows.length && plan.distributions.length) await distributions(ch, plan, keys[0]!, scope, rows, groups, opts);
      if (rows.length && plan.previews) await previews(ch, scope, rows.map((r) => r.k0 as string | null), groups, opts);
      return { groups, total_count: total };
    },
  };
}

/** Restricts a read to the page's groups (a NULL key is a group too). */
function pageFilter(key: Sql, values: unknown[], type: string): Sql {
  const nonNull = values.filter((v) => v != null);
  const param = (v: unknown) => sql`${type === 'string' ? str(String(v)) : f64(Number(v))}`;
  const inList = nonNull.length ? sql`${key} IN (${join(nonNull.map(param), ', ')})` : raw('0');
  return values.some((v) => v == null) ? sql`(${inList} OR isNull(${key}))` : inList;
}

async function distributions(
  ch: ClickHouse, plan: SpansGroupPlan, key: Sql, scope: Sql, rows: Record<string, unknown>[], groups: GroupRowOut[], opts: ReadOptions,
): Promise<void> {
  const values = rows.map((r) => r.k0);
  const index = new Map(values.map((v, i) => [JSON.stringify(v ?? null), i]));
  const keyType = plan.keys[0]!.type;
  await Promise.all(plan.distributions.map(async (spec) => {
    const v = customSql(spec.source, spec.key);
    const counted = await ch.rows<{ k: unknown; v: string | number; n: string }>(
      sql`SELECT ${key} AS k, ${v} AS v, count() AS n
          FROM ${currentSpans(sql`${scope} AND ${pageFilter(key, values, keyType === 'string' ? 'string' : 'number')} AND isNotNull(${v})`)}
          GROUP BY k, v${FINAL_SETTINGS}`,
      opts,
    );
    const perGroup = groups.map(() => [] as { v: string | number; n: number }[]);
    for (const c of counted) {
      const i = index.get(JSON.stringify(c.k ?? null));
      if (i !== undefined) perGroup[i]!.push({ v: spec.type === 'int' || spec.type === 'float' ? Number(c.v) : c.v, n: Number(c.n) });
    }
    const numeric = spec.type === 'int' || spec.type === 'float';
    groups.forEach((g, i) => {
      g.distributions[spec.alias] = distribution(perGroup[i]!, g.span_count, numeric, spec.type === 'bool', spec.bins, spec.top_n);
    });
  }));
}

/** First/last message previews of conversation groups (semantics §7), over the spans the filters keep. */
async function previews(ch: ClickHouse, scope: Sql, ids: (string | null)[], groups: GroupRowOut[], opts: ReadOptions): Promise<void> {
  const list = ids.filter((x): x is string => x != null);
  if (!list.length) return;
  // NULL times rank as SQLite orders them: first for the earliest start, last for the latest end.
  // The preview is read as '' when NULL: a Nullable argument would make argMin skip that span.
  const rows = await ch.rows<{ k: string; first: string | null; has_first: number; last: string | null; has_last: number }>(
    sql`SELECT conversation_id AS k,
          argMinIf(ifNull(input_preview, ''), tuple(ifNull(start_ns, toInt64(-9223372036854775808)), span_id), has_input = 1) AS first,
          countIf(has_input = 1) AS has_first,
          argMaxIf(ifNull(output_preview, ''), tuple(ifNull(end_ns, toInt64(-9223372036854775808)), span_id), has_output = 1) AS last,
          countIf(has_output = 1) AS has_last
        FROM ${currentSpans(sql`${scope} AND conversation_id IN (${join(list.map((c) => sql`${str(c)}`), ', ')})`)}
        GROUP BY k${FINAL_SETTINGS}`,
    opts,
  );
  const byId = new Map(rows.map((r) => [r.k, r]));
  ids.forEach((id, i) => {
    const r = id == null ? undefined : byId.get(id);
    if (!r) return;
    if (Number(r.has_first) && r.first) groups[i]!.first_message = { role: 'user_message', text: r.first };
    if (Number(r.has_last) && r.last) groups[i]!.last_message = { role: 'assistant_message', text: r.last };
  });
}
