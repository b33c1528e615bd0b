/**
 * The grouping step of TraceStore.turnsSpans, shared by the adapters: one read returns every span of
 * many traces with the conversation each is credited to (domain/accounting.ts); a turn keeps the
 * spans of its trace credited to its conversation (§4.1), a bare trace (conversation null) all of them.
 */
import type { ChatSpan } from '../domain/chat/span.js';
import { turnFacts, type TurnFacts } from '../domain/evals/turn-facts.js';
import type { ConversationTurnIds, TurnRef } from './ports.js';

export function groupTurns<R>(turns: readonly TurnRef[], rows: Iterable<R>, of: (row: R) => { trace_id: string; conversation_id: string | null; span: ChatSpan }): ChatSpan[][] {
  const byTrace = new Map<string, { conversation_id: string | null; span: ChatSpan }[]>();
  for (const row of rows) {
    const r = of(row);
    const list = byTrace.get(r.trace_id);
    if (list) list.push(r);
    else byTrace.set(r.trace_id, [r]);
  }
  return turns.map((t) => {
    const all = byTrace.get(t.trace_id) ?? [];
    return t.conversation_id === null ? all.map((r) => r.span) : all.filter((r) => r.conversation_id === t.conversation_id).map((r) => r.span);
  });
}

/** Rows (conversation, trace) in turn order → ConversationTurnIds in the order the conversations were asked. */
export function turnIdsOf(conversationIds: readonly string[], rows: Iterable<{ conversation_id: string; trace_id: string }>): ConversationTurnIds[] {
  const by = new Map<string, string[]>();
  for (const r of rows) {
    const ids = by.get(r.conversation_id);
    if (ids) ids.push(r.trace_id);
    else by.set(r.conversation_id, [r.trace_id]);
  }
  return [...new Set(conversationIds)].filter((c) => by.has(c)).map((c) => ({ conversation_id: c, trace_ids: by.get(c)! }));
}

/** TraceStore.turnsFacts from turnsSpans' answer: each turn's facts, null for a ref with no span (deleted, unknown). */
export function factsOfTurns(turns: readonly TurnRef[], spans: readonly ChatSpan[][]): (TurnFacts | null)[] {
  return turns.map((t, i) => (spans[i]!.length ? turnFacts(spans[i]!, t.conversation_id) : null));
}
