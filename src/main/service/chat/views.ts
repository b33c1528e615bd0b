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
import type { OpOutput } from '../../../shared/contract/index.js';

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

/**
 * One page of a trace's chat (extension 'chat.tracePage', decision 0011). The store walks the trace
 * where it reads it (domain/chat/page.ts; the SQLite adapter over lazily loaded spans in a read
 * worker, so the first page of a 20,000-span trace reads a handful of heavy rows); feedback comes from
 * the AppStore for the page's spans only.
 */
export async function traceChatPage(
  ctx: Stores,
  input: { project_id: string; trace_id: string; include_feedback: boolean; offset: number; limit: number },
  opts?: ReadOptions,
): Promise<OpOutput<'chat.tracePage'>> {
  const page = await ctx.traces.traceChatPage(input.project_id, input.trace_id, { offset: input.offset, limit: input.limit }, opts);
  let turnFeedback = null;
  if (input.include_feedback) {
    const ids = [...new Set(page.messages.flatMap((m) => (m.span_id ? [m.span_id] : [])))];
    const [trace, bySpan] = await Promise.all([
      ctx.app.feedback.forTargets(input.project_id, 'trace', [input.trace_id]),
      ctx.app.feedback.forTargets(input.project_id, 'span', ids),
    ]);
    for (const m of page.messages) m.feedback = m.span_id == null ? [] : bySpan.get(m.span_id) ?? [];
    turnFeedback = trace.get(input.trace_id) ?? [];
  }
  return { turn: { ...page.turn, feedback: turnFeedback }, messages: page.messages, offset: input.offset, has_more: page.has_more, total_messages: page.total_messages };
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
    totals: page.totals,
    title: page.title,
    feedback: fb ? (fb[2].get(conversation_id) ?? []) : null,
  };
}
