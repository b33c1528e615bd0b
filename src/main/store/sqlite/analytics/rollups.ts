/**
 * Group-by answered from the span rollups (migration 0020, summaries/rollups.ts) when the plan allows
 * it (domain/rollups.ts `rollupsAnswer`, the rule every adapter shares). A rollup row has the key
 * columns of a span (agent_name, operation_name, status_code, request_model, provider_name) under the
 * same names and alias `s`, so the plan's condition, measure filters and group keys compile to the
 * very SQL the scan uses (expr.ts, columns.ts) and read the rows instead of the spans. The query has
 * the scan's output columns (spans-group.ts), so paging, sorting and group filters are the same SQL
 * around it.
 *
 * Rows are read from the per-day layer (`span_rollup_days`, decision 0026): one row per (day, key
 * combination), its conversations a bitmap whose union counts a group's conversations (loupe_unit_count,
 * sqlite/unit-bits.ts). A time window reads the layer's rows of the whole days inside it; for each of the
 * (at most two) days it cuts, that day's rollup rows wholly inside it and, for the units with a row across
 * an edge (a conversation active when the window opens or closes), those units' spans in the window, each
 * shaped as a rollup row of its own; the units are sought by index (spans_project_conversation, spans_key),
 * edge list first (CROSS JOIN: left alone the planner walked the project's spans probing the list —
 * 52 → 10 ms of CPU at 100k spans).
 *
 * A condition on span_name or a duration bound reads the name layer instead (migration 0031, nameLayerFrom below).
 */
import type { Statement } from 'better-sqlite3';
import type { MeasurePlan, SpanScope, SpansGroupPlan } from '../../../domain/plans.js';
import { ROLLUP_KEYS, durationBounds, hasWindow, needsNameLayer } from '../../../domain/rollups.js';
import { COLUMN_SQL, DERIVED_SQL, type Sql } from './columns.js';
import { compileBool } from './expr.js';
import { tableSource } from './scan-choice.js';
import { UNDECIDED } from '../unit-bits.js';
import { conventionalName } from '../summaries/rollups.js';

/** Rollup columns of a numeric derived value: sum, count of non-null values, min, max. */
const NUMERIC: Record<string, { sum: string; n: string; min: string; max: string }> = {
  duration_ms: { sum: 'dur_ms_sum', n: 'dur_ms_n', min: 'dur_ms_min', max: 'dur_ms_max' },
  total_tokens: { sum: 'tok_sum', n: 'tok_n', min: 'tok_min', max: 'tok_max' },
  total_cost_usd: { sum: 'cost', n: 'cost_n', min: 'cost_min', max: 'cost_max' },
};
/** Spans of a row for which a derived flag holds: the flags follow from the row's keys. */
const FLAG: Record<string, string> = {
  is_error: "CASE WHEN s.status_code = 'ERROR' THEN s.span_count ELSE 0 END",
  is_invocation: "CASE WHEN s.operation_name IS 'invoke_agent' THEN s.span_count ELSE 0 END",
};

/**
 * SQL of a measure over rollup rows `s`: the scan's `agg(CASE WHEN filter THEN value END)` from the
 * rows' sums, counts and bounds, with the same NULLs (no value: NULL sums, 0 counts).
 */
export function rollupMeasureSql(m: MeasurePlan): Sql {
  const f = m.filter ? compileBool(m.filter) : null;
  const params: unknown[] = [];
  // A row's column where the filter holds (NULL elsewhere); called in the order the SQL reads.
  const w = (expr: string) => {
    if (!f) return expr;
    params.push(...f.params);
    return `CASE WHEN ${f.sql} THEN ${expr} END`;
  };
  const out = (sql: string): Sql => ({ sql, params });
  if (!m.value) return out(`IFNULL(SUM(${w('s.span_count')}), 0)`);
  if (m.value.kind !== 'derived') throw new Error(`rollups cannot answer a measure of ${m.value.kind} values`);
  const num = NUMERIC[m.value.name];
  if (num) {
    switch (m.aggregation) {
      case 'sum': return out(`SUM(${w(`s.${num.sum}`)})`);
      case 'count': return out(`IFNULL(SUM(${w(`s.${num.n}`)}), 0)`);
      case 'min': return out(`MIN(${w(`s.${num.min}`)})`);
      case 'max': return out(`MAX(${w(`s.${num.max}`)})`);
      // AVG over the spans: the exact sum over the count (REAL, as SQLite's AVG gives it).
      case 'avg': return out(`(CAST(SUM(${w(`s.${num.sum}`)}) AS REAL) / NULLIF(SUM(${w(`s.${num.n}`)}), 0))`);
      default: break;
    }
  }
  const flag = FLAG[m.value.name];
  if (flag) {
    switch (m.aggregation) {
      case 'count_true': return out(`IFNULL(SUM(${w(flag)}), 0)`);
      case 'sum': return out(`SUM(${w(flag)})`);
      case 'count_false': return out(`IFNULL(SUM(${w('s.span_count')}) - SUM(${w(flag)}), 0)`);
      case 'count': return out(`IFNULL(SUM(${w('s.span_count')}), 0)`);
      case 'avg': return out(`(CAST(SUM(${w(flag)}) AS REAL) / SUM(${w('s.span_count')}))`);
      case 'min': return out(`(CASE WHEN SUM(${w('s.span_count')}) IS NULL THEN NULL WHEN SUM(${w(flag)}) = SUM(${w('s.span_count')}) THEN 1 ELSE 0 END)`);
      case 'max': return out(`(CASE WHEN SUM(${w('s.span_count')}) IS NULL THEN NULL WHEN SUM(${w(flag)}) > 0 THEN 1 ELSE 0 END)`);
      default: break;
    }
  }
  throw new Error(`rollups cannot answer ${m.aggregation} of ${m.value.name}`);
}

/** The group row's fixed totals and lists over rollup rows `s`, with the scan's column names (after the keys). */
export function rollupTotals(req: SpansGroupPlan): string[] {
  const keyed = (column: string) => req.keys.some((k) => k.ref.kind === 'column' && k.ref.column === column);
  const cost = (c: string) => (req.include_costs ? `SUM(s.${c})` : 'NULL');
  // A key column has one value per group; the others are the distinct values of the group's rows.
  const listed = (column: string) => (keyed(column) ? `json_array(s.${column})` : `json_group_array(DISTINCT s.${column})`);
  return [
    'SUM(s.span_count) AS span_count',
    `SUM(${FLAG.is_invocation}) AS invocation_count`,
    // Every row carries its conversations as a bitmap (a layer row's, or an edge row's one conversation): the union's size.
    'loupe_unit_count(s.units) AS conversation_count',
    `SUM(${FLAG.is_error}) AS error_count`,
    'MIN(s.first_ns) / 1000 AS first_us',
    'MAX(s.last_ns) / 1000 AS last_us',
    'IFNULL(SUM(s.dur_ns), 0) / 1000000 AS total_duration_ms',
    'IFNULL(SUM(s.in_tok), 0) AS total_input_tokens',
    'IFNULL(SUM(s.out_tok), 0) AS total_output_tokens',
    'IFNULL(SUM(s.reasoning_tok), 0) AS total_reasoning_tokens',
    'IFNULL(SUM(s.cache_creation_tok), 0) AS total_cache_creation_input_tokens',
    'IFNULL(SUM(s.cache_read_tok), 0) AS total_cache_read_input_tokens',
    `${cost('cost')} AS total_cost_usd`,
    `${cost('in_cost')} AS total_input_cost_usd`,
    `${cost('out_cost')} AS total_output_cost_usd`,
    `${listed('agent_name')} AS d_agent_name`,
    `${listed('provider_name')} AS d_provider_name`,
    `${listed('request_model')} AS d_request_model`,
    // Lists of lists (each row's JSON array): flattened by rollupLists.
    'json_group_array(DISTINCT s.agent_versions) AS d_agent_version',
    'json_group_array(DISTINCT s.conversation_names) AS d_conversation_name',
    // The one accounting's extras: spans whose tokens counted (0: usage unknown), earliest start to latest end.
    'SUM(s.tok_n) AS usage_spans',
    'MAX(0, (MAX(s.last_end_ns) - MIN(s.first_ns)) / 1000000) AS wall_ms',
  ];
}

/** Flattens the page's lists of per-row lists into the flat JSON arrays the scan gives. */
export function rollupLists(rows: Record<string, unknown>[]): void {
  for (const r of rows) {
    for (const col of ['d_agent_version', 'd_conversation_name']) {
      const lists = JSON.parse(r[col] as string) as string[];
      r[col] = JSON.stringify(lists.flatMap((l) => JSON.parse(l) as unknown[]));
    }
  }
}

/** Columns of a rollup row the group query reads, in the order the edge spans are shaped into. */
const ROW_COLUMNS = [
  'unit_kind', 'unit_id', ...ROLLUP_KEYS, 'span_count', 'first_ns', 'last_ns', 'last_end_ns', 'dur_ns', 'dur_ms_sum', 'dur_ms_n', 'dur_ms_min',
  'dur_ms_max', 'in_tok', 'out_tok', 'reasoning_tok', 'cache_creation_tok', 'cache_read_tok', 'tok_sum', 'tok_n', 'tok_min',
  'tok_max', 'cost', 'in_cost', 'out_cost', 'cost_n', 'cost_min', 'cost_max', 'agent_versions', 'conversation_names',
] as const;

const D = DERIVED_SQL.duration_ms;
const T = DERIVED_SQL.total_tokens;
const C = DERIVED_SQL.total_cost_usd;
const counted = (bit: number, c: string) => `CASE WHEN s.counted & ${bit} THEN s.${c} END`;
/** One span `s` of unit `e` as a rollup row of its own (what summaries/rollups.ts sums per row). */
const SPAN_AS_ROW: Record<(typeof ROW_COLUMNS)[number], string> = {
  unit_kind: 'e.unit_kind', unit_id: 'e.unit_id',
  ...(Object.fromEntries(ROLLUP_KEYS.map((k) => [k, `s.${k}`])) as Record<(typeof ROLLUP_KEYS)[number], string>),
  span_count: '1', first_ns: 's.start_ns', last_ns: 's.start_ns', last_end_ns: 's.end_ns',
  dur_ns: 'CASE WHEN s.end_ns > s.start_ns THEN s.end_ns - s.start_ns END',
  dur_ms_sum: D, dur_ms_n: `(${D} IS NOT NULL)`, dur_ms_min: D, dur_ms_max: D,
  in_tok: counted(1, 'input_tokens'), out_tok: counted(1, 'output_tokens'), reasoning_tok: counted(1, 'reasoning_tokens'),
  cache_creation_tok: counted(1, 'cache_creation_input_tokens'), cache_read_tok: counted(1, 'cache_read_input_tokens'),
  tok_sum: T, tok_n: `(${T} IS NOT NULL)`, tok_min: T, tok_max: T,
  cost: C, in_cost: counted(2, 'input_cost_usd'), out_cost: counted(2, 'output_cost_usd'), cost_n: `(${C} IS NOT NULL)`, cost_min: C, cost_max: C,
  agent_versions: 'json_array(s.agent_version)', conversation_names: 'json_array(s.conversation_name)',
};

/** A share of the rollup rows' rowid range above which the project's rows are read front to back. */
const SCAN_SHARE = 0.05;

/** Columns of a layer row (span_rollup_days) the group query reads: a rollup row's, its units a bitmap. */
const LAYER_COLUMNS = [...ROW_COLUMNS.filter((c) => c !== 'unit_kind' && c !== 'unit_id'), 'units'].join(', ');

const DAY_NS = 86_400_000_000_000n;
/** The UTC day of an instant (as summaries/rollups.ts computes `day`: floored also before 1970). */
const dayOf = (ns: bigint): bigint => (ns >= 0n ? ns / DAY_NS : -((-ns + DAY_NS - 1n) / DAY_NS));

/** A part of a window inside one day (an edge day cut by the window), half-open, bounds null when open. */
interface EdgeDay {
  day: bigint;
  after: bigint | null;
  before: bigint | null;
}

/**
 * How a window splits into days: the whole days inside it (`from` ≤ day < `to`, a null bound open; none
 * when `from` ≥ `to`), read from the layer, and the at most two days it cuts, read from the rollup rows.
 */
export function windowDays(after: bigint | null, before: bigint | null): { whole: { from: bigint | null; to: bigint | null } | null; edges: EdgeDay[] } {
  const edges: EdgeDay[] = [];
  const cutAfter = after !== null && dayOf(after) * DAY_NS !== after;
  const cutBefore = before !== null && dayOf(before) * DAY_NS !== before;
  if (cutAfter) {
    const day = dayOf(after);
    const end = (day + 1n) * DAY_NS;
    edges.push({ day, after, before: before !== null && before < end ? before : end });
  }
  if (cutBefore && !(cutAfter && dayOf(before) === dayOf(after))) {
    const day = dayOf(before);
    const start = day * DAY_NS;
    edges.push({ day, after: after !== null && after > start ? after : start, before });
  }
  const from = after === null ? null : cutAfter ? dayOf(after) + 1n : dayOf(after);
  const to = before === null ? null : dayOf(before);
  return { whole: from !== null && to !== null && from >= to ? null : { from, to }, edges };
}

/**
 * The FROM … WHERE of a rollup group query: rows `s` of the plan's project that meet its condition.
 * Without a window, the per-day layer's rows (decision 0026). With one, the layer's rows of the whole days
 * inside it, and for each day the window cuts, that day's rollup rows wholly inside the window plus the
 * window's spans of the units that have a row across an edge (those units' rows are left out, their spans
 * stand in), each given the bitmap of its conversation (loupe_unit), so one conversation count spans both.
 */
export function rollupFrom(req: SpanScope, prep: (sql: string) => Statement): Sql {
  if (needsNameLayer(req)) return nameLayerFrom(req, prep);
  const cond = req.where ? compileBool(req.where) : null;
  const and = (sql: string) => (cond ? `${sql} AND ${cond.sql}` : sql);
  const condParams = cond ? cond.params : [];
  const days = tableSource(prep, 'span_rollup_days', req.project_id, SCAN_SHARE);
  if (!hasWindow(req)) return { sql: `${days} WHERE ${and('s.project_id = ?')}`, params: [req.project_id, ...condParams] };

  const { whole, edges } = windowDays(req.started_after_ns, req.started_before_ns);
  const parts: string[] = [];
  const params: unknown[] = [];
  if (whole) {
    const days = dayRange(whole);
    const range = ['s.project_id = ?', ...days.terms];
    params.push(req.project_id, ...days.params);
    // A range of days by the day index: the layer is written day by day, so the range is read nearly in file order.
    parts.push(`SELECT ${LAYER_COLUMNS} FROM span_rollup_days s INDEXED BY span_rollup_days_day WHERE ${and(range.join(' AND '))}`);
    params.push(...condParams);
  }
  if (edges.length) {
    // One day's rows of the project: by the day index, whatever share of the table the project holds.
    const table = 'span_rollups s INDEXED BY span_rollups_day';
    for (const e of edges) {
      const edge = edgeDayRows(req.project_id, table, e, and, condParams);
      parts.push(`SELECT ${ROW_COLUMNS.filter((c) => c !== 'unit_kind' && c !== 'unit_id').map((c) => `x.${c}`).join(', ')}, loupe_unit(c.id) AS units
        FROM (${edge.sql}) x LEFT JOIN conversation_summaries c
        ON x.unit_kind = 0 AND c.project_id = ? AND c.conversation_id = x.unit_id AND c.kind = 'conversation'`);
      params.push(...edge.params, req.project_id);
    }
  }
  return { sql: `(${parts.join('\n    UNION ALL ')}) s`, params };
}

/**
 * One day a window cuts, from the rollup rows of that day: the rows wholly inside the window's part of
 * the day, and the spans in it of the units with a row across one of its edges (sought by index).
 */
function edgeDayRows(projectId: string, table: string, e: EdgeDay, and: (sql: string) => string, condParams: unknown[]): Sql {
  // A row across an edge: some of its spans start before the edge and some at or after it.
  const across: string[] = [];
  const acrossParams: unknown[] = [];
  const inside: string[] = [];
  const insideParams: unknown[] = [];
  const window: string[] = [];
  const windowParams: unknown[] = [];
  for (const [edge, side] of [[e.after, 'after'], [e.before, 'before']] as const) {
    if (edge === null) continue;
    across.push('(s.first_ns < ? AND s.last_ns >= ?)');
    acrossParams.push(edge, edge);
    inside.push(side === 'after' ? 's.first_ns >= ?' : 's.last_ns < ?');
    insideParams.push(edge);
    window.push(side === 'after' ? 's.start_ns >= ?' : 's.start_ns < ?');
    windowParams.push(edge);
  }
  const cols = ROW_COLUMNS.join(', ');
  const spanCols = ROW_COLUMNS.map((c) => `${SPAN_AS_ROW[c]} AS ${c}`).join(', ');
  const sql = `WITH edge AS MATERIALIZED (
      SELECT DISTINCT s.unit_kind, s.unit_id FROM ${table} WHERE ${and(`s.project_id = ? AND s.day = ? AND (${across.join(' OR ')})`)})
    SELECT ${cols} FROM ${table}
      WHERE ${and(`s.project_id = ? AND s.day = ? AND ${inside.join(' AND ')}`)} AND (s.unit_kind, s.unit_id) NOT IN (SELECT unit_kind, unit_id FROM edge)
    UNION ALL
    SELECT ${spanCols} FROM edge e CROSS JOIN spans s INDEXED BY spans_project_conversation ON s.project_id = ? AND s.conversation_id = e.unit_id
      WHERE ${and(`e.unit_kind = 0 AND ${window.join(' AND ')}`)}
    UNION ALL
    SELECT ${spanCols} FROM edge e CROSS JOIN spans s INDEXED BY spans_key ON s.project_id = ? AND s.trace_id = e.unit_id
      WHERE ${and(`e.unit_kind = 1 AND s.conversation_id IS NULL AND ${window.join(' AND ')}`)}`;
  return {
    sql,
    params: [
      projectId, e.day, ...acrossParams, ...condParams,
      projectId, e.day, ...insideParams, ...condParams,
      projectId, ...windowParams, ...condParams,
      projectId, ...windowParams, ...condParams,
    ],
  };
}

/**
 * The number of spans in a scope the rollups count exactly (domain/rollups.ts rollupsCount): the sum of
 * its rows' span counts, the rows read as a group-by reads them (rollupFrom). The spans list's total with
 * a condition on key columns (Spans page filters by agent, operation, status, model, provider): 1.5–2.7 s
 * of CPU counting spans at 6.2M spans.
 */
export function rollupSpanCount(req: SpanScope, prep: (sql: string) => Statement): number {
  const from = rollupFrom(req, prep);
  return Number(prep(`SELECT IFNULL(SUM(s.span_count), 0) FROM ${from.sql}`).pluck().get(...from.params));
}

/** True for the error of loupe_undecided(…) (a duration bound inside a name-layer row's durations): the caller scans. */
export const isUndecided = (e: unknown): boolean => e instanceof Error && e.message.includes(UNDECIDED);

/** A condition compiled over spans, read over layer rows: duration_ms is the row's min (or max), span_name `name`. */
const overRows = (sql: string, column: 'dur_ms_min' | 'dur_ms_max', name: string) =>
  sql.split(DERIVED_SQL.duration_ms).join(`s.${column}`).split(COLUMN_SQL.span_name).join(name);

/** A span `s` as a layer row (SPAN_AS_ROW without the unit), its conversation's bitmap as `units`. */
const SPAN_AS_LAYER_ROW = [
  ...ROW_COLUMNS.filter((c) => c !== 'unit_kind' && c !== 'unit_id').map((c) => `${SPAN_AS_ROW[c]} AS ${c}`),
  `loupe_unit((SELECT c.id FROM conversation_summaries c WHERE c.project_id = s.project_id AND c.conversation_id = s.conversation_id AND c.kind = 'conversation')) AS units`,
].join(', ');

/** A layer row's (day, key combination), as one value. */
const groupOf = (p: string) => `json_array(${p}day, ${ROLLUP_KEYS.map((k) => p + k).join(', ')})`;

/** The terms (over `s.day`) and parameters of a window's whole days; none for an open end. */
function dayRange(whole: { from: bigint | null; to: bigint | null }): { terms: string[]; params: unknown[] } {
  const terms: string[] = [];
  const params: unknown[] = [];
  if (whole.from !== null) {
    terms.push('s.day >= ?');
    params.push(whole.from);
  }
  if (whole.to !== null) {
    terms.push('s.day < ?');
    params.push(whole.to);
  }
  return { terms, params };
}

/**
 * The FROM of a query whose condition reads span_name or a duration bound (domain/rollups.ts needsNameLayer),
 * one statement (so the stale list and the rows are one snapshot), over the whole days in scope that are not
 * stale: the name layer's rows (span_name_days, migration 0031: the (day, keys) groups split by span name and
 * duration bucket) and the span_rollup_days rows of every other group — whose spans all carry the conventional
 * name (summaries/rollups.ts conventionalName) and lie in one bucket; then the spans of the stale days and of
 * the (at most two) days a window cuts, each shaped as a row. A duration bound that falls inside a row's
 * durations (min ≤ bound < max: off the bucket edges) fails the statement with UNDECIDED before an answer is
 * given; the caller answers by a scan.
 */
function nameLayerFrom(req: SpanScope, prep: (sql: string) => Statement): Sql {
  const cond = compileBool(req.where!);
  const parts: string[] = [];
  const params: unknown[] = [];
  const { whole, edges } = hasWindow(req) ? windowDays(req.started_after_ns, req.started_before_ns) : { whole: { from: null, to: null }, edges: [] };
  const bounds = durationBounds(req.where!).map((b) => compileBool(b));
  if (whole) {
    const { terms: range, params: rangeParams } = dayRange(whole);
    // Rows of days that are not stale (NULL: the spans without a start), within the window's whole days.
    const clean = `${range.map((r) => `${r} AND `).join('')}(CASE WHEN s.day IS NULL THEN NOT EXISTS (SELECT 1 FROM span_name_stale WHERE project_id = ? AND day IS NULL)
        ELSE s.day NOT IN (SELECT day FROM span_name_stale WHERE project_id = ? AND day IS NOT NULL) END)`;
    const cleanParams = [...rangeParams, req.project_id, req.project_id];
    const splitName = `IFNULL(s.span_name, ${conventionalName('s.')})`;
    const sources = [
      {
        // The groups the name layer does not split: their span_rollup_days rows, under the conventional name.
        from: hasWindow(req) ? 'span_rollup_days s INDEXED BY span_rollup_days_day' : tableSource(prep, 'span_rollup_days', req.project_id, SCAN_SHARE),
        where: `s.project_id = ? AND ${clean} AND ${groupOf('s.')} NOT IN (SELECT ${groupOf('x.')} FROM span_name_days x WHERE x.project_id = ?)`,
        params: [req.project_id, ...cleanParams, req.project_id],
        name: conventionalName('s.'),
      },
      { from: 'span_name_days s', where: `s.project_id = ? AND ${clean}`, params: [req.project_id, ...cleanParams], name: splitName },
    ];
    for (const src of sources) {
      // Every bound decided on every row read (a bound on a bucket edge always is), else no answer: tested on
      // each row before its condition (the last term, so rows of stale days and split groups are not tested),
      // loupe_undecided(…) failing the statement at the first row it cannot answer.
      const row = overRows(cond.sql, 'dur_ms_min', src.name);
      if (bounds.length) {
        const decided = bounds.map((b) => `${overRows(b.sql, 'dur_ms_min', src.name)} IS ${overRows(b.sql, 'dur_ms_max', src.name)}`).join(' AND ');
        parts.push(`SELECT ${LAYER_COLUMNS} FROM ${src.from} WHERE ${src.where} AND (CASE WHEN ${decided} THEN ${row} ELSE loupe_undecided(s.span_count) END)`);
        params.push(...src.params, ...bounds.flatMap((b) => [...b.params, ...b.params]), ...cond.params);
      } else {
        parts.push(`SELECT ${LAYER_COLUMNS} FROM ${src.from} WHERE ${src.where} AND ${row}`);
        params.push(...src.params, ...cond.params);
      }
    }
    // The stale days' spans, by the start index.
    const staleRange = range.length ? ` AND ${range.join(' AND ').replaceAll('s.day', 't.day')}` : '';
    parts.push(`SELECT ${SPAN_AS_LAYER_ROW} FROM span_name_stale t CROSS JOIN spans s INDEXED BY spans_project_start
      ON s.project_id = t.project_id AND s.start_ns >= t.day * ${DAY_NS} AND s.start_ns < (t.day + 1) * ${DAY_NS}
      WHERE t.project_id = ? AND t.day IS NOT NULL${staleRange} AND ${cond.sql}`);
    params.push(req.project_id, ...rangeParams, ...cond.params);
    if (!hasWindow(req)) {
      parts.push(`SELECT ${SPAN_AS_LAYER_ROW} FROM spans s INDEXED BY spans_project_start
        WHERE s.project_id = ? AND s.start_ns IS NULL AND EXISTS (SELECT 1 FROM span_name_stale WHERE project_id = ? AND day IS NULL) AND ${cond.sql}`);
      params.push(req.project_id, req.project_id, ...cond.params);
    }
  }
  // The days the window cuts: their spans in the window, by the start index.
  for (const e of edges) {
    parts.push(`SELECT ${SPAN_AS_LAYER_ROW} FROM spans s INDEXED BY spans_project_start
      WHERE s.project_id = ? AND s.start_ns >= ? AND s.start_ns < ? AND ${cond.sql}`);
    params.push(req.project_id, e.after, e.before, ...cond.params);
  }
  return { sql: `(${parts.join('\n    UNION ALL ')}) s`, params };
}
