import type { Db } from './open.js';
import type { ChatSpan } from '../../domain/chat/span.js';
import type { SpanMessage, StatusCode } from '../../domain/span.js';
import type { TurnPage } from '../ports.js';

/**
 * SQL of the chat views. Every statement is an indexed lookup: spans by (project_id, trace_id)
 * through the unique key, turns of a conversation through conversation_turns (migration 0002).
 * The SQL texts are exported so a test can pin their query plans (no full scan of spans).
 */
export const SQL = {
  traceSpans: `SELECT ${spanColumns()} FROM spans s JOIN span_details d ON d.span_rowid = s.id
    WHERE s.project_id = @project_id AND s.trace_id = @trace_id`,
  conversationTraceSpans: `SELECT ${spanColumns()} FROM spans s JOIN span_details d ON d.span_rowid = s.id
    WHERE s.project_id = @project_id AND s.trace_id = @trace_id
      AND (s.conversation_id IS NULL OR s.conversation_id = @conversation_id)`,
  countTurns: `SELECT COUNT(*) AS n FROM conversation_turns WHERE project_id = @project_id AND conversation_id = @conversation_id`,
  pageTurns: `SELECT trace_id FROM conversation_turns WHERE project_id = @project_id AND conversation_id = @conversation_id
    ORDER BY turn_start_ns DESC, trace_id DESC LIMIT @limit OFFSET @offset`,
  // Each turn's cost as the conversation view builds the turn (migration 0006): the same sum the conversations list shows.
  conversationCost: `SELECT SUM(cost_usd) AS cost FROM conversation_turns
    WHERE project_id = @project_id AND conversation_id = @conversation_id`,
} as const;

function spanColumns(): string {
  return `s.trace_id, s.span_id, s.parent_span_id, s.span_name, CAST(s.start_ns AS TEXT) AS start_ns, CAST(s.end_ns AS TEXT) AS end_ns,
    s.status_code, s.status_message, s.error_type, s.tool_call_id, s.operation_name, s.provider_name, s.agent_id, s.agent_name, s.agent_version, s.conversation_id,
    s.request_model, s.response_model, s.tool_name, s.reasoning_content, s.compaction_summary, s.compaction_items_before,
    s.compaction_items_after, s.svc_user_id, s.input_tokens, s.output_tokens, s.reasoning_tokens,
    s.cache_creation_input_tokens, s.cache_read_input_tokens, s.input_cost_usd, s.output_cost_usd, s.total_cost_usd,
    s.content_refs, d.system_instructions, d.tool_definitions, d.tool_call_arguments, d.tool_call_result,
    d.input_messages, d.output_messages`;
}

type Row = Omit<ChatSpan, 'start_ns' | 'end_ns' | 'content_refs' | 'system_instructions' | 'input_messages' | 'output_messages' | 'status_code'> & {
  start_ns: string | null; end_ns: string | null; status_code: string; content_refs: string;
  system_instructions: string; input_messages: string; output_messages: string;
};

const jsonArray = <T>(text: string | null): T[] => {
  if (!text) return [];
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? (v as T[]) : [];
  } catch {
    return [];
  }
};

/** A stored row → the ChatSpan the walk reads (nanoseconds back to bigint, JSON columns parsed). */
function toSpan(r: Row): ChatSpan {
  return {
    ...r,
    start_ns: r.start_ns == null ? null : BigInt(r.start_ns),
    end_ns: r.end_ns == null ? null : BigInt(r.end_ns),
    status_code: r.status_code as StatusCode,
    content_refs: jsonArray<string>(r.content_refs),
    system_instructions: jsonArray<string>(r.system_instructions).map(String),
    input_messages: jsonArray<SpanMessage>(r.input_messages),
    output_messages: jsonArray<SpanMessage>(r.output_messages),
  };
}

export interface ChatRepo {
  /** All spans of a trace (light + heavy fields the walk needs). */
  traceSpans(projectId: string, traceId: string): ChatSpan[];
  /** A page of a conversation's turns (newest first), its turn count and total cost. */
  conversationTurns(q: { project_id: string; conversation_id: string; limit: number; offset: number }): TurnPage;
  /** For each trace id, its spans that belong to the conversation's turn: untagged or tagged with it (§4.1). */
  conversationTurnSpans(projectId: string, conversationId: string, traceIds: readonly string[]): ChatSpan[][];
}

export function createChatRepo(db: Db): ChatRepo {
  const traceSpans = db.prepare<{ project_id: string; trace_id: string }, Row>(SQL.traceSpans);
  const convSpans = db.prepare<{ project_id: string; trace_id: string; conversation_id: string }, Row>(SQL.conversationTraceSpans);
  const countTurns = db.prepare<{ project_id: string; conversation_id: string }, { n: number }>(SQL.countTurns);
  const pageTurns = db.prepare<{ project_id: string; conversation_id: string; limit: number; offset: number }, { trace_id: string }>(SQL.pageTurns);
  const conversationCost = db.prepare<{ project_id: string; conversation_id: string }, { cost: number | null }>(SQL.conversationCost);
  return {
    traceSpans: (project_id, trace_id) => traceSpans.all({ project_id, trace_id }).map(toSpan),
    conversationTurns: ({ project_id, conversation_id, limit, offset }) => {
      const total = countTurns.get({ project_id, conversation_id })?.n ?? 0;
      const ids = limit > 0 && offset < total ? pageTurns.all({ project_id, conversation_id, limit, offset }).map((r) => r.trace_id) : [];
      return { trace_ids: ids, total_turns: total, total_cost_usd: conversationCost.get({ project_id, conversation_id })?.cost ?? null };
    },
    conversationTurnSpans: (project_id, conversation_id, traceIds) =>
      traceIds.map((trace_id) => convSpans.all({ project_id, trace_id, conversation_id }).map(toSpan)),
  };
}
