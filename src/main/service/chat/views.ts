/**
 * The two chat views over the store (semantics §4.1, §4.2). Unknown conversation or trace is not an
 * error: an empty view.
 */
import type { ConversationChat, Turn } from '../../../shared/contract/chat.js';
import type { Store } from '../../store/index.js';
import type { AppStore } from '../../store/ports.js';
import type { ChatSpan } from '../../domain/chat/span.js';
import { buildTurn, type TurnFeedback } from '../../domain/chat/turn.js';

async function feedbackOf(app: AppStore, projectId: string, traceId: string, spans: readonly ChatSpan[]): Promise<TurnFeedback> {
  return {
    trace: (await app.feedback.forTargets(projectId, 'trace', [traceId])).get(traceId) ?? [],
    bySpan: await app.feedback.forTargets(projectId, 'span', spans.map((s) => s.span_id)),
  };
}

export async function traceChat(store: Store, app: AppStore, input: { project_id: string; trace_id: string; include_feedback: boolean }): Promise<Turn> {
  const spans = store.chat.traceSpans(input.project_id, input.trace_id);
  return buildTurn(input.trace_id, spans, input.include_feedback ? await feedbackOf(app, input.project_id, input.trace_id, spans) : null);
}

export async function conversationChat(
  store: Store,
  app: AppStore,
  input: { project_id: string; conversation_id: string; include_feedback: boolean; limit: number; offset: number },
): Promise<ConversationChat> {
  const { project_id, conversation_id, limit, offset } = input;
  const total = store.chat.countTurns(project_id, conversation_id);
  // Newest first for paging, then the page is shown oldest first.
  const ids = limit > 0 && offset < total ? store.chat.pageTurns(project_id, conversation_id, limit, offset).reverse() : [];
  const spansOf = ids.map((traceId) => store.chat.conversationTraceSpans(project_id, conversation_id, traceId));
  // With feedback: two lookups for the whole page (traces, spans), not two per turn.
  const traceFb = input.include_feedback ? await app.feedback.forTargets(project_id, 'trace', ids) : null;
  const spanFb = input.include_feedback ? await app.feedback.forTargets(project_id, 'span', spansOf.flatMap((ss) => ss.map((x) => x.span_id))) : null;
  const turns = ids.map((traceId, i) =>
    buildTurn(traceId, spansOf[i]!, traceFb && spanFb ? { trace: traceFb.get(traceId) ?? [], bySpan: spanFb } : null),
  );
  return {
    conversation_id,
    turns,
    total_turns: total,
    has_more: turns.length > 0 && offset + turns.length < total,
    limit,
    offset,
    total_cost_usd: store.chat.conversationCost(project_id, conversation_id),
    feedback: input.include_feedback
      ? (await app.feedback.forTargets(project_id, 'conversation', [conversation_id])).get(conversation_id) ?? []
      : null,
  };
}
