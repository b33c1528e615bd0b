/**
 * The conversation's title: the conversation name its spans carry, else its first user message — one
 * group row of 'spans.query' over the conversation's spans (the spans credited to it, indexed by
 * conversation id). The header's totals come with the chat (chat.conversation `totals`).
 */
import { useOp } from '../../api/query';
import { conversationTitle } from '../../../../shared/titles';

export interface ConversationSummary {
  title: string | null;
  first_seen: string | null;
  last_seen: string | null;
  total_input_tokens: number;
  total_output_tokens: number;
  error_count: number;
  span_count: number;
}

export function useConversationSummary(project: string, conversationId: string): ConversationSummary | null {
  const q = useOp('spans.query', {
    project_id: project,
    group_by: [{ key: 'conversation_id', source: 'field' }],
    query: { $expr: { $eq: [{ $getField: 'conversation_id' }, { $literal: conversationId }] } },
    limit: 1,
  });
  const g = q.data?.groups[0];
  if (!g) return null;
  const firstText = g.first_message?.text?.trim() || null;
  return {
    // Its name, else its first user message unless that is a JSON document, else its agent (shared/titles.ts).
    title: conversationTitle({ name: g.conversation_names[0], firstMessage: firstText, agents: g.agent_names, id: conversationId }),
    first_seen: g.first_seen,
    last_seen: g.last_seen,
    total_input_tokens: g.total_input_tokens,
    total_output_tokens: g.total_output_tokens,
    error_count: g.error_count,
    span_count: g.span_count,
  };
}
