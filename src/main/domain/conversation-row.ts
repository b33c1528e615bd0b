/**
 * A conversations-list row from a stored conversation summary, for every adapter: the contract's
 * shape, the previews as messages, and — when a search found the row by what the list shows of it
 * rather than by a span's text — the excerpt from the first of its own texts that holds the query.
 */
import type { ConversationRow } from './plans.js';
import { isoFromNs } from './time.js';
import { snippetOf } from './search-text.js';
import type { ConversationTotals } from './summaries/turns.js';
import { pickRoot } from './chat/header.js';
import { durationMs } from './chat/span.js';
import { listRowTitle } from '../../shared/titles.js';

/** A stored conversation summary, as each adapter reads it back. */
export interface ConversationSummary extends ConversationTotals {
  kind: 'conversation' | 'trace';
  conversation_id: string;
  first_text: string | null;
  last_text: string | null;
}

type Snippet = ConversationRow['snippet'];

/**
 * Whether a conversation's row owns a span of one of its traces (semantics §4.1): the span is untagged or tagged
 * with that conversation — a span tagged with another conversation belongs to that one's row.
 */
export const ownsSpan = (span: { conversation_id: string | null }, conversation: string): boolean =>
  span.conversation_id == null || span.conversation_id === conversation;

/** The excerpt of the first of the row's own texts (previews, name, id, agents, models) that holds `search`. */
export function summarySnippet(r: ConversationSummary, search: string): Snippet {
  for (const text of [r.first_text, r.last_text, r.conversation_name, r.conversation_id, r.agent_names.join(', '), r.request_models.join(', ')]) {
    const s = text ? snippetOf(text, search) : null;
    if (s) return s;
  }
  return null;
}

export type TraceRoot = NonNullable<ConversationRow['trace_root']>;

/** A span as the root of a listed trace is chosen from. */
export interface RootCandidate {
  span_id: string;
  parent_span_id: string | null;
  span_name: string;
  service_name: string | null;
  start_ns: bigint | null;
  end_ns: bigint | null;
}

/** A trace listed on its own: its root span (the chat header's rule) as "service: operation" and its duration. */
export function traceRoot(spans: readonly RootCandidate[]): TraceRoot | null {
  const root = pickRoot(spans);
  return root ? { service_name: root.service_name, span_name: root.span_name, duration_ms: durationMs(root.start_ns, root.end_ns) } : null;
}

/** The title a stored conversation row is listed under (the list's `title`, chat.conversation's `title`). */
export function rowTitle(r: Pick<ConversationSummary, 'kind' | 'conversation_id' | 'conversation_name' | 'first_text' | 'agent_names'>, root: TraceRoot | null = null): string {
  const first_message = r.first_text == null ? null : { text: r.first_text };
  return listRowTitle({ kind: r.kind, conversation_id: r.conversation_id, conversation_name: r.conversation_name, first_message, agent_names: r.agent_names, trace_root: r.kind === 'trace' ? root : null });
}

export function conversationRow(r: ConversationSummary, snippet: Snippet, root: TraceRoot | null = null): ConversationRow {
  const first_message = r.first_text == null ? null : { role: 'user_message' as const, text: r.first_text };
  const trace_root = r.kind === 'trace' ? root : null;
  return {
    kind: r.kind,
    conversation_id: r.conversation_id,
    conversation_name: r.conversation_name,
    // The page's title, computed here once for both stores (the page and MCP read it from the row).
    title: rowTitle(r, trace_root),
    first_message,
    last_message: r.last_text == null ? null : { role: 'assistant_message', text: r.last_text },
    turn_count: r.turn_count,
    span_count: r.span_count,
    agent_names: r.agent_names,
    request_models: r.request_models,
    total_input_tokens: r.input_tokens,
    total_output_tokens: r.output_tokens,
    usage_known: r.usage_spans > 0,
    total_cost_usd: r.cost_usd,
    error_count: r.error_count,
    first_activity: r.first_ns == null ? null : isoFromNs(r.first_ns),
    last_activity: r.last_ns == null ? null : isoFromNs(r.last_ns),
    snippet,
    trace_root,
  };
}
