/** Group mode of the spans query (semantics §7): fixed totals, measures, group filters, sorting, paging. */
import type { Statement } from 'better-sqlite3';
import { invalid } from '../../../../shared/errors.js';
import { isoFromUs } from '../../../domain/time.js';
import { GROUPABLE, isCustomSource } from './columns.js';
import { customSql } from './expr.js';
import { whereOf, type SpanFilter } from './filters.js';
import { measureSql, type MeasureSpec } from './measures.js';
import { distributions, type DistributionSpec } from './distributions.js';
import { previews } from './previews.js';
import { defaultGroupAlias } from '../../../../shared/group-alias.js';
import { dict } from '../../../../shared/dict.js';

export interface GroupRef {
  key: string;
  source: string;
  alias?: string;
}
export interface GroupRequest extends SpanFilter {
  group_by: GroupRef[];
  measures?: (MeasureSpec & { alias: string })[];
  group_filters?: { measure: MeasureSpec; group_by?: GroupRef[]; min?: number; max?: number }[];
  group_distributions?: DistributionSpec[];
  include_costs: boolean;
  limit: number;
  offset: number;
  sort_by?: { field: string; direction: 'asc' | 'desc' }[];
}

export const FIXED_SORT: Record<string, string> = dict({
  span_count: 'span_count', invocation_count: 'invocation_count', conversation_count: 'conversation_count', error_count: 'error_count',
  first_seen: 'first_us', last_seen: 'last_us', total_duration_ms: 'total_duration_ms', total_input_tokens: 'total_input_tokens',
  total_output_tokens: 'total_output_tokens', total_reasoning_tokens: 'total_reasoning_tokens',
  total_cache_creation_input_tokens: 'total_cache_creation_input_tokens', total_cache_read_input_tokens: 'total_cache_read_input_tokens',
  total_cost_usd: 'total_cost_usd', total_input_cost_usd: 'total_input_cost_usd', total_output_cost_usd: 'total_output_cost_usd',
});

export interface GroupKey {
  alias: string;
  sql: string;
  params: unknown[];
  bool: boolean;
}

export function groupKeys(refs: GroupRef[]): GroupKey[] {
  return refs.map((g, i) => {
    const loc = ['group_by', i];
    const alias = g.alias ?? defaultGroupAlias(g.key);
    if (g.source === 'field') {
      if (!GROUPABLE.includes(g.key)) throw invalid([...loc, 'key'], `cannot group by '${g.key}'; allowed: ${GROUPABLE.join(', ')}`, g.key);
      return { alias, sql: `s.${g.key}`, params: [], bool: false };
    }
    if (!isCustomSource(g.source)) throw invalid([...loc, 'source'], 'source must be field or custom_attrs_<type>', g.source);
    const c = customSql(g.source, g.key, [...loc, 'key']);
    return { alias, sql: c.sql, params: c.params, bool: g.source === 'custom_attrs_bool' };
  });
}

/** Columns whose distinct values every group row lists (agent_names, agent_versions, …). */
const LISTED = ['agent_name', 'agent_version', 'provider_name', 'request_model', 'conversation_name'];

const distinct = (json: unknown) => [...new Set((JSON.parse(json as string) as unknown[]).filter((x): x is string => typeof x === 'string' && x !== ''))].sort();

/** SQL text and parameters of one group page (and of its group count, used when the page is empty). */
export function groupQuery(req: GroupRequest) {
  const keys = groupKeys(req.group_by);
  const where = whereOf(req);
  const measures = (req.measures ?? []).map((m, i) => measureSql(m, ['measures', i]));
  const sameGroup = (g?: GroupRef[]) =>
    !g || (g.length === req.group_by.length && g.every((x, i) => x.key === req.group_by[i]!.key && x.source === req.group_by[i]!.source));
  const having: string[] = [];
  const havingParams: unknown[] = [];
  (req.group_filters ?? []).forEach((gf, i) => {
    if (!sameGroup(gf.group_by)) throw invalid(['group_filters', i, 'group_by'], 'a group filter is computed per group of the query: its group_by must equal group_by');
    if (gf.min === undefined && gf.max === undefined) throw invalid(['group_filters', i], 'a group filter needs min, max or both');
    if (gf.min !== undefined && gf.max !== undefined && gf.max < gf.min) throw invalid(['group_filters', i, 'max'], 'max must be at least min', gf.max);
    const named = req.measures?.findIndex((m) => m.alias === gf.measure.alias) ?? -1;
    const onlyAlias = !gf.measure.value && !gf.measure.filter && !gf.measure.aggregation;
    if (onlyAlias && named < 0 && gf.measure.alias !== undefined) {
      throw invalid(['group_filters', i, 'measure', 'alias'], `no measure named '${gf.measure.alias}': name one of measures or give aggregation/value`, gf.measure.alias);
    }
    const m = named >= 0 && onlyAlias ? measures[named]! : measureSql(gf.measure, ['group_filters', i, 'measure']);
    if (gf.min !== undefined) {
      having.push(`${m.sql} >= ?`);
      havingParams.push(...m.params, gf.min);
    }
    if (gf.max !== undefined) {
      having.push(`${m.sql} <= ?`);
      havingParams.push(...m.params, gf.max);
    }
  });

  const order = orderOf(req, keys);
  const keyed = (column: string) => req.group_by.findIndex((g) => g.source === 'field' && g.key === column);
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
    ...measures.map((m, i) => `${m.sql} AS m${i}`),
    'COUNT(*) OVER () AS total_groups',
  ];
  const sql =
    `SELECT ${cols.join(', ')} FROM spans s WHERE ${where.sql} GROUP BY ${keys.map((_, i) => `k${i}`).join(', ')}` +
    (having.length ? ` HAVING ${having.join(' AND ')}` : '') +
    ` ORDER BY ${order} LIMIT ? OFFSET ?`;
  const params = [...keys.flatMap((k) => k.params), ...measures.flatMap((m) => m.params), ...where.params, ...havingParams, req.limit, req.offset];
  const countSql = `SELECT COUNT(*) AS n FROM (SELECT ${keys.map((k, i) => `${k.sql} AS k${i}`).join(', ')}${measures.map((m, i) => `, ${m.sql} AS m${i}`).join('')} FROM spans s WHERE ${where.sql} GROUP BY ${keys.map((_, i) => `k${i}`).join(', ')}${having.length ? ` HAVING ${having.join(' AND ')}` : ''})`;
  const countParams = [...keys.flatMap((k) => k.params), ...measures.flatMap((m) => m.params), ...where.params, ...havingParams];
  return { keys, where, sql, params, countSql, countParams };
}

export function groupSpans(prep: (sql: string) => Statement, req: GroupRequest): { groups: Record<string, unknown>[]; total_count: number } {
  const { keys, where, sql, params, countSql, countParams } = groupQuery(req);
  const rows = prep(sql).all(...params) as Record<string, unknown>[];
  let total = rows.length ? (rows[0]!.total_groups as number) : 0;
  if (!rows.length && req.offset > 0) total = (prep(countSql).get(...countParams) as { n: number }).n;

  const groups = rows.map((r) => ({
    agent_names: distinct(r.d_agent_name),
    agent_versions: distinct(r.d_agent_version),
    conversation_count: r.conversation_count as number,
    conversation_names: distinct(r.d_conversation_name),
    distributions: {} as Record<string, unknown>,
    error_count: r.error_count as number,
    first_message: null as unknown,
    first_seen: r.first_us == null ? null : isoFromUs(r.first_us as number),
    group_keys: Object.fromEntries(keys.map((k, i) => [k.alias, k.bool && r[`k${i}`] != null ? r[`k${i}`] === 1 : r[`k${i}`]])),
    invocation_count: r.invocation_count as number,
    last_message: null as unknown,
    last_seen: r.last_us == null ? null : isoFromUs(r.last_us as number),
    metrics: Object.fromEntries((req.measures ?? []).map((m, i) => [m.alias, (r[`m${i}`] as number | null) ?? null])),
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
  }));
  if (req.group_distributions?.length && rows.length) distributions(prep, req.group_distributions, keys[0]!, where, rows, groups);
  if (req.group_by.length === 1 && req.group_by[0]!.source === 'field' && req.group_by[0]!.key === 'conversation_id' && rows.length) {
    previews(prep, where, groups, rows.map((r) => r.k0 as string | null));
  }
  return { groups, total_count: total };
}

function orderOf(req: GroupRequest, keys: GroupKey[]): string {
  const tie = keys.map((_, i) => `k${i} ASC`).join(', ');
  if (!req.sort_by?.length) return `${req.measures?.length ? 'm0 DESC' : 'last_us DESC'}, ${tie}`;
  const parts = req.sort_by.map((s, i) => {
    const dir = s.direction === 'asc' ? 'ASC' : 'DESC';
    const k = keys.findIndex((g) => g.alias === s.field);
    if (k >= 0) return `k${k} ${dir}`;
    const m = req.measures?.findIndex((x) => x.alias === s.field) ?? -1;
    if (m >= 0) return `m${m} ${dir}`;
    if (FIXED_SORT[s.field] && (req.include_costs || !s.field.includes('cost'))) return `${FIXED_SORT[s.field]} ${dir}`;
    const allowed = [...keys.map((g) => g.alias), ...(req.measures ?? []).map((x) => x.alias), ...Object.keys(FIXED_SORT).filter((f) => req.include_costs || !f.includes('cost'))];
    throw invalid(['sort_by', i, 'field'], `cannot sort groups by '${s.field}'; allowed: ${allowed.join(', ')}`, s.field);
  });
  return `${parts.join(', ')}, ${tie}`;
}
