/**
 * The conversations list's search through the full-text index (sqlite/fts.ts): which conversation
 * rows have a span whose texts contain the query, and the excerpt of the first such span.
 *
 * A span belongs to the rows of its trace's turns (conversation_turns) whose conversation it does not
 * contradict (untagged, or tagged with that conversation: semantics §4.1); a trace without any
 * conversation id is its own row (kind 'trace').
 *
 * Whether a query is common is decided before any span is read: the index's candidate documents are
 * counted up to a bound (a count of the FTS5 doclists' AND, no span read; gatherBound). A rare query's
 * candidate traces are then checked (newest first; a trace whose rows already matched is skipped) and
 * the page is read among their rows, with an exact count. A common query is answered by walking the
 * rows in the page's order (newest first by default), checking each row's traces newest first, until
 * the page is full: its cost follows the page, not the store (issue 19: 3.3 s at 1M spans when the
 * first 5,000 matching traces were gathered first), and its count is a lower bound (the rows walked
 * that matched). The walk's cost follows the page only when matches are dense, so the bound grows
 * with the rows the walk would have to pass (gatherBound).
 */
import type { Db } from './open.js';
import type { SearchReader, SpanMatch } from './fts.js';
import { GATHER_DOCS, gatherBound as weighedBound } from '../../domain/gather-bound.js';
import { ownsSpan } from '../../domain/conversation-row.js';

/**
 * Measured at 10M spans (500,210 rows; docs/store.md "The 10M list-search cliff"): the walk passes a row
 * that does not match in ~3.3 ms of CPU (each of its ~5 traces asks the index whether it is a
 * candidate), the gather checks a candidate document's traces in ~1.05 ms; `A-1187`'s 1,022 candidate
 * documents named 277 matching rows (~4 documents per matching row: a conversation's later turns
 * repeat the needle in their history).
 */
const WALK_ROW_PER_GATHER_DOC = 3;
const DOCS_PER_MATCHING_ROW = 4;

/**
 * The candidate documents beyond which a query is walked rather than gathered (domain/gather-bound.ts,
 * weighed by this adapter's costs): 1,000 up to ~400 rows for a 200-row page, 34,700 at 10M spans. A
 * fixed bound (1,000) made `A-1187` at 10M spans (1,022 documents, ~200 matching rows of 500,210) walk
 * nearly every row — over 3 minutes instead of ~1 s. Never below `floor` (tests lower it).
 */
export function gatherBound(rows: number, need: number, floor = GATHER_DOCS): number {
  return weighedBound(rows, need, DOCS_PER_MATCHING_ROW * WALK_ROW_PER_GATHER_DOC, floor);
}

export type Snippet = SpanMatch['snippet'];


const SQL = {
  tracesOfConversation: `SELECT trace_id FROM conversation_turns WHERE project_id = ? AND conversation_id = ? ORDER BY turn_start_ns DESC`,
  rowId: `SELECT id FROM conversation_summaries WHERE project_id = ? AND conversation_id = ? AND kind = ?`,
} as const;

export interface ConversationMatches {
  /** conversation_summaries ids of the matching rows with their excerpts (all of them unless `partial`). */
  snippets: Map<number, Snippet>;
  /** True when the query is common: nothing was gathered, the caller walks the rows (`rowSnippet`). */
  partial: boolean;
}

/** `bound`: candidate documents beyond which a query is walked, for the project's rows and the rows a page needs. */
export function createConversationSearch(db: Db, reader: SearchReader, bound: (rows: number, need: number) => number = gatherBound) {
  const tracesOf = db.prepare(SQL.tracesOfConversation).pluck();
  const rowId = db.prepare(SQL.rowId).pluck();

  /**
   * The rows a trace's spans belong to: its conversations' rows (`conversations`: the trace's, from
   * trace_summaries as the reader gives them; `known` keeps each conversation's row for one read), else its own.
   */
  const rowsOf = (projectId: string, traceId: string, conversations: readonly string[], known: Map<string, number | undefined>) => {
    const out: { row: number; conversation: string | null }[] = [];
    if (!conversations.length) {
      const row = rowId.get(projectId, traceId, 'trace') as number | undefined;
      if (row !== undefined) out.push({ row, conversation: null });
      return out;
    }
    for (const c of conversations) {
      let row = known.get(c);
      if (row === undefined && !known.has(c)) {
        row = rowId.get(projectId, c, 'conversation') as number | undefined;
        known.set(c, row);
      }
      if (row !== undefined) out.push({ row, conversation: c });
    }
    return out;
  };

  return {
    /**
     * Rows matching the query (null when the query is too short for the index), or `partial` when the
     * caller should walk: `rows` list rows in the project, `need` matching rows for the page.
     */
    matches(projectId: string, needle: string, rows: number, need: number): ConversationMatches | null {
      const most = bound(rows, need);
      const docs = reader.candidateCount(needle, most);
      if (docs === null) return null;
      const snippets = new Map<number, Snippet>();
      if (docs > most) return { snippets, partial: true };
      const owners = new Map<string, { row: number; conversation: string | null }[]>();
      // A trace is checked only when one of its rows has not matched yet (a conversation's later turns
      // repeat its history, so its newest trace usually answers for all of them).
      // Its check ends as soon as each of those rows has its first matching span.
      const known = new Map<string, number | undefined>();
      const wanted = (traceId: string, conversations: readonly string[]) => {
        const mine = rowsOf(projectId, traceId, conversations, known);
        owners.set(traceId, mine);
        const open = mine.filter((r) => !snippets.has(r.row));
        if (!open.length) return false;
        return (found: readonly SpanMatch[]) => open.every(({ conversation }) => conversation === null || found.some((m) => ownsSpan(m, conversation)));
      };
      reader.eachMatch(projectId, needle, (spans, traceId) => {
        for (const { row, conversation } of owners.get(traceId) ?? []) {
          if (snippets.has(row)) continue;
          const s = conversation === null ? spans[0] : spans.find((m) => ownsSpan(m, conversation));
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
      const accept = kind === 'trace' ? () => true : (m: { conversation_id: string | null }) => ownsSpan(m, conversationId);
      for (const traceId of traceIds) {
        const [s] = reader.traceMatches(projectId, traceId, needle, accept);
        if (s) return s.snippet;
      }
      return null;
    },
  };
}

export type ConversationSearch = ReturnType<typeof createConversationSearch>;
