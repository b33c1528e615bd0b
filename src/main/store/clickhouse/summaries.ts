/**
 * The read summaries of the ClickHouse adapter (migration 0002), computed from stored spans. Pure
 * functions: the writer (writer.ts) reads the light rows of every trace a batch touched back from
 * `spans FINAL`, passes them here, and inserts the rows returned with a version; ReplacingMergeTree
 * keeps the newest. The rules are the ones the SQLite adapter applies (the chat view's turn header,
 * the one counting rule, a turn's contribution to its conversation, the conversation re-aggregated
 * from its turns — domain/summaries/, docs/store.md), so both adapters answer the same rows.
 *
 * Why the writer recomputes instead of materialized views: a view sees inserted blocks, not stored
 * rows, so a re-imported span would be counted twice, and the turn header and the counting rule need
 * the whole trace's tree, which no single insert block holds.
 */
import { buildTree, countedSpans, COUNTS_COST, COUNTS_USAGE } from '../../domain/chat/tree.js';
import { spansOfConversation, turnHeader } from '../../domain/chat/header.js';
import type { HeaderSpan } from '../../domain/chat/span.js';
import { CREDIT_BITS, creditSpans, ownValues } from '../../domain/accounting.js';
import type { ConversationSummary } from '../../domain/conversation-row.js';
import { traceAgentStats, type AgentTraceStats } from '../../domain/summaries/agent-stats.js';
import { HAS_INPUT, HAS_OUTPUT, aggregateTurns, conversationStarts, turnContribution, type StoredTurn, type TurnContribution } from '../../domain/summaries/turns.js';

/** A span as the summaries read it back (the narrow table's columns they need). */
export interface LightSpan extends HeaderSpan {
  day: string;
  operation_name: string | null;
  request_model: string | null;
  conversation_name: string | null;
  /** Stored counting bits (COUNTS_USAGE | COUNTS_COST). */
  counted: number;
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

/** A conversation_turns row: the turn's header fields and its contribution to the conversation. */
export interface TurnRow extends StoredTurn {
  project_id: string;
  conversation_id: string;
  root_span_id: string | null;
  root_start_ns: bigint | null;
  root_end_ns: bigint | null;
  duration_ms: number | null;
  status_code: string | null;
  agent_names: string[];
  request_models: string[];
  first_text: string | null;
  last_text: string | null;
}

/** A conversation_summaries row (kind 'trace': a trace without any conversation id, keyed by its id). */
export interface ConversationSummaryRow extends ConversationSummary {
  project_id: string;
}

export interface AgentStatsRow extends AgentTraceStats {
  project_id: string;
  trace_id: string;
}

export interface TraceSummaries {
  trace: TraceSummaryRow;
  turns: TurnRow[];
  /** The trace's own conversations-list row when no span carries a conversation id. */
  traceRow: ConversationSummaryRow | null;
  agents: AgentStatsRow[];
  /** Spans whose stored counting bits or credit are wrong (the trace grew or changed): span id → the right ones. */
  recount: Map<string, Recount>;
}

/** A span's stored counting and inheritance bits and credited agent / conversation (domain/accounting.ts). */
export interface Recount {
  bits: number;
  agent_name: string | null;
  conversation_id: string | null;
}

const minN = (a: bigint | null, b: bigint | null) => (a == null ? b : b == null ? a : a < b ? a : b);
const maxN = (a: bigint | null, b: bigint | null) => (a == null ? b : b == null ? a : a > b ? a : b);
const COUNT_BITS = COUNTS_USAGE | COUNTS_COST;

/** The span as turnContribution reads it: message facts in the counted bits, previews as its texts. */
const turnSpan = (s: LightSpan) => ({ ...s, counted: s.counted | (s.has_input ? HAS_INPUT : 0) | (s.has_output ? HAS_OUTPUT : 0) });
const previewText = (s: LightSpan, which: 'input' | 'output') => (which === 'input' ? s.input_preview : s.output_preview);

function contributionRow(c: TurnContribution) {
  return {
    span_count: c.span_count,
    error_count: c.error_count,
    input_tokens: c.input_tokens,
    output_tokens: c.output_tokens,
    usage_spans: c.usage_spans,
    cost_usd: c.cost_usd,
    last_ns: c.last_ns,
    conversation_name: c.conversation_name,
    agent_names: JSON.parse(c.agent_names) as string[],
    request_models: JSON.parse(c.request_models) as string[],
    first_input_ns: c.first_input_ns,
    first_text: c.first_text,
    last_output_ns: c.last_output_ns,
    last_text: c.last_text,
  };
}

/** Every summary row of one trace, from all its stored spans (null when it has none left). */
export function summarizeTrace(projectId: string, traceId: string, stored: LightSpan[]): TraceSummaries | null {
  if (!stored.length) return null;
  const tree = buildTree(stored);
  // The counting rule and the credit over the whole trace: the stored ones were set from one batch's view of it.
  const counts = countedSpans(stored, tree);
  const credit = creditSpans(stored.map((s) => ({ ...s, ...ownValues(s) })));
  const recount = new Map<string, Recount>();
  const spans = stored.map((s) => {
    const c = credit.get(s.span_id)!;
    const bits = (counts.get(s.span_id) ?? 0) | c.bits;
    if ((s.counted & (COUNT_BITS | CREDIT_BITS)) === bits && s.agent_name === c.agent && s.conversation_id === c.conversation) return s;
    recount.set(s.span_id, { bits, agent_name: c.agent, conversation_id: c.conversation });
    return { ...s, counted: bits, agent_name: c.agent, conversation_id: c.conversation };
  });
  const h = turnHeader(spans, buildTree(spans));
  let firstDay = spans[0]!.day;
  let lastDay = firstDay;
  let firstStart: bigint | null = null;
  let lastStart: bigint | null = null;
  let lastEnd: bigint | null = null;
  let errors = 0;
  for (const s of spans) {
    if (s.day < firstDay) firstDay = s.day;
    if (s.day > lastDay) lastDay = s.day;
    firstStart = minN(firstStart, s.start_ns);
    lastStart = maxN(lastStart, s.start_ns);
    lastEnd = maxN(lastEnd, s.end_ns);
    if (s.status_code === 'ERROR') errors++;
  }
  const convStart = conversationStarts(spans);
  const convIds = [...convStart.keys()].sort();
  const agents = traceAgentStats(
    spans.map((s) => ({
      span_id: s.span_id, parent_span_id: s.parent_span_id, agent_name: s.agent_name, operation_name: s.operation_name,
      status_code: s.status_code, start_ns: s.start_ns, end_ns: s.end_ns, counted: s.counted,
      input_tokens: s.input_tokens == null ? null : BigInt(s.input_tokens), output_tokens: s.output_tokens == null ? null : BigInt(s.output_tokens),
      total_cost_usd: s.total_cost_usd,
    })),
  );
  const turns = convIds.map((conv): TurnRow => {
    // With one conversation in the trace the turn is the whole trace; mixed traces drop the other conversations' spans.
    const turnSpans = convIds.length === 1 ? spans : spansOfConversation(spans, conv);
    const th = convIds.length === 1 ? h : turnHeader(turnSpans);
    return {
      project_id: projectId,
      conversation_id: conv,
      trace_id: traceId,
      turn_start_ns: convStart.get(conv) ?? null,
      root_span_id: th.root_span_id,
      root_start_ns: th.start_ns,
      root_end_ns: th.end_ns,
      duration_ms: th.total_duration_ms,
      status_code: th.status_code,
      ...contributionRow(turnContribution(turnSpans.map(turnSpan), th, (s, which) => previewText(s, which))),
    };
  });
  let traceRow: ConversationSummaryRow | null = null;
  if (!convIds.length) {
    const c = contributionRow(turnContribution(spans.map(turnSpan), h, (s, which) => previewText(s, which)));
    traceRow = {
      project_id: projectId, conversation_id: traceId, kind: 'trace', conversation_name: c.conversation_name, turn_count: 1,
      span_count: c.span_count, error_count: c.error_count, input_tokens: c.input_tokens, output_tokens: c.output_tokens,
      usage_spans: c.usage_spans, cost_usd: c.cost_usd, first_ns: firstStart, last_ns: c.last_ns, agent_names: c.agent_names, request_models: c.request_models,
      first_text: c.first_text, last_text: c.last_text,
    };
  }
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
    turns,
    traceRow,
    agents: agents.map((a) => ({ ...a, project_id: projectId, trace_id: traceId })),
    recount,
  };
}

/** What a conversation's row is computed from: each turn's contribution (kept by the writer in conversation_keys). */
export type TurnContributionRow = Pick<
  TurnRow,
  | 'trace_id' | 'turn_start_ns' | 'span_count' | 'error_count' | 'input_tokens' | 'output_tokens' | 'usage_spans' | 'cost_usd' | 'last_ns'
  | 'conversation_name' | 'agent_names' | 'request_models' | 'first_input_ns' | 'first_text' | 'last_output_ns' | 'last_text'
>;

/**
 * A conversation's row from its turn rows (given in trace id order), by the rule both adapters apply
 * (domain/summaries/turns.ts): the previews are those of the turns holding the earliest input and the
 * latest output.
 */
export function summarizeConversation(projectId: string, conversationId: string, turns: TurnContributionRow[]): ConversationSummaryRow | null {
  if (!turns.length) return null;
  const { totals, firstIn, lastOut } = aggregateTurns(turns);
  return {
    project_id: projectId, conversation_id: conversationId, kind: 'conversation', ...totals,
    first_text: firstIn?.first_text ?? null, last_text: lastOut?.last_text ?? null,
  };
}
