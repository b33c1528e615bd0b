/**
 * The read summaries of the ClickHouse adapter (migration 0002), computed from stored spans. Pure
 * functions: the writer (writer.ts) reads the light rows of every trace a batch touched back from
 * `spans FINAL`, passes them here, and inserts the rows returned with a version; ReplacingMergeTree
 * keeps the newest. The rules are the chat view's own (domain/chat/header.ts, the usage-bearing-leaf
 * rule), so a summary and a freshly built turn never disagree.
 *
 * Why the writer recomputes instead of materialized views: a view sees inserted blocks, not stored
 * rows, so a re-imported span would be counted twice, and the turn header and the leaf rule need the
 * whole trace's tree, which no single insert block holds.
 */
import { buildTree } from '../../domain/chat/tree.js';
import { spansOfConversation, turnHeader } from '../../domain/chat/header.js';
import type { HeaderSpan } from '../../domain/chat/span.js';
import { traceAgentStats, type AgentTraceStats } from '../sqlite/summaries/agent-stats.js';

/** A span as the summaries read it back (the narrow table's columns they need). */
export interface LightSpan extends HeaderSpan {
  day: string;
  operation_name: string | null;
  request_model: string | null;
  response_model: string | null;
  conversation_name: string | null;
  has_input: boolean;
  input_preview: string | null;
  has_output: boolean;
  output_preview: string | null;
}

export interface TraceSummaryRow {
  project_id: string;
  trace_id: string;
  first_day: string;
  last_day: string;
  root_span_id: string | null;
  root_span_name: string | null;
  agent_name: string | null;
  agent_version: string | null;
  provider_name: string | null;
  status_code: string | null;
  start_ns: bigint | null;
  end_ns: bigint | null;
  duration_ms: number | null;
  first_start_ns: bigint | null;
  last_start_ns: bigint | null;
  last_end_ns: bigint | null;
  span_count: number;
  error_count: number;
  svc_user_id: string | null;
  conversation_ids: string[];
  agent_names: string[];
  total_input_tokens: number;
  total_output_tokens: number;
  total_reasoning_tokens: number;
  total_cache_creation_input_tokens: number;
  total_cache_read_input_tokens: number;
  total_cost_usd: number | null;
}

export interface TurnRow {
  project_id: string;
  conversation_id: string;
  trace_id: string;
  turn_start_ns: bigint | null;
  root_span_id: string | null;
  root_start_ns: bigint | null;
  root_end_ns: bigint | null;
  duration_ms: number | null;
  status_code: string | null;
  conversation_name: string | null;
  span_count: number;
  error_count: number;
  agent_names: string[];
  request_models: string[];
  /** Request and response models (the conversations list filters on either). */
  models: string[];
  input_tokens: number;
  output_tokens: number;
  cost_usd: number | null;
  first_activity_ns: bigint | null;
  last_activity_ns: bigint | null;
  first_input_ns: bigint | null;
  first_input_span: string;
  first_input_text: string | null;
  last_output_ns: bigint | null;
  last_output_span: string;
  last_output_text: string | null;
}

export interface ConversationSummaryRow {
  project_id: string;
  conversation_id: string;
  conversation_name: string | null;
  first_message: string | null;
  last_message: string | null;
  turn_count: number;
  span_count: number;
  agent_names: string[];
  request_models: string[];
  models: string[];
  total_input_tokens: number;
  total_output_tokens: number;
  total_cost_usd: number | null;
  error_count: number;
  first_activity_ns: bigint | null;
  last_activity_ns: bigint | null;
}

export interface AgentStatsRow extends Omit<AgentTraceStats, 'duration_ns'> {
  project_id: string;
  trace_id: string;
  duration_ns: bigint;
}

const minN = (a: bigint | null, b: bigint | null) => (a == null ? b : b == null ? a : a < b ? a : b);
const maxN = (a: bigint | null, b: bigint | null) => (a == null ? b : b == null ? a : a > b ? a : b);
const sortedDistinct = (xs: (string | null)[]) => [...new Set(xs.filter((x): x is string => x != null && x !== ''))].sort();

/** Earlier by (time, id) with a missing time last; `later` flips both. */
function before(t: bigint | null, id: string, bt: bigint | null, bid: string, later = false): boolean {
  if (t !== bt) {
    if (t == null) return false;
    if (bt == null) return true;
    return later ? t > bt : t < bt;
  }
  return later ? id > bid : id < bid;
}

/** The turn of `conversationId` in a trace: what conversation_turns holds for it. */
function turnOf(projectId: string, traceId: string, conversationId: string, spans: LightSpan[], all: LightSpan[]): TurnRow {
  const h = turnHeader(spans, buildTree(spans));
  let turnStart: bigint | null = null;
  let named: LightSpan | null = null;
  let first: LightSpan | null = null;
  let last: LightSpan | null = null;
  let firstActivity: bigint | null = null;
  let lastActivity: bigint | null = null;
  let errors = 0;
  // Turn start and name come from the spans tagged with the conversation (§4.1): the earliest name wins.
  for (const s of all) {
    if (s.conversation_id !== conversationId) continue;
    turnStart = minN(turnStart, s.start_ns);
    if (s.conversation_name != null && (!named || before(s.start_ns, s.span_id, named.start_ns, named.span_id))) named = s;
  }
  for (const s of spans) {
    if (s.status_code === 'ERROR') errors++;
    firstActivity = minN(firstActivity, s.start_ns);
    lastActivity = maxN(lastActivity, maxN(s.end_ns, s.start_ns));
    if (s.has_input && (!first || before(s.start_ns, s.span_id, first.start_ns, first.span_id))) first = s;
    if (s.has_output && (!last || before(s.end_ns, s.span_id, last.end_ns, last.span_id, true))) last = s;
  }
  return {
    project_id: projectId,
    conversation_id: conversationId,
    trace_id: traceId,
    turn_start_ns: turnStart,
    root_span_id: h.root_span_id,
    root_start_ns: h.start_ns,
    root_end_ns: h.end_ns,
    duration_ms: h.total_duration_ms,
    status_code: h.status_code,
    conversation_name: named?.conversation_name ?? null,
    span_count: spans.length,
    error_count: errors,
    agent_names: sortedDistinct(spans.map((s) => s.agent_name)),
    request_models: sortedDistinct(spans.map((s) => s.request_model)),
    models: sortedDistinct(spans.flatMap((s) => [s.request_model, s.response_model])),
    input_tokens: h.total_input_tokens,
    output_tokens: h.total_output_tokens,
    cost_usd: h.total_cost_usd,
    first_activity_ns: firstActivity,
    last_activity_ns: lastActivity,
    first_input_ns: first?.start_ns ?? null,
    first_input_span: first?.span_id ?? '',
    first_input_text: first?.input_preview ?? null,
    last_output_ns: last?.end_ns ?? null,
    last_output_span: last?.span_id ?? '',
    last_output_text: last?.output_preview ?? null,
  };
}

export interface TraceSummaries {
  trace: TraceSummaryRow;
  turns: TurnRow[];
  agents: AgentStatsRow[];
}

/** Every summary row of one trace, from all its stored spans (none when it has none). */
export function summarizeTrace(projectId: string, traceId: string, spans: LightSpan[]): TraceSummaries | null {
  if (!spans.length) return null;
  const h = turnHeader(spans, buildTree(spans));
  let firstDay = spans[0]!.day;
  let lastDay = firstDay;
  let firstStart: bigint | null = null;
  let lastStart: bigint | null = null;
  let lastEnd: bigint | null = null;
  let errors = 0;
  const conversations = new Set<string>();
  for (const s of spans) {
    if (s.day < firstDay) firstDay = s.day;
    if (s.day > lastDay) lastDay = s.day;
    firstStart = minN(firstStart, s.start_ns);
    lastStart = maxN(lastStart, s.start_ns);
    lastEnd = maxN(lastEnd, s.end_ns);
    if (s.status_code === 'ERROR') errors++;
    if (s.conversation_id != null) conversations.add(s.conversation_id);
  }
  const convIds = [...conversations].sort();
  const agents = traceAgentStats(
    spans.map((s) => ({
      span_id: s.span_id, parent_span_id: s.parent_span_id, agent_name: s.agent_name, operation_name: s.operation_name,
      status_code: s.status_code, start_ns: s.start_ns, end_ns: s.end_ns,
      input_tokens: s.input_tokens == null ? null : BigInt(s.input_tokens), output_tokens: s.output_tokens == null ? null : BigInt(s.output_tokens),
      total_cost_usd: s.total_cost_usd,
    })),
  );
  return {
    trace: {
      project_id: projectId,
      trace_id: traceId,
      first_day: firstDay,
      last_day: lastDay,
      root_span_id: h.root_span_id,
      root_span_name: h.root_span_name,
      agent_name: h.agent_name,
      agent_version: h.agent_version,
      provider_name: h.provider,
      status_code: h.status_code,
      start_ns: h.start_ns,
      end_ns: h.end_ns,
      duration_ms: h.total_duration_ms,
      first_start_ns: firstStart,
      last_start_ns: lastStart,
      last_end_ns: lastEnd,
      span_count: spans.length,
      error_count: errors,
      svc_user_id: h.svc_user_id,
      conversation_ids: convIds,
      agent_names: agents.map((a) => a.agent_name).sort(),
      total_input_tokens: h.total_input_tokens,
      total_output_tokens: h.total_output_tokens,
      total_reasoning_tokens: h.total_reasoning_tokens,
      total_cache_creation_input_tokens: h.total_cache_creation_input_tokens,
      total_cache_read_input_tokens: h.total_cache_read_input_tokens,
      total_cost_usd: h.total_cost_usd,
    },
    // One conversation: the turn is the whole trace; mixed traces filter out the other conversations' spans.
    turns: convIds.map((c) => turnOf(projectId, traceId, c, convIds.length === 1 ? spans : spansOfConversation(spans, c), spans)),
    agents: agents.map((a) => ({ ...a, project_id: projectId, trace_id: traceId })),
  };
}

/** A conversation's summary row from all its (current) turns; null when it has none left. */
export function summarizeConversation(projectId: string, conversationId: string, turns: TurnRow[]): ConversationSummaryRow | null {
  if (!turns.length) return null;
  let first: TurnRow | null = null;
  let last: TurnRow | null = null;
  let named: TurnRow | null = null;
  let firstActivity: bigint | null = null;
  let lastActivity: bigint | null = null;
  let spans = 0;
  let errors = 0;
  let input = 0;
  let output = 0;
  let cost: number | null = null;
  for (const t of turns) {
    spans += t.span_count;
    errors += t.error_count;
    input += t.input_tokens;
    output += t.output_tokens;
    if (t.cost_usd != null) cost = (cost ?? 0) + t.cost_usd;
    firstActivity = minN(firstActivity, t.first_activity_ns);
    lastActivity = maxN(lastActivity, t.last_activity_ns);
    if (t.first_input_span && (!first || before(t.first_input_ns, t.first_input_span, first.first_input_ns, first.first_input_span))) first = t;
    if (t.last_output_span && (!last || before(t.last_output_ns, t.last_output_span, last.last_output_ns, last.last_output_span, true))) last = t;
    if (t.conversation_name != null && (!named || before(t.turn_start_ns, t.trace_id, named.turn_start_ns, named.trace_id))) named = t;
  }
  return {
    project_id: projectId,
    conversation_id: conversationId,
    conversation_name: named?.conversation_name ?? null,
    first_message: first?.first_input_text ?? null,
    last_message: last?.last_output_text ?? null,
    turn_count: turns.length,
    span_count: spans,
    agent_names: sortedDistinct(turns.flatMap((t) => t.agent_names)),
    request_models: sortedDistinct(turns.flatMap((t) => t.request_models)),
    models: sortedDistinct(turns.flatMap((t) => t.models)),
    total_input_tokens: input,
    total_output_tokens: output,
    total_cost_usd: cost,
    error_count: errors,
    first_activity_ns: firstActivity,
    last_activity_ns: lastActivity,
  };
}
