/**
 * Turn assembly: header (§4.2) + messages (§4.3) + optional feedback, in the interface's shape.
 */
import type { FeedbackRecord } from '../../../shared/contract/common.js';
import type { Turn } from '../../../shared/contract/chat.js';
import { isoFromNs } from '../time.js';
import { turnHeader } from './header.js';
import { buildTree, type SpanTree } from './tree.js';
import { buildMessages } from './walk.js';
import type { ChatSpan } from './span.js';
import type { ChatMessage } from './messages.js';

export interface TurnFeedback {
  trace: FeedbackRecord[];
  bySpan: Map<string, FeedbackRecord[]>;
}

/** One Turn from the spans of a trace (already filtered to a conversation when built for one). */
export function buildTurn(traceId: string, spans: readonly ChatSpan[], feedback: TurnFeedback | null = null): Turn {
  const tree = buildTree(spans);
  return turnFromParts(traceId, spans, tree, buildMessages(spans, tree), feedback);
}

/** A Turn from its header rules and messages already built (the paged trace chat builds only a page of them). */
export function turnFromParts(traceId: string, spans: readonly ChatSpan[], tree: SpanTree<ChatSpan>, messages: ChatMessage[], feedback: TurnFeedback | null): Turn {
  const h = turnHeader(spans, tree);
  if (feedback) for (const m of messages) m.feedback = m.span_id == null ? [] : feedback.bySpan.get(m.span_id) ?? [];
  return {
    trace_id: traceId,
    root_span_name: h.root_span_name,
    agent_name: h.agent_name,
    agent_version: h.agent_version,
    status_code: h.status_code,
    provider: h.provider,
    started_at: h.start_ns == null ? null : isoFromNs(h.start_ns),
    ended_at: h.end_ns == null ? null : isoFromNs(h.end_ns),
    svc_user_id: h.svc_user_id,
    total_duration_ms: h.total_duration_ms,
    total_cost_usd: h.total_cost_usd,
    total_input_tokens: h.total_input_tokens,
    total_output_tokens: h.total_output_tokens,
    total_reasoning_tokens: h.total_reasoning_tokens,
    total_cache_creation_input_tokens: h.total_cache_creation_input_tokens,
    total_cache_read_input_tokens: h.total_cache_read_input_tokens,
    usage_known: h.usage_spans > 0,
    messages,
    feedback: feedback ? feedback.trace : null,
  };
}
