/**
 * A conversation opened from a search hit (issue 22.9): which of its turns matched, so the page can
 * open at the match rather than at the newest turn. The server says which spans of the conversation
 * hold the term (`$search`: message text and attribute values, the same index the list's search
 * uses); their traces, oldest first, are the turns to load and step through. A server without
 * `$search` (422) answers no list: the page then marks what is loaded, as before.
 */
import { useQuery } from '@tanstack/react-query';
import { call } from '../../api/client';
import { ServiceError } from '../../../../shared/errors';

/** The conversation's turns (trace ids) holding `term`, oldest first; null while unknown or without a term. */
export function useMatchingTurns(project: string, conversationId: string, term: string): string[] | null {
  const t = term.trim();
  const q = useQuery({
    queryKey: ['conversation.matches', { project_id: project, conversation_id: conversationId, term: t }],
    enabled: t.length > 0,
    staleTime: 60_000,
    queryFn: async () => {
      try {
        const r = await call('spans.query', {
          project_id: project,
          query: { $expr: { $and: [{ $eq: [{ $getField: 'conversation_id' }, { $literal: conversationId }] }, { $search: t }] } },
          sort_by: [{ field: 'started_at', direction: 'asc' }],
          limit: 1000,
        });
        const ids: string[] = [];
        for (const s of r.spans as Array<{ trace_id?: string | null }>) if (s.trace_id && !ids.includes(s.trace_id)) ids.push(s.trace_id);
        return ids;
      } catch (e) {
        if (e instanceof ServiceError && e.status === 422) return [];
        throw e;
      }
    },
  });
  return t ? (q.data ?? null) : null;
}
