/**
 * Header fields of a turn (§4.2), as pure functions over light span rows. Used both by the chat
 * views and by the ingest-time trace summaries, so the two can never disagree.
 */
import { buildTree, usageTotals, type SpanTree } from './tree.js';
import type { HeaderSpan } from './span.js';
import { wallTime } from '../accounting.js';

/**
 * The root: the unique span without a parent; if there are none or several, the span with the latest
 * end (a missing end counts as earliest; tie: larger span_id).
 */
export function pickRoot<S extends Pick<HeaderSpan, 'span_id' | 'parent_span_id' | 'end_ns'>>(spans: readonly S[]): S | null {
  if (spans.length === 0) return null;
  const parentless = spans.filter((s) => !s.parent_span_id);
  if (parentless.length === 1) return parentless[0]!;
  let best = spans[0]!;
  for (const s of spans) {
    const later =
      s.end_ns !== best.end_ns
        ? best.end_ns == null || (s.end_ns != null && s.end_ns > best.end_ns)
        : s.span_id > best.span_id;
    if (later) best = s;
  }
  return best;
}

export interface TurnHeader {
  root_span_id: string | null;
  root_span_name: string | null;
  agent_name: string | null;
  agent_version: string | null;
  status_code: HeaderSpan['status_code'] | null;
  provider: string | null;
  /** Wall time of the turn (issue 18): its first span's start and its last span's end. */
  start_ns: bigint | null;
  end_ns: bigint | null;
  svc_user_id: string | null;
  /** end_ns − start_ns: the turn's wall time, not a sum over spans (equal to the root's own when it encloses the rest). */
  total_duration_ms: number | null;
  total_cost_usd: number | null;
  total_input_tokens: number;
  total_output_tokens: number;
  total_reasoning_tokens: number;
  total_cache_creation_input_tokens: number;
  total_cache_read_input_tokens: number;
  /** Spans whose tokens counted: 0 = no span of the turn reported usage, the token totals are unknown. */
  usage_spans: number;
}

export const EMPTY_HEADER: TurnHeader = {
  root_span_id: null, root_span_name: null, agent_name: null, agent_version: null, status_code: null, provider: null,
  start_ns: null, end_ns: null, svc_user_id: null, total_duration_ms: null, total_cost_usd: null,
  total_input_tokens: 0, total_output_tokens: 0, total_reasoning_tokens: 0,
  total_cache_creation_input_tokens: 0, total_cache_read_input_tokens: 0, usage_spans: 0,
};

export function turnHeader<S extends HeaderSpan & { counted?: number }>(spans: readonly S[], tree: SpanTree<S> = buildTree(spans)): TurnHeader {
  const root = pickRoot(spans);
  if (!root) return { ...EMPTY_HEADER };
  const totals = usageTotals(spans, tree);
  const wall = wallTime(spans);
  let user: string | null = null;
  let userStart: bigint | null = null;
  for (const s of spans) {
    if (s.svc_user_id == null) continue;
    // "First non-null in the trace" = in start order; a span without a start comes last.
    if (user == null || (s.start_ns != null && (userStart == null || s.start_ns < userStart))) {
      user = s.svc_user_id;
      userStart = s.start_ns;
    }
  }
  return {
    root_span_id: root.span_id,
    root_span_name: root.agent_name ?? root.span_name,
    agent_name: root.agent_name,
    agent_version: root.agent_version,
    status_code: root.status_code,
    provider: root.provider_name,
    start_ns: wall.start_ns,
    end_ns: wall.end_ns,
    svc_user_id: user,
    total_duration_ms: wall.duration_ms,
    total_cost_usd: totals.cost_usd,
    total_input_tokens: totals.input_tokens,
    total_output_tokens: totals.output_tokens,
    total_reasoning_tokens: totals.reasoning_tokens,
    total_cache_creation_input_tokens: totals.cache_creation_input_tokens,
    total_cache_read_input_tokens: totals.cache_read_input_tokens,
    usage_spans: totals.usage_spans,
  };
}

/**
 * Spans of a trace that make a conversation's turn: those credited to it (domain/accounting.ts; the
 * stored `conversation_id` column holds the credited value). In a trace of one conversation that is
 * every span; in a trace of several, each span is in exactly one turn, so the turns add up to the trace.
 */
export function spansOfConversation<S extends Pick<HeaderSpan, 'conversation_id'>>(spans: readonly S[], conversationId: string): S[] {
  return spans.filter((s) => s.conversation_id === conversationId);
}
