/** List mode of the spans query (semantics §7): one row per matching span, sorted and paged in SQL. */
import type { Statement } from 'better-sqlite3';
import { CUSTOM_SOURCES, type CustomSource } from '../../../domain/catalog.js';
import type { SpansListPlan } from '../../../domain/plans.js';
import type { SpanRowOut } from '../../ports.js';
import { isoFromUs } from '../../../domain/time.js';
import { COLUMN_SQL, jsonPathOf, type Sql } from './columns.js';
import { whereOf } from './filters.js';
import { countSource } from './scan-choice.js';
import { isUndecided, rollupSpanCount } from './rollups.js';
import { rollupsCount } from '../../../domain/rollups.js';
import type { BoolExpr } from '../../../domain/expr.js';
import { equalsString, oneAgent } from '../../../domain/one-agent.js';

const LIGHT = [
  'project_id', 'span_id', 'trace_id', 'parent_span_id', 'span_name', 'span_kind', 'status_code', 'status_message', 'agent_description',
  'agent_id', 'agent_name', 'agent_version', 'compaction_summary', 'conversation_id', 'conversation_name', 'error_type', 'operation_name',
  'output_type', 'provider_name', 'reasoning_content', 'request_model', 'response_id', 'response_model', 'server_address', 'tool_call_id',
  'tool_description', 'tool_name', 'tool_type', 'svc_run_id', 'svc_user_id', 'request_frequency_penalty', 'request_presence_penalty',
  'request_temperature', 'request_top_p', 'cache_creation_input_tokens', 'cache_read_input_tokens', 'compaction_items_after',
  'compaction_items_before', 'input_tokens', 'output_tokens', 'reasoning_tokens', 'request_choice_count', 'request_max_tokens',
  'request_seed', 'server_port', 'svc_run_step', 'svc_run_step_end', 'artifact_refs', 'content_refs', 'object_refs', 'finish_reasons',
  'request_stop_sequences',
];
const COSTS = ['cache_creation_cost_usd', 'cache_read_cost_usd', 'input_cost_usd', 'output_cost_usd', 'total_cost_usd'];
const HEAVY = ['tool_call_arguments', 'tool_call_result', 'tool_definitions', 'raw_span_dump', 'system_instructions', 'input_messages', 'output_messages'];
const JSON_ARRAYS = ['artifact_refs', 'content_refs', 'object_refs', 'finish_reasons', 'request_stop_sequences'];

/** ORDER BY of a list plan; ties go by insertion order (rowid) in the last entry's direction. */
export function sortClause(sort: SpansListPlan['sort']): Sql {
  const parts: string[] = [];
  const params: unknown[] = [];
  for (const s of sort) {
    const dir = s.direction === 'asc' ? 'ASC' : 'DESC';
    if (s.ref.kind === 'custom') {
      parts.push(`json_extract(s.${s.ref.source}, ?) ${dir}`);
      params.push(jsonPathOf(s.ref.key));
    } else parts.push(`${COLUMN_SQL[s.ref.column]} ${dir}`);
  }
  parts.push(`s.id ${sort[sort.length - 1]?.direction === 'asc' ? 'ASC' : 'DESC'}`);
  return { sql: parts.join(', '), params };
}

export function listSpans(prep: (sql: string) => Statement, req: SpansListPlan): { spans: SpanRowOut[]; total_count: number } {
  const custom = new Map(req.custom_columns.map((c) => [c.source, c.keys]));
  const where = whereOf(req);
  const order = sortClause(req.sort);
  const cols = [
    ...LIGHT.map((c) => `s.${c}`),
    's.start_ns / 1000 AS start_us',
    's.end_ns / 1000 AS end_us',
    ...(req.include_costs ? COSTS.map((c) => `s.${c}`) : []),
    ...[...custom.keys()].map((c) => `s.${c}`),
    ...(req.include_details
      ? ['d.tool_call_arguments', 'd.tool_call_result', 'd.tool_definitions', 'd.raw_span_dump', 'd.system_instructions', 'd.input_messages', 'd.output_messages']
      : []),
  ];
  // The spans of one trace are a range of its key index: left alone, the planner walked the project's start
  // index to avoid sorting, reading every span of the project for a trace's few (4.4 s of CPU at 6.2M spans).
  const spans = oneTrace(req.where) ? 'spans s INDEXED BY spans_key' : 'spans s';
  const from = req.include_details ? `${spans} LEFT JOIN span_details d ON d.span_rowid = s.id` : spans;
  const rows = prep(`SELECT ${cols.join(', ')} FROM ${from} WHERE ${where.sql} ORDER BY ${order.sql} LIMIT ? OFFSET ?`)
    .all(...where.params, ...order.params, req.limit, req.offset) as Record<string, unknown>[];
  const agent = oneAgent(req);
  const whole = req.where === null && req.started_after_ns === null && req.started_before_ns === null;
  const total = whole
    ? { n: (prep('SELECT span_count FROM project_summaries WHERE project_id = ?').pluck().get(req.project_id) as number | undefined) ?? 0 }
    : agent !== null
      ? { n: (prep('SELECT span_count FROM agent_summaries WHERE project_id = ? AND agent_name = ?').pluck().get(req.project_id, agent) as number | undefined) ?? 0 }
      : (rollupsCount(req) ? rollupCountOrNull(req, prep) : null) ??
        (prep(`SELECT COUNT(*) AS n FROM ${countSource(prep, req.project_id, where.sql)} WHERE ${where.sql}`).get(...where.params) as { n: number });
  return { spans: rows.map((r) => toRow(r, custom, req)), total_count: total.n };
}

/*
 * Counts that are kept rows rather than a pass over the spans: every span of the project (nothing filters
 * the list: the Spans page's first page, 0.7–0.9 s of counting at 5M spans) is the project's row
 * (project_summaries.span_count, migration 0009, kept at ingest and after deletes); a condition on the
 * rollups' key columns (the Spans page's filters by agent, operation, status, model, provider), with or
 * without a time window, is the sum of the rollup rows' span counts (rollupSpanCount, the group-by's
 * rows: 1.5–2.7 s of CPU counting at 6.2M spans).
 */

/** The rollups' count, or null when a duration bound falls inside a name-layer row (counted by a pass then). */
function rollupCountOrNull(req: SpansListPlan, prep: (sql: string) => Statement): { n: number } | null {
  try {
    return { n: rollupSpanCount(req, prep) };
  } catch (e) {
    if (isUndecided(e)) return null;
    throw e;
  }
}

/** True when a condition keeps the spans of one trace (trace_id = a string, alone or in an AND). */
function oneTrace(w: BoolExpr | null): boolean {
  if (w?.kind === 'and') return w.args.some(oneTrace);
  return equalsString(w, 'trace_id') !== null;
}

function toRow(r: Record<string, unknown>, custom: Map<CustomSource, string[]>, req: SpansListPlan): SpanRowOut {
  const out: Record<string, unknown> = {};
  // An empty array or map column is NULL since migration 0025 ('[]' / '{}' in older rows).
  for (const c of LIGHT) out[c] = JSON_ARRAYS.includes(c) ? (r[c] == null ? [] : JSON.parse(r[c] as string)) : r[c];
  out.started_at = r.start_us == null ? null : isoFromUs(r.start_us as number);
  out.ended_at = r.end_us == null ? null : isoFromUs(r.end_us as number);
  for (const c of COSTS) out[c] = req.include_costs ? r[c] : null;
  for (const src of CUSTOM_SOURCES) {
    const keys = custom.get(src);
    const map: Record<string, unknown> = {};
    if (keys && r[src] != null) {
      const all = JSON.parse(r[src] as string) as Record<string, unknown>;
      for (const k of keys) if (Object.prototype.hasOwnProperty.call(all, k)) map[k] = all[k];
    }
    out[src] = map;
  }
  for (const h of HEAVY) out[h] = h === 'system_instructions' || h.endsWith('_messages') ? [] : null;
  if (req.include_details && r.raw_span_dump != null) {
    out.tool_call_arguments = r.tool_call_arguments;
    out.tool_call_result = r.tool_call_result;
    out.tool_definitions = r.tool_definitions;
    out.raw_span_dump = r.raw_span_dump;
    out.system_instructions = JSON.parse(r.system_instructions as string);
    out.input_messages = messages(r.input_messages as string);
    out.output_messages = messages(r.output_messages as string);
  }
  // Built field by field from the stored row; the contract's SpanRow is the shape (the contract
  // walk test checks every key).
  return out as SpanRowOut;
}

const messages = (json: string) =>
  (JSON.parse(json) as { role?: string; content?: string; finish_reason?: string }[]).map((m) => ({
    content: m.content ?? '',
    finish_reason: m.finish_reason ?? '',
    role: m.role ?? '',
  }));
