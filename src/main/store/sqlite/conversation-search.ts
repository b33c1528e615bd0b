/**
 * The conversations list's search through the full-text index (sqlite/fts.ts): which conversation
 * rows have a span whose texts contain the query, and the excerpt of the first such span.
 *
 * A span belongs to the rows of its trace's turns (conversation_turns) whose conversation it does not
 * contradict (untagged, or tagged with that conversation: semantics §4.1); a trace without any
 * conversation id is its own row (kind 'trace').
 *
 * Whether a query is common is decided before any span is read: the index's candidate documents are
 * counted up to GATHER_DOCS (a count of the FTS5 doclists' AND, no span read). A rare query's
 * candidate traces are then checked (newest first; a trace whose rows already matched is skipped) and
 * the page is read among their rows, with an exact count. A common query is answered by walking the
 * rows in the page's order (newest first by default), checking each row's traces newest first, until
 * the page is full: its cost follows the page, not the store (issue 19: 3.3 s at 1M spans when the
 * first 5,000 matching traces were gathered first), and its count is a lower bound (the rows walked
 * that matched).
 */
import type { Db } from './open.js';
import type { SearchReader, SpanMatch } from './fts.js';
import { CONVERSATIONS_OF_TRACE_SQL } from './summaries/traces.js';

/**
 * Candidate documents (up to four traces of a conversation each) beyond which a query is common and
 * walked. Gathering checks up to this many documents' traces; the walk checks about a page of rows.
 */
export const GATHER_DOCS = 1_000;

export type Snippet = SpanMatch['snippet'];

const SQL = {
  turnsOfTrace: CONVERSATIONS_OF_TRACE_SQL,
  tracesOfConversation: `SELECT trace_id FROM conversation_turns WHERE project_id = ? AND conversation_id = ? ORDER BY turn_start_ns DESC`,
  rowId: `SELECT id FROM conversation_summaries WHERE project_id = ? AND conversation_id = ? AND kind = ?`,
} as const;

export interface ConversationMatches {
  /** conversation_summaries ids of the matching rows with their excerpts (all of them unless `partial`). */
  snippets: Map<number, Snippet>;
  /** True when the query is common: nothing was gathered, the caller walks the rows (`rowSnippet`). */
  partial: boolean;
}

export function createConversationSearch(db: Db, reader: SearchReader, gatherDocs = GATHER_DOCS) {
  const turnsOfTrace = db.prepare(SQL.turnsOfTrace).pluck();
  const tracesOf = db.prepare(SQL.tracesOfConversation).pluck();
  const rowId = db.prepare(SQL.rowId).pluck();

  /** The rows a trace's spans belong to: its conversations' rows, else its own. */
  const rowsOf = (projectId: string, traceId: string): { row: number; conversation: string | null }[] => {
    const conversations = turnsOfTrace.all(projectId, traceId) as string[];
    const keys: [string, 'conversation' | 'trace'][] = conversations.length ? conversations.map((c) => [c, 'conversation']) : [[traceId, 'trace']];
    const out: { row: number; conversation: string | null }[] = [];
    for (const [id, kind] of keys) {
      const row = rowId.get(projectId, id, kind) as number | undefined;
      if (row !== undefined) out.push({ row, conversation: kind === 'conversation' ? id : null });
    }
    return out;
  };

  return {
    /** Rows matching the query (null when the query is too short for the index). */
    matches(projectId: string, needle: string): ConversationMatches | null {
      const docs = reader.candidateCount(needle, gatherDocs);
      if (docs === null) return null;
      const snippets = new Map<number, Snippet>();
      if (docs > gatherDocs) return { snippets, partial: true };
      const rows = new Map<string, { row: number; conversation: string | null }[]>();
      // A trace is checked only when one of its rows has not matched yet (a conversation's later turns
      // repeat its history, so its newest trace usually answers for all of them).
      const wanted = (traceId: string) => {
        const mine = rowsOf(projectId, traceId);
        rows.set(traceId, mine);
        return mine.some((r) => !snippets.has(r.row));
      };
      reader.eachMatch(projectId, needle, (spans, traceId) => {
        for (const { row, conversation } of rows.get(traceId) ?? []) {
          if (snippets.has(row)) continue;
          const s = conversation === null ? spans[0] : spans.find((m) => m.conversation_id == null || m.conversation_id === conversation);
          if (s) snippets.set(row, s.snippet);
        }
        return true;
      }, wanted);
      return { snippets, partial: false };
    },
    /** The excerpt of a row's first matching span (its turns newest first), or null: the walk's check. */
    rowSnippet(projectId: string, kind: 'conversation' | 'trace', conversationId: string, needle: string): Snippet | null {
      const traceIds = kind === 'trace' ? [conversationId] : (tracesOf.all(projectId, conversationId) as string[]);
      // The first matching span the row owns (a span tagged with another conversation is not its own).
      const accept = kind === 'trace' ? () => true : (m: { conversation_id: string | null }) => m.conversation_id == null || m.conversation_id === conversationId;
      for (const traceId of traceIds) {
        const [s] = reader.traceMatches(projectId, traceId, needle, accept);
        if (s) return s.snippet;
      }
      return null;
    },
  };
}

export type ConversationSearch = ReturnType<typeof createConversationSearch>;
