/**
 * The two chat views (semantics §4.1, §4.2): spans from the TraceStore, feedback from the AppStore,
 * turns built by the pure rules of domain/chat/. Unknown conversation or trace is not an error: an
 * empty view.
 */
import type { ConversationChat, Turn } from '../../../shared/contract/chat.js';
import type { ReadOptions } from '../../store/ports.js';
import type { ChatSpan } from '../../domain/chat/span.js';
import { buildTurn, type TurnFeedback } from '../../domain/chat/turn.js';
import type { ServiceContext } from '../context.js';

type Stores = Pick<ServiceContext, 'traces' | 'app'>;

async function feedbackOf(ctx: Stores, projectId: string, traceId: string, spans: readonly ChatSpan[]): Promise<TurnFeedback> {
  const [trace, bySpan] = await Promise.all([
    ctx.app.feedback.forTargets(projectId, 'trace', [traceId]),
    ctx.app.feedback.forTargets(projectId, 'span', spans.map((s) => s.span_id)),
  ]);
  return { trace: trace.get(traceId) ?? [], bySpan };
}

export async function traceChat(ctx: Stores, input: { project_id: string; trace_id: string; include_feedback: boolean }, opts?: ReadOptions): Promise<Turn> {
  const spans = await ctx.traces.traceSpans(input.project_id, input.trace_id, opts);
  return buildTurn(input.trace_id, spans, input.include_feedback ? await feedbackOf(ctx, input.project_id, input.trace_id, spans) : null);
}

export async function conversationChat(
  ctx: Stores,
  input: { project_id: string; conversation_id: string; include_feedback: boolean; limit: number; offset: number },
  opts?: ReadOptions,
): Promise<ConversationChat> {
  const { project_id, conversation_id, limit, offset } = input;
  const page = await ctx.traces.conversationTurns({ project_id, conversation_id, limit, offset }, opts);
  // Newest first for paging, then the page is shown oldest first.
  const ids = [...page.trace_ids].reverse();
  const spansOf = ids.length ? await ctx.traces.conversationTurnSpans(project_id, conversation_id, ids, opts) : [];
  // With feedback: one lookup per kind for the whole page, not two per turn.
  const fb = input.include_feedback
    ? await Promise.all([
        ctx.app.feedback.forTargets(project_id, 'trace', ids),
        ctx.app.feedback.forTargets(project_id, 'span', spansOf.flatMap((ss) => ss.map((x) => x.span_id))),
        ctx.app.feedback.forTargets(project_id, 'conversation', [conversation_id]),
      ])
    : null;
  const turns = ids.map((traceId, i) => buildTurn(traceId, spansOf[i]!, fb ? { trace: fb[0].get(traceId) ?? [], bySpan: fb[1] } : null));
  return {
    conversation_id,
    turns,
    total_turns: page.total_turns,
    has_more: turns.length > 0 && offset + turns.length < page.total_turns,
    limit,
    offset,
    total_cost_usd: page.total_cost_usd,
    feedback: fb ? (fb[2].get(conversation_id) ?? []) : null,
  };
}
