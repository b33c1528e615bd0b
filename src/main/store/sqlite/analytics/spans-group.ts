/** Group mode of the spans query (semantics §7): fixed totals, measures, group filters, sorting, paging. */
import type { Statement } from 'better-sqlite3';
import { isoFromUs } from '../../../domain/time.js';
import type { GroupKeyPlan, GroupTotal, SpansGroupPlan } from '../../../domain/plans.js';
import type { GroupRowOut } from '../../ports.js';
import { COLUMN_SQL, customSql, type Sql } from './columns.js';
import { whereOf } from './filters.js';
import { measureSql } from './measures.js';
import { distributions } from './distributions.js';
import { previews } from './previews.js';
import { isUndecided, rollupFrom, rollupLists, rollupMeasureSql, rollupTotals } from './rollups.js';
import { KEYED_ROLLUPS, rollupsAnswer } from '../../../domain/rollups.js';
import { rowSource } from './scan-choice.js';

/** Output column of each fixed group total a plan may sort by. */
const TOTAL_COLUMN: Record<GroupTotal, string> = {
  span_count: 'span_count', invocation_count: 'invocation_count', conversation_count: 'conversation_count', error_count: 'error_count',
  first_seen: 'first_us', last_seen: 'last_us', total_duration_ms: 'total_duration_ms', total_input_tokens: 'total_input_tokens',
  total_output_tokens: 'total_output_tokens', total_reasoning_tokens: 'total_reasoning_tokens',
  total_cache_creation_input_tokens: 'total_cache_creation_input_tokens', total_cache_read_input_tokens: 'total_cache_read_input_tokens',
  total_cost_usd: 'total_cost_usd', total_input_cost_usd: 'total_input_cost_usd', total_output_cost_usd: 'total_output_cost_usd',
};

export interface GroupKey extends Sql {
  alias: string;
  bool: boolean;
}

export function groupKeys(keys: GroupKeyPlan[]): GroupKey[] {
  return keys.map((k) => {
    const x = k.ref.kind === 'column' ? { sql: COLUMN_SQL[k.ref.column], params: [] } : customSql(k.ref.source, k.ref.key);
    return { alias: k.alias, ...x, bool: k.type === 'bool' };
  });
}

/** Columns whose distinct values every group row lists (agent_names, agent_versions, …). */
const LISTED = ['agent_name', 'agent_version', 'provider_name', 'request_model', 'conversation_name'];

const distinct = (json: unknown) => [...new Set((JSON.parse(json as string) as unknown[]).filter((x): x is string => typeof x === 'string' && x !== ''))].sort();

/**
 * SQL text and parameters of one group page (and of its group count, used when the page is empty):
 * from the span rollups when they answer the plan exactly (analytics/rollups.ts), else a scan.
 */
export function groupQuery(req: SpansGroupPlan, prep: (sql: string) => Statement, scan = false) {
  return !scan && rollupsAnswer(req, KEYED_ROLLUPS) ? rollupQuery(req, prep) : scanQuery(req, prep);
}

/** The group query over the span rollups: the scan's output columns, sort, group filters and paging. */
function rollupQuery(req: SpansGroupPlan, prep: (sql: string) => Statement) {
  const keys = groupKeys(req.keys);
  const from = rollupFrom(req, prep);
  const measures = req.measures.map(rollupMeasureSql);
  const having: string[] = [];
  const havingParams: unknown[] = [];
  for (const h of req.having) {
    const m = rollupMeasureSql(h.measure);
    if (h.min !== null) {
      having.push(`${m.sql} >= ?`);
      havingParams.push(...m.params, h.min);
    }
    if (h.max !== null) {
      having.push(`${m.sql} <= ?`);
      havingParams.push(...m.params, h.max);
    }
  }
  const groupBy = keys.map((_, i) => `k${i}`).join(', ');
  const grouped = `FROM ${from.sql} GROUP BY ${groupBy}${having.length ? ` HAVING ${having.join(' AND ')}` : ''}`;
  const keyCols = keys.map((k, i) => `${k.sql} AS k${i}`);
  const measureCols = measures.map((m, i) => `${m.sql} AS m${i}`);
  const measureParams = measures.flatMap((m) => m.params);
  const sql = `SELECT ${[...keyCols, ...rollupTotals(req), ...measureCols, 'COUNT(*) OVER () AS total_groups'].join(', ')} ${grouped} ORDER BY ${orderOf(req)} LIMIT ? OFFSET ?`;
  const countSql = `SELECT COUNT(*) AS n FROM (SELECT ${[...keyCols, ...measureCols].join(', ')} ${grouped})`;
  const countParams = [...measureParams, ...from.params, ...havingParams];
  return {
    keys, where: null, sql, params: [...countParams, req.limit, req.offset], countSql, countParams,
    fill: (_prep: (sql: string) => Statement, rows: Record<string, unknown>[]) => rollupLists(rows),
  };
}

function scanQuery(req: SpansGroupPlan, prep: (sql: string) => Statement) {
  const keys = groupKeys(req.keys);
  const where = whereOf(req);
  // The table front to back when no index narrows the filter (no index leads with a group key since 0013).
  const from = rowSource(prep, req.project_id, where.sql);
  const measures = req.measures.map(measureSql);
  const having: string[] = [];
  const havingParams: unknown[] = [];
  for (const h of req.having) {
    const m = measureSql(h.measure);
    if (h.min !== null) {
      having.push(`${m.sql} >= ?`);
      havingParams.push(...m.params, h.min);
    }
    if (h.max !== null) {
      having.push(`${m.sql} <= ?`);
      havingParams.push(...m.params, h.max);
    }
  }

  const order = orderOf(req);
  const keyed = (column: string) => req.keys.findIndex((k) => k.ref.kind === 'column' && k.ref.column === column);
  // Token and cost totals sum what the one counting rule counts (spans.counted: 1 tokens, 2 cost),
  // so a group equals the chat header / agents / conversations list over the same spans.
  const cost = (c: string) => (req.include_costs ? `SUM(CASE WHEN s.counted & 2 THEN s.${c} END)` : 'NULL');
  const cols = [
    ...keys.map((k, i) => `${k.sql} AS k${i}`),
    'COUNT(*) AS span_count',
    "COUNT(CASE WHEN s.operation_name = 'invoke_agent' THEN 1 END) AS invocation_count",
    // A column that is itself a group key has one value per group: no per-group DISTINCT B-tree.
    `${keyed('conversation_id') >= 0 ? "(s.conversation_id IS NOT NULL)" : 'COUNT(DISTINCT s.conversation_id)'} AS conversation_count`,
    "COUNT(CASE WHEN s.status_code = 'ERROR' THEN 1 END) AS error_count",
    'MIN(s.start_ns) / 1000 AS first_us',
    'MAX(s.start_ns) / 1000 AS last_us',
    'IFNULL(SUM(CASE WHEN s.end_ns > s.start_ns THEN s.end_ns - s.start_ns END), 0) / 1000000 AS total_duration_ms',
    ...['input_tokens', 'output_tokens', 'reasoning_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens'].map(
      (c) => `IFNULL(SUM(CASE WHEN s.counted & 1 THEN s.${c} END), 0) AS total_${c}`,
    ),
    `${cost('total_cost_usd')} AS total_cost_usd`,
    `${cost('input_cost_usd')} AS total_input_cost_usd`,
    `${cost('output_cost_usd')} AS total_output_cost_usd`,
    ...LISTED.map((c) => (keyed(c) >= 0 ? `json_array(s.${c}) AS d_${c}` : `json_group_array(DISTINCT s.${c}) AS d_${c}`)),
    'COUNT(CASE WHEN s.counted & 1 THEN 1 END) AS usage_spans',
    // Wall time in exact integer ns arithmetic (a double would round ns times by ~256 ns).
    'MAX(0, (MAX(s.end_ns) - MIN(s.start_ns)) / 1000000) AS wall_ms',
    ...measures.map((m, i) => `${m.sql} AS m${i}`),
    'COUNT(*) OVER () AS total_groups',
  ];
  const sql =
    `SELECT ${cols.join(', ')} FROM ${from} WHERE ${where.sql} GROUP BY ${keys.map((_, i) => `k${i}`).join(', ')}` +
    (having.length ? ` HAVING ${having.join(' AND ')}` : '') +
    ` ORDER BY ${order} LIMIT ? OFFSET ?`;
  const params = [...keys.flatMap((k) => k.params), ...measures.flatMap((m) => m.params), ...where.params, ...havingParams, req.limit, req.offset];
  const countSql = `SELECT COUNT(*) AS n FROM (SELECT ${keys.map((k, i) => `${k.sql} AS k${i}`).join(', ')}${measures.map((m, i) => `, ${m.sql} AS m${i}`).join('')} FROM ${from} WHERE ${where.sql} GROUP BY ${keys.map((_, i) => `k${i}`).join(', ')}${having.length ? ` HAVING ${having.join(' AND ')}` : ''})`;
  const countParams = [...keys.flatMap((k) => k.params), ...measures.flatMap((m) => m.params), ...where.params, ...havingParams];
  return { keys, where, sql, params, countSql, countParams, fill: null };
}

export function groupSpans(prep: (sql: string) => Statement, req: SpansGroupPlan): { groups: GroupRowOut[]; total_count: number } {
  let q = groupQuery(req, prep);
  let rows: Record<string, unknown>[];
  try {
    rows = prep(q.sql).all(...q.params) as Record<string, unknown>[];
  } catch (e) {
    // A duration bound inside a name-layer row's durations (analytics/rollups.ts nameLayerFrom): scanned.
    if (!isUndecided(e)) throw e;
    q = groupQuery(req, prep, true);
    rows = prep(q.sql).all(...q.params) as Record<string, unknown>[];
  }
  const { keys, where, countSql, countParams, fill } = q;
  fill?.(prep, rows);
  let total = rows.length ? (rows[0]!.total_groups as number) : 0;
  if (!rows.length && req.offset > 0) total = (prep(countSql).get(...countParams) as { n: number }).n;

  const groups = rows.map((r): GroupRowOut => ({
    agent_names: distinct(r.d_agent_name),
    agent_versions: distinct(r.d_agent_version),
    conversation_count: r.conversation_count as number,
    conversation_names: distinct(r.d_conversation_name),
    distributions: {},
    error_count: r.error_count as number,
    first_message: null,
    first_seen: r.first_us == null ? null : isoFromUs(r.first_us as number),
    group_keys: Object.fromEntries(keys.map((k, i) => [k.alias, k.bool && r[`k${i}`] != null ? r[`k${i}`] === 1 : r[`k${i}`]])),
    invocation_count: r.invocation_count as number,
    last_message: null,
    last_seen: r.last_us == null ? null : isoFromUs(r.last_us as number),
    metrics: Object.fromEntries(req.measures.map((m, i) => [m.alias, (r[`m${i}`] as number | null) ?? null])),
    provider_names: distinct(r.d_provider_name),
    request_models: distinct(r.d_request_model),
    span_count: r.span_count as number,
    total_cache_creation_input_tokens: r.total_cache_creation_input_tokens as number,
    total_cache_read_input_tokens: r.total_cache_read_input_tokens as number,
    total_cost_usd: r.total_cost_usd as number | null,
    total_duration_ms: r.total_duration_ms as number,
    total_input_cost_usd: r.total_input_cost_usd as number | null,
    total_input_tokens: r.total_input_tokens as number,
    total_output_cost_usd: r.total_output_cost_usd as number | null,
    total_output_tokens: r.total_output_tokens as number,
    total_reasoning_tokens: r.total_reasoning_tokens as number,
    usage_known: (r.usage_spans as number) > 0,
    wall_duration_ms: (r.wall_ms as number | null) ?? null,
  }));
  // (Plans with distributions or previews are never answered from rollups: `where` is set.)
  if (where && req.distributions.length && rows.length) distributions(prep, req.distributions, keys[0]!, where, rows, groups);
  if (where && req.previews && rows.length) previews(prep, where, groups, rows.map((r) => r.k0 as string | null));
  return { groups, total_count: total };
}

function orderOf(req: SpansGroupPlan): string {
  return req.sort
    .map((s) => {
      const dir = s.direction === 'asc' ? 'ASC' : 'DESC';
      switch (s.ref.kind) {
        case 'key': return `k${s.ref.index} ${dir}`;
        case 'measure': return `m${s.ref.index} ${dir}`;
        case 'total': return `${TOTAL_COLUMN[s.ref.total]} ${dir}`;
      }
    })
    .join(', ');
}
