/**
 * Full-text search on SQLite (issue 8 item 4): an FTS5 trigram index (migration 0010) kept at
 * ingest and on deletes, and the reads that answer `$search`, `conversations.list`'s search and the
 * port's `search`.
 *
 * One document per (trace, write batch) holds the distinct searchable texts (domain/search-text.ts)
 * of the batch's spans of that trace: a trace's spans repeat their history (every chat span's input
 * carries the conversation so far), so a trace-wide document indexes each text once — measured on
 * the bench's spans, 171 index bytes per span against 334 for one document per span. The index has
 * no positions (detail=none), so a query is the AND of the needle's trigrams: it names candidate
 * traces, and the reader checks their spans' texts for the substring itself. A re-imported span adds
 * a document (the old one may name texts the span no longer has: the check drops those); deleting a
 * trace deletes its documents. Queries under 3 characters have no trigram: `$search` then tests the
 * texts of every span in scope (exact, a scan), the conversations list the texts its rows show.
 */
import type { Database as Db } from 'better-sqlite3';
import { SEARCHED_COLUMNS, firstMatch, searchTexts, snippetOf, type SearchSource } from '../../domain/search-text.js';
import type { SpanMessage } from '../../domain/span.js';

/** Shortest query the trigram index answers. */
export const MIN_INDEXED_CHARS = 3;
/** Trigrams of a long query looked up (spread over it): each one narrows little once a few match. */
const MAX_TRIGRAMS = 12;
/** Candidate documents read at first (a page of results rarely needs more), growing ×4 per read. */
const CANDIDATE_PAGE = 256;

/** The FTS5 query of a needle: the AND of its trigrams, each a quoted string. */
export function ftsQuery(needle: string): string | null {
  const chars = [...needle];
  if (chars.length < MIN_INDEXED_CHARS) return null;
  const all: string[] = [];
  for (let i = 0; i + MIN_INDEXED_CHARS <= chars.length; i++) all.push(chars.slice(i, i + MIN_INDEXED_CHARS).join(''));
  const picked =
    all.length <= MAX_TRIGRAMS ? all : Array.from({ length: MAX_TRIGRAMS }, (_, k) => all[Math.round((k * (all.length - 1)) / (MAX_TRIGRAMS - 1))]!);
  return [...new Set(picked)].map((t) => `"${t.replace(/"/g, '""')}"`).join(' AND ');
}

export const FTS_SQL = {
  addDoc: `INSERT INTO search_docs (project_id, trace_id) VALUES (?, ?)`,
  addText: `INSERT INTO search_text (rowid, text) VALUES (?, ?)`,
  traceDocs: `SELECT doc FROM search_docs WHERE project_id = ? AND trace_id = ?`,
  dropText: `DELETE FROM search_text WHERE rowid = ?`,
  dropDocs: `DELETE FROM search_docs WHERE project_id = ? AND trace_id = ?`,
  /** Candidate traces of a project, newest documents first (a trace may come more than once). */
  candidates: `SELECT f.rowid AS doc, sd.trace_id FROM search_text f JOIN search_docs sd ON sd.doc = f.rowid
    WHERE search_text MATCH ? AND f.rowid < ? AND sd.project_id = ? ORDER BY f.rowid DESC LIMIT ?`,
  /** Whether a trace has a candidate document (a seek per document of the trace). */
  traceIsCandidate: `SELECT 1 FROM search_docs sd WHERE sd.project_id = ? AND sd.trace_id = ?
    AND EXISTS (SELECT 1 FROM search_text f WHERE search_text MATCH ? AND f.rowid = sd.doc)`,
  /** The columns of a span the check reads (span_details joined for the heavy ones). */
  traceSpans: `SELECT s.id, s.span_id, s.conversation_id, s.start_ns, ${SEARCHED_COLUMNS.map((c) => `s.${c}`).join(', ')},
    s.custom_attrs_string, d.input_messages, d.output_messages, d.system_instructions, d.tool_call_arguments, d.tool_call_result
    FROM spans s JOIN span_details d ON d.span_rowid = s.id WHERE s.project_id = ? AND s.trace_id = ?
    ORDER BY s.start_ns IS NULL, s.start_ns, s.id`,
  allTraces: `SELECT DISTINCT project_id, trace_id FROM spans`,
  backfillNeeded: `SELECT 1 FROM summary_backfill WHERE name = 'search'`,
  backfillDone: `DELETE FROM summary_backfill WHERE name = 'search'`,
} as const;

/** A stored span as the check reads it (FTS_SQL.traceSpans). */
export interface StoredSearchRow extends Record<Exclude<(typeof SEARCHED_COLUMNS)[number], 'span_name'>, string | null> {
  span_name: string;
  id: number | bigint;
  span_id: string;
  conversation_id: string | null;
  start_ns: bigint | number | null;
  custom_attrs_string: string;
  input_messages: string;
  output_messages: string;
  system_instructions: string;
  tool_call_arguments: string | null;
  tool_call_result: string | null;
}

/** The searchable texts of a stored span. */
export function storedTexts(r: StoredSearchRow): string[] {
  const src: SearchSource = {
    ...r,
    input_messages: JSON.parse(r.input_messages) as SpanMessage[],
    output_messages: JSON.parse(r.output_messages) as SpanMessage[],
    system_instructions: JSON.parse(r.system_instructions) as unknown[],
    custom_attrs_string: JSON.parse(r.custom_attrs_string) as Record<string, string>,
  };
  return searchTexts(src);
}

/** A span whose texts contain the needle, with the excerpt around the first match. */
export interface SpanMatch {
  id: number;
  trace_id: string;
  span_id: string;
  conversation_id: string | null;
  snippet: { text: string; matches: [number, number][] };
}

export interface SearchIndex {
  /** Inside the write transaction: one document per (project, trace) of the batch, from its spans' texts. */
  add(spans: { project_id: string; trace_id: string; texts: readonly string[] }[]): void;
  /** Inside the delete transaction, before the traces' spans go: their documents. */
  drop(traces: readonly { project_id: string; trace_id: string }[]): void;
}

export function createSearchIndex(db: Db): SearchIndex {
  const addDoc = db.prepare(FTS_SQL.addDoc);
  const addText = db.prepare(FTS_SQL.addText);
  const traceDocs = db.prepare(FTS_SQL.traceDocs).pluck();
  const dropText = db.prepare(FTS_SQL.dropText);
  const dropDocs = db.prepare(FTS_SQL.dropDocs);
  const index: SearchIndex = {
    add(spans) {
      const byTrace = new Map<string, { project_id: string; trace_id: string; texts: Set<string> }>();
      for (const s of spans) {
        const key = `${s.project_id}\u0000${s.trace_id}`;
        let t = byTrace.get(key);
        if (!t) byTrace.set(key, (t = { project_id: s.project_id, trace_id: s.trace_id, texts: new Set() }));
        for (const x of s.texts) t.texts.add(x);
      }
      for (const t of byTrace.values()) {
        if (!t.texts.size) continue;
        const doc = addDoc.run(t.project_id, t.trace_id).lastInsertRowid;
        addText.run(doc, [...t.texts].join('\n'));
      }
    },
    drop(traces) {
      for (const t of traces) {
        for (const doc of traceDocs.all(t.project_id, t.trace_id)) dropText.run(doc);
        dropDocs.run(t.project_id, t.trace_id);
      }
    },
  };
  // Spans stored before migration 0010 are indexed once, trace by trace, at the first open after it.
  if (!db.readonly && db.prepare(FTS_SQL.backfillNeeded).get()) {
    const read = db.prepare(FTS_SQL.traceSpans);
    db.transaction(() => {
      for (const t of db.prepare(FTS_SQL.allTraces).all() as { project_id: string; trace_id: string }[]) {
        const rows = read.all(t.project_id, t.trace_id) as StoredSearchRow[];
        index.add(rows.map((r) => ({ ...t, texts: storedTexts(r) })));
      }
      db.prepare(FTS_SQL.backfillDone).run();
    })();
  }
  return index;
}

/**
 * Reads of the index: the spans of candidate traces checked for the needle (trigram queries), or
 * nothing to go on (shorter queries: the caller decides how to scan).
 */
export interface SearchReader {
  /**
   * Matching spans of a project, newest candidate documents first, trace by trace. Stops when the
   * callback returns false. Returns false when the needle is too short for the index.
   */
  eachMatch(projectId: string, needle: string, visit: (spans: SpanMatch[], traceId: string) => boolean): boolean;
  /** The matching spans of one trace (empty when none, or when the index has no candidate for it). */
  traceMatches(projectId: string, traceId: string, needle: string): SpanMatch[];
}

export function createSearchReader(db: Db): SearchReader {
  const candidates = db.prepare<unknown[], { doc: bigint; trace_id: string }>(FTS_SQL.candidates).safeIntegers(true);
  const isCandidate = db.prepare(FTS_SQL.traceIsCandidate).pluck();
  const spansOf = db.prepare(FTS_SQL.traceSpans).safeIntegers(true);
  const check = (traceId: string, rows: StoredSearchRow[], needle: string): SpanMatch[] => {
    const out: SpanMatch[] = [];
    for (const r of rows) {
      const text = firstMatch(storedTexts(r), needle);
      if (text === null) continue;
      out.push({ id: Number(r.id), trace_id: traceId, span_id: r.span_id, conversation_id: r.conversation_id, snippet: snippetOf(text, needle)! });
    }
    return out;
  };
  return {
    eachMatch(projectId, needle, visit) {
      const q = ftsQuery(needle);
      if (q === null) return false;
      const seen = new Set<string>();
      // Pages of candidates (not one open iterator: the check reads spans on the same connection).
      let before = 2n ** 63n - 1n;
      for (let page = CANDIDATE_PAGE; ; page = Math.min(page * 4, 16_384)) {
        const docs = candidates.all(q, before, projectId, page);
        for (const { doc, trace_id: traceId } of docs) {
          before = doc;
          if (seen.has(traceId)) continue;
          seen.add(traceId);
          const found = check(traceId, spansOf.all(projectId, traceId) as StoredSearchRow[], needle);
          if (found.length && !visit(found, traceId)) return true;
        }
        if (docs.length < page) return true;
      }
    },
    traceMatches(projectId, traceId, needle) {
      const q = ftsQuery(needle);
      if (q !== null && !isCandidate.get(projectId, traceId, q)) return [];
      return check(traceId, spansOf.all(projectId, traceId) as StoredSearchRow[], needle);
    },
  };
}

// ---------------------------------------------------------------- `$search` in SQL (the analytics compiler's)

/** Name of the SQL function that checks a span's texts (registered on every connection by registerSearchFunctions). */
export const MATCH_FUNCTION = 'loupe_search_match';

/** Arguments of MATCH_FUNCTION after the needle, in this order (spans `s`, span_details `d`). */
const MATCH_ARGS = [
  ...SEARCHED_COLUMNS.map((c) => `s.${c}`), 's.custom_attrs_string',
  'd.input_messages', 'd.output_messages', 'd.system_instructions', 'd.tool_call_arguments', 'd.tool_call_result',
];
const MATCH_KEYS = [...SEARCHED_COLUMNS, 'custom_attrs_string', 'input_messages', 'output_messages', 'system_instructions', 'tool_call_arguments', 'tool_call_result'] as const;

/** Registers MATCH_FUNCTION on a connection: 1 when the span's searchable texts hold the needle. */
export function registerSearchFunctions(db: Db): void {
  db.function(MATCH_FUNCTION, { deterministic: true, varargs: true }, (needle: unknown, ...cols: unknown[]) => {
    const row = Object.fromEntries(MATCH_KEYS.map((k, i) => [k, cols[i] ?? null])) as unknown as StoredSearchRow;
    return firstMatch(storedTexts(row), String(needle)) === null ? 0 : 1;
  });
}

/**
 * `$search` over `spans s` as SQL: the span's trace has a candidate document in the index (3+
 * characters), and the span's own texts hold the needle (MATCH_FUNCTION over its details row).
 */
export function searchSql(needle: string): { sql: string; params: unknown[] } {
  const check = `EXISTS (SELECT 1 FROM span_details d WHERE d.span_rowid = s.id AND ${MATCH_FUNCTION}(?, ${MATCH_ARGS.join(', ')}))`;
  const q = ftsQuery(needle);
  if (q === null) return { sql: `(${check})`, params: [needle] };
  return {
    sql: `(EXISTS (SELECT 1 FROM search_docs sd WHERE sd.project_id = s.project_id AND sd.trace_id = s.trace_id
      AND sd.doc IN (SELECT rowid FROM search_text WHERE search_text MATCH ?)) AND ${check})`,
    params: [q, needle],
  };
}
