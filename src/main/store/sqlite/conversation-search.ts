/**
 * The conversations list's search through the full-text index (sqlite/fts.ts): which conversation
 * rows have a span whose texts contain the query, and the excerpt of the first such span.
 *
 * A span belongs to the rows of its trace's turns (conversation_turns) whose conversation it does not
 * contradict (untagged, or tagged with that conversation: semantics §4.1); a trace without any
 * conversation id is its own row (kind 'trace'). Up to MAX_TRACES matching traces are gathered from
 * the index (newest first) and the page is read among their rows, with an exact count. A query found
 * in more traces than that is common: the page is then found by walking the rows in the page's order
 * and checking each one's traces against the index, and the count is a lower bound (the rows of the
 * first MAX_TRACES traces and those walked).
 */
import type { Db } from './open.js';
import type { SearchReader, SpanMatch } from './fts.js';
import { CONVERSATIONS_OF_TRACE_SQL } from './summaries/traces.js';

/** Matching traces gathered before a query counts as common (see above). */
export const MAX_TRACES = 5_000;

export type Snippet = SpanMatch['snippet'];

const SQL = {
  turnsOfTrace: CONVERSATIONS_OF_TRACE_SQL,
  tracesOfConversation: `SELECT trace_id FROM conversation_turns WHERE project_id = ? AND conversation_id = ? ORDER BY turn_start_ns DESC`,
  rowId: `SELECT id FROM conversation_summaries WHERE project_id = ? AND conversation_id = ? AND kind = ?`,
} as const;

export interface ConversationMatches {
  /** conversation_summaries ids of the matching rows with their excerpts (all of them unless `partial`). */
  snippets: Map<number, Snippet>;
  /** True when the query is common and `snippets` holds only the rows of the first MAX_TRACES traces. */
  partial: boolean;
}

export function createConversationSearch(db: Db, reader: SearchReader, maxTraces = MAX_TRACES) {
  const turnsOfTrace = db.prepare(SQL.turnsOfTrace).pluck();
  const tracesOf = db.prepare(SQL.tracesOfConversation).pluck();
  const rowId = db.prepare(SQL.rowId).pluck();

  /** Adds the rows a trace's matching spans belong to. */
  const addRows = (projectId: string, traceId: string, spans: SpanMatch[], into: Map<number, Snippet>) => {
    const conversations = turnsOfTrace.all(projectId, traceId) as string[];
    const keys: [string, 'conversation' | 'trace', Snippet][] = [];
    if (!conversations.length) keys.push([traceId, 'trace', spans[0]!.snippet]);
    for (const c of conversations) {
      const s = spans.find((m) => m.conversation_id == null || m.conversation_id === c);
      if (s) keys.push([c, 'conversation', s.snippet]);
    }
    for (const [id, kind, snippet] of keys) {
      const row = rowId.get(projectId, id, kind) as number | undefined;
      if (row !== undefined && !into.has(row)) into.set(row, snippet);
    }
  };

  return {
    /** Rows matching the query (null when the query is too short for the index). */
    matches(projectId: string, needle: string): ConversationMatches | null {
      const snippets = new Map<number, Snippet>();
      let traces = 0;
      let partial = false;
      const indexed = reader.eachMatch(projectId, needle, (spans, traceId) => {
        addRows(projectId, traceId, spans, snippets);
        if (++traces < maxTraces) return true;
        partial = true;
        return false;
      });
      return indexed ? { snippets, partial } : null;
    },
    /** The excerpt of a row's first matching span (its turns newest first), or null: the walk's check. */
    rowSnippet(projectId: string, kind: 'conversation' | 'trace', conversationId: string, needle: string): Snippet | null {
      const traceIds = kind === 'trace' ? [conversationId] : (tracesOf.all(projectId, conversationId) as string[]);
      for (const traceId of traceIds) {
        const spans = reader.traceMatches(projectId, traceId, needle);
        const s = kind === 'trace' ? spans[0] : spans.find((m) => m.conversation_id == null || m.conversation_id === conversationId);
        if (s) return s.snippet;
      }
      return null;
    },
  };
}

export type ConversationSearch = ReturnType<typeof createConversationSearch>;
