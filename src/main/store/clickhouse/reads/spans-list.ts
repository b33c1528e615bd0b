/**
 * List mode of the spans query (semantics §7). Two steps, the late materialization ClickHouse 18.16
 * does not do by itself: the page's keys are sorted and cut reading only the sort and filter columns
 * (with the total count from the same pass), then the page's ~50 rows are read whole by key.
 */
import { CUSTOM_SOURCES, type CustomSource } from '../../../domain/catalog.js';
import type { SpanScope, SpansListPlan } from '../../../domain/plans.js';
import { oneAgent } from '../../../domain/one-agent.js';
import { isoFromNs } from '../../../domain/time.js';
import type { ReadOptions, SpanRowOut } from '../../ports.js';
import type { ClickHouse } from '../connection.js';
import { columnSql, customSql } from '../expr.js';
import { big, receivedRawSpan, type RawSpanParts } from '../rows.js';
import { date, dir, ident, join, limit, sql, str, type Sql } from '../sql.js';
import { DAY_ZERO_TEXT, FINAL_SETTINGS, currentPayloads, currentSpans, isDayZero, scopeSql, spanDays } from './scope.js';
import { keyFilter, type SpanKey } from './keys.js';
import { agentDays } from './agents.js';

const STRINGS = [
  'project_id', 'span_id', 'trace_id', 'parent_span_id', 'span_name', 'span_kind', 'status_code', 'status_message', 'agent_description',
  'agent_id', 'agent_name', 'agent_version', 'compaction_summary', 'conversation_id', 'conversation_name', 'error_type', 'operation_name',
  'output_type', 'provider_name', 'reasoning_content', 'request_model', 'response_id', 'response_model', 'server_address', 'tool_call_id',
  'tool_description', 'tool_name', 'tool_type', 'svc_run_id', 'svc_user_id',
];
const FLOATS = ['request_frequency_penalty', 'request_presence_penalty', 'request_temperature', 'request_top_p'];
const INTS = [
  'cache_creation_input_tokens', 'cache_read_input_tokens', 'compaction_items_after', 'compaction_items_before', 'input_tokens',
  'output_tokens', 'reasoning_tokens', 'request_choice_count', 'request_max_tokens', 'request_seed', 'server_port', 'svc_run_step',
  'svc_run_step_end',
];
const ARRAYS = ['artifact_refs', 'content_refs', 'object_refs', 'finish_reasons', 'request_stop_sequences'];
const COSTS = ['cache_creation_cost_usd', 'cache_read_cost_usd', 'input_cost_usd', 'output_cost_usd', 'total_cost_usd'];
const MAPS = ['str_keys', 'str_values', 'int_keys', 'int_values', 'float_keys', 'float_values', 'bool_keys', 'bool_values'];
const ROW_COLUMNS = join(
  [...STRINGS, ...FLOATS, ...INTS, ...ARRAYS, ...COSTS, 'start_ns', 'end_ns', 'day', 'tool_call_arguments', 'tool_call_result', 'tool_definitions', ...MAPS].map(ident),
  ', ',
);

function sortSql(plan: SpansListPlan): Sql {
  const parts = plan.sort.map((s) => sql`${s.ref.kind === 'custom' ? customSql(s.ref.source, s.ref.key) : columnSql(s.ref.column)}${dir(s.direction)}`);
  // The adapter's tie-breaker: the span key, in the last entry's direction.
  const last = plan.sort[plan.sort.length - 1]?.direction ?? 'desc';
  parts.push(sql`trace_id${dir(last)}`, sql`span_id${dir(last)}`);
  return join(parts, ', ');
}

type Row = Record<string, unknown> & { trace_id: string; span_id: string; day: string };

/** The first ns of a partition day (UTC). */
const dayStartNs = (day: string): bigint => BigInt(Date.parse(`${day}T00:00:00Z`)) * 1_000_000n;

/**
 * The page's keys in the default order (started_at descending), reading the newest days only: a span's
 * partition is the UTC day of its start, so the spans of the days from D on start after every span of an
 * earlier day. The page is read among the days from D (and day 0, whose spans past 2149 come first) and
 * kept when its last row starts on or after D's first instant — every span left out starts before it —
 * else the window widens (four days, then the whole store). The count is counted apart.
 */
async function newestPage(ch: ClickHouse, plan: SpansListPlan, opts: ReadOptions): Promise<{ rows: SpanKey[]; total: number }> {
  const where = scopeSql(plan);
  const total = ch.rows<{ n: string }>(keptCount(plan) ?? sql`SELECT count() AS n FROM ${currentSpans(where)}${FINAL_SETTINGS}`, opts);
  total.catch(() => {}); // awaited below, where a failure is thrown; not left unhandled while the page is read
  const days = (await spanDays(ch, opts)).filter((p) => !isDayZero(p));
  const need = plan.offset + plan.limit;
  if (need === 0) return { rows: [], total: Number((await total)[0]?.n ?? 0) };
  // One day, then four, then the whole store: a selective filter costs at most a whole sort and two small reads.
  for (const n of [1, 4, days.length]) {
    const whole = n >= days.length;
    const from = days[Math.min(n, days.length) - 1];
    const window = whole || !from ? where : sql`${where} AND (day >= ${date(from)} OR day = ${date(DAY_ZERO_TEXT)})`;
    const rows = await ch.rows<SpanKey & { start_ns: string | null }>(
      sql`SELECT trace_id, span_id, day, start_ns FROM ${currentSpans(window)} ORDER BY ${sortSql(plan)}${limit(0, need)}${FINAL_SETTINGS}`,
      opts,
    );
    const last = rows[rows.length - 1];
    if (whole || !from || (rows.length === need && last!.start_ns !== null && BigInt(last!.start_ns) >= dayStartNs(from))) {
      return { rows: rows.slice(plan.offset), total: Number((await total)[0]?.n ?? 0) };
    }
  }
  throw new Error('unreachable: the last window is the whole store');
}

/**
 * The list's count from the kept day rows (project-days.ts), as the SQLite adapter counts it from its kept
 * rows: every span of the project when nothing filters the list (no condition, no window), or the spans of
 * one agent when the condition is `agent_name = 'x'` alone (or the one row of an AND, the filter bar's form)
 * without a window — the spans whose stored (credited) agent_name is that name. Null for any other scope.
 */
export function keptCount(plan: SpanScope): Sql | null {
  if (plan.started_after_ns !== null || plan.started_before_ns !== null) return null;
  const p = str(plan.project_id);
  if (plan.where === null) return sql`SELECT sum(span_count) AS n FROM project_days FINAL WHERE project_id = ${p}${FINAL_SETTINGS}`;
  const agent = oneAgent(plan);
  if (agent === null) return null;
  return sql`SELECT sum(d_spans) AS n FROM ${agentDays(plan.project_id)} WHERE d_agent = ${str(agent)}${FINAL_SETTINGS}`;
}

/** The default order: started_at descending (the Spans page's, and the first page a user sees). */
const newestFirst = (plan: SpansListPlan): boolean =>
  plan.sort.length === 1 && plan.sort[0]!.ref.kind === 'column' && plan.sort[0]!.ref.column === 'started_at' && plan.sort[0]!.direction === 'desc';

export async function listSpans(ch: ClickHouse, plan: SpansListPlan, opts: ReadOptions): Promise<{ spans: SpanRowOut[]; total_count: number }> {
  const page = newestFirst(plan)
    ? await newestPage(ch, plan, opts)
    : await ch.page<SpanKey>(
        sql`SELECT trace_id, span_id, day FROM ${currentSpans(scopeSql(plan))}
            ORDER BY ${sortSql(plan)}${limit(plan.offset, plan.limit)}${FINAL_SETTINGS}`,
        opts,
      );
  if (!page.rows.length) return { spans: [], total_count: page.total };
  const keys: SpanKey[] = page.rows;
  const [rows, payloads] = await Promise.all([
    ch.rows<Row>(sql`SELECT ${ROW_COLUMNS} FROM ${currentSpans(keyFilter(plan.project_id, keys))}${FINAL_SETTINGS}`, opts),
    plan.include_details
      ? ch.rows<Row>(
          sql`SELECT trace_id, span_id, system_instructions, input_messages, output_messages, raw_span FROM ${currentPayloads(keyFilter(plan.project_id, keys))}${FINAL_SETTINGS}`,
          opts,
        )
      : Promise.resolve([]),
  ]);
  const byKey = new Map(rows.map((r) => [`${r.trace_id}/${r.span_id}`, r]));
  const details = new Map(payloads.map((r) => [`${r.trace_id}/${r.span_id}`, r]));
  const custom = new Map(plan.custom_columns.map((c) => [c.source, c.keys]));
  const spans: SpanRowOut[] = [];
  for (const k of keys) {
    const r = byKey.get(`${k.trace_id}/${k.span_id}`);
    if (r) spans.push(toRow(r, details.get(`${k.trace_id}/${k.span_id}`) ?? null, custom, plan));
  }
  return { spans, total_count: page.total };
}

const MAP_ARRAYS: Record<CustomSource, [string, string]> = {
  custom_attrs_string: ['str_keys', 'str_values'],
  custom_attrs_int: ['int_keys', 'int_values'],
  custom_attrs_float: ['float_keys', 'float_values'],
  custom_attrs_bool: ['bool_keys', 'bool_values'],
};

/** A custom map of a stored row, as the row shows it (int64 as numbers, bools as booleans). */
export function customMap(r: Record<string, unknown>, source: CustomSource, only?: readonly string[]): Record<string, unknown> {
  const [k, v] = MAP_ARRAYS[source];
  const keys = r[k] as string[];
  const values = r[v] as unknown[];
  const out: Record<string, unknown> = {};
  keys.forEach((key, i) => {
    if (only && !only.includes(key)) return;
    const x = values[i];
    out[key] = source === 'custom_attrs_bool' ? x === 1 : source === 'custom_attrs_int' ? Number(x) : x;
  });
  return out;
}

const messages = (json: string) =>
  (JSON.parse(json) as { role?: string; content?: string; finish_reason?: string }[]).map((m) => ({
    content: m.content ?? '',
    finish_reason: m.finish_reason ?? '',
    role: m.role ?? '',
  }));

function toRow(r: Row, d: Row | null, custom: Map<CustomSource, string[]>, plan: SpansListPlan): SpanRowOut {
  const out: Record<string, unknown> = {};
  for (const c of STRINGS) out[c] = r[c];
  for (const c of FLOATS) out[c] = r[c];
  for (const c of INTS) out[c] = r[c] == null ? null : Number(r[c]);
  for (const c of ARRAYS) out[c] = r[c];
  const start = big(r.start_ns as string | null);
  const end = big(r.end_ns as string | null);
  out.started_at = start == null ? null : isoFromNs(start);
  out.ended_at = end == null ? null : isoFromNs(end);
  for (const c of COSTS) out[c] = plan.include_costs ? r[c] : null;
  for (const src of CUSTOM_SOURCES) out[src] = custom.has(src) ? customMap(r, src, custom.get(src)) : {};
  out.tool_call_arguments = null;
  out.tool_call_result = null;
  out.tool_definitions = null;
  out.raw_span_dump = null;
  out.system_instructions = [];
  out.input_messages = [];
  out.output_messages = [];
  if (plan.include_details && d) {
    out.tool_call_arguments = r.tool_call_arguments;
    out.tool_call_result = r.tool_call_result;
    out.tool_definitions = r.tool_definitions;
    out.raw_span_dump = receivedRawSpan({ ...r, ...d } as unknown as RawSpanParts);
    out.system_instructions = JSON.parse(d.system_instructions as string);
    out.input_messages = messages(d.input_messages as string);
    out.output_messages = messages(d.output_messages as string);
  }
  return out as SpanRowOut;
}
