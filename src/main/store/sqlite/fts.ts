/**
 * Full-text search on SQLite (issue 8 item 4): an FTS5 trigram index (migration 0010) kept at
 * ingest and on deletes, and the reads that answer `$search`, `conversations.list`'s search and the
 * port's `search`.
 *
 * One document per up to TRACES_PER_DOCUMENT traces of a conversation in a write batch — per trace
 * for spans without a conversation id — holds the distinct searchable texts (domain/search-text.ts)
 * of those spans: spans repeat their history (every chat span's input carries the conversation so
 * far, every turn its system prompt), so a document over several turns indexes each text once.
 * Measured on the bench's 100k spans (index bytes per span / candidate traces of 'A-1187', 15 of
 * which match): per trace 105 / 15, 2 traces 67 / 34, 4 traces 42 / 70, a whole conversation 19 / 232
 * — a bigger document makes the AND of trigrams less selective, and every candidate trace is checked.
 * `search_doc_traces` names each document's traces by their first span rowid. The index has no
 * positions (detail=none), so a query is the AND of the needle's trigrams: it names candidate
 * documents, hence traces, and the reader checks their spans' texts for the substring itself. A
 * re-imported span adds a document (the old one may name texts the span no longer has: the check
 * drops those); deleting a trace unmaps it, and a document goes when its last trace does. Queries under 3 characters have no trigram: `$search` then tests the
 * texts of every span in scope (exact, a scan), the conversations list the texts its rows show.
 */
import type { Database as Db, Statement } from 'better-sqlite3';
import { SEARCHED_COLUMNS, firstMatch, messageTexts, searchTexts, snippetOf, type SearchSource } from '../../domain/search-text.js';
import type { SpanMessage } from '../../domain/span.js';
import { TERM_CHARS, TRACES_PER_DOCUMENT, needleTrigrams } from '../../domain/search-terms.js';
import { joinJsonArrays } from '../../domain/messages-attribute.js';
import { bodyFields } from './bodies.js';
import type { BodyField, SpanBody } from './body-codec.js';

/** Shortest query the trigram index answers. */
export const MIN_INDEXED_CHARS = TERM_CHARS;
/** Candidate documents read at first (a page of results rarely needs more), growing ×4 per read. */
const CANDIDATE_PAGE = 256;

/** The columns of a span's row the texts come from (the GenAI columns and the custom string attributes). */
const ROW_COLUMNS = [...SEARCHED_COLUMNS, 'custom_attrs_string'] as const;

/** The FTS5 query of a needle: the AND of its trigrams (domain/search-terms.ts), each a quoted string. */
export function ftsQuery(needle: string): string | null {
  const picked = needleTrigrams(needle);
  return picked && picked.map((t) => `"${t.replace(/"/g, '""')}"`).join(' AND ');
}

/** A trace's name in search_doc_traces: its first span's rowid (stable while the trace lives). */
const TRACE_ROWID = `SELECT MIN(id) FROM spans WHERE project_id = ? AND trace_id = ?`;

export const FTS_SQL = {
  // The FTS table's own document ids (docsize has one row per document, whatever maps it).
  lastDoc: `SELECT IFNULL(MAX(id), 0) FROM search_text_docsize`,
  traceRowid: TRACE_ROWID,
  mapDoc: `INSERT OR IGNORE INTO search_doc_traces (doc, trace_rowid) VALUES (?, ?)`,
  addText: `INSERT INTO search_text (rowid, text) VALUES (?, ?)`,
  traceDocs: `SELECT doc FROM search_doc_traces WHERE trace_rowid = ?`,
  unmapTrace: `DELETE FROM search_doc_traces WHERE trace_rowid = ?`,
  docMapped: `SELECT 1 FROM search_doc_traces WHERE doc = ? LIMIT 1`,
  dropText: `DELETE FROM search_text WHERE rowid = ?`,
  /** How many candidate documents there are, counting no further than a bound (is a query common?). */
  candidateCount: `SELECT COUNT(*) FROM (SELECT rowid FROM search_text WHERE search_text MATCH ? LIMIT ?)`,
  /** Candidate documents, newest first. */
  candidates: `SELECT rowid FROM search_text WHERE search_text MATCH ? AND rowid < ? ORDER BY rowid DESC LIMIT ?`,
  /**
   * The traces of a project a document holds, newest first (as documents are read), with their
   * conversation ids (trace_summaries, as summaries/traces.ts CONVERSATIONS_OF_TRACE_SQL reads them; NULL
   * when none): the conversations list's check needs each trace's rows, and asked apart per trace they
   * cost ~2× (27 against 16 ms of CPU for `A-1187`'s 3,298 traces at 10M, rows included).
   */
  docTraces: `SELECT s.trace_id, ts.conversation_ids FROM search_doc_traces sd JOIN spans s ON s.id = sd.trace_rowid
    LEFT JOIN trace_summaries ts ON ts.project_id = s.project_id AND ts.trace_id = s.trace_id
    WHERE sd.doc = ? AND s.project_id = ? ORDER BY sd.trace_rowid DESC`,
  /** The documents of a trace, then whether one is a candidate (a seek in each trigram's doclist). */
  docsOfTrace: `SELECT sd.doc FROM search_doc_traces sd WHERE sd.trace_rowid = (${TRACE_ROWID})`,
  // Its own statement: as a correlated EXISTS over the map the same MATCH cost ~10x (0.7 ms a trace
  // on 40k spans, growing with the index) although the plan showed the rowid constraint.
  docIsCandidate: `SELECT 1 FROM search_text WHERE search_text MATCH ? AND rowid = ?`,
  /** The columns of a span the check reads (span_details joined for the heavy ones). */
  traceSpans: `SELECT s.id, s.span_id, s.conversation_id, s.start_ns, ${SEARCHED_COLUMNS.map((c) => `s.${c}`).join(', ')},
    s.custom_attrs_string, d.input_messages, d.output_messages, d.system_instructions, d.tool_call_arguments, d.tool_call_result
    FROM spans s JOIN span_details d ON d.span_rowid = s.id WHERE s.project_id = ? AND s.trace_id = ?
    ORDER BY s.start_ns IS NULL, s.start_ns, s.id`,
  /**
   * The check's read of a trace, one array per span (CheckRow): the span's row columns the texts come
   * from as one string (a needle the raw test applies to holds no line break, so none matches across
   * two of them), and its stored body as it is — not the span_details view, which decodes every field
   * and rebuilds every continued input before a match is tested (900–1,000 ms of CPU for `A-1187`'s
   * 15k candidate spans at 10M against 95 ms without). The 21 columns read apart cost ~30 % more.
   */
  traceSpansLean: `SELECT s.id, s.span_id, s.conversation_id, concat_ws(char(10), ${ROW_COLUMNS.map((c) => `s.${c}`).join(', ')}),
    b.dict_id, b.body, b.input_base
    FROM spans s JOIN span_bodies b ON b.span_rowid = s.id WHERE s.project_id = ? AND s.trace_id = ?
    ORDER BY s.start_ns IS NULL, s.start_ns, s.id`,
  /** A span's row columns the texts come from (a span the raw test leaves open). */
  spanColumns: `SELECT ${ROW_COLUMNS.map((c) => `s.${c}`).join(', ')} FROM spans s WHERE s.id = ?`,
  /** A base of a continued input (migration 0021): its body and its own base. */
  baseBody: `SELECT dict_id, body, input_base FROM span_bodies WHERE span_rowid = ?`,
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
  /** NULL: no string attributes (migration 0025). */
  custom_attrs_string: string | null;
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
    custom_attrs_string: r.custom_attrs_string == null ? {} : (JSON.parse(r.custom_attrs_string) as Record<string, string>),
  };
  return searchTexts(src);
}

/**
 * Whether a needle can be tested on a stored span's raw columns (null when it cannot): the texts are
 * values inside those columns' JSON, which prints a value's characters as they are except quotes,
 * backslashes and control characters — so a needle without those, absent from the raw columns
 * (case-insensitively), is absent from the texts, and the span's JSON need not be parsed. Every text
 * lies inside one column (one message of one stored input), so the test may be asked column by
 * column, and of a continued input part by part (its own messages, then each base's). Most candidate
 * spans of a query are ruled out this way.
 */
function rawTest(needle: string): ((raw: string | null | undefined) => boolean) | null {
  // eslint-disable-next-line no-control-regex
  if (/["\\\u0000-\u001f\u2028\u2029\ud800-\udfff]/.test(needle)) return null;
  const n = needle.toLowerCase();
  return (raw) => raw != null && raw.toLowerCase().includes(n);
}

/** The fields of a span's stored body the texts come from. */
const BODY_KEYS = ['input_messages', 'output_messages', 'system_instructions', 'tool_call_arguments', 'tool_call_result'] as const satisfies readonly BodyField[];
const TEXT_FIELDS: ReadonlySet<BodyField> = new Set(BODY_KEYS);
/** The body fields a span's texts take as they are stored (the input may continue a base's). */
const OWN_KEYS = BODY_KEYS.filter((f) => f !== 'input_messages');
/** Bases walked at most for one continued input (the span_details view's bound: the span, then up to 1,000 bases). */
const MAX_CHAIN = 1000;

/** A stored span as the check reads it (FTS_SQL.traceSpansLean, raw): row id, span id, conversation, row texts, body. */
type CheckRow = [id: number, spanId: string, conversationId: string | null, rowText: string | null, dict: number, body: Buffer | null, base: number | null];
type RowColumns = Pick<StoredSearchRow, (typeof ROW_COLUMNS)[number]>;

/** A span whose texts contain the needle, with the excerpt around the first match. */
export interface SpanMatch {
  id: number;
  trace_id: string;
  span_id: string;
  conversation_id: string | null;
  snippet: { text: string; matches: [number, number][] };
}

export interface SearchIndex {
  /**
   * Inside the write transaction: one document per (project, conversation or conversation-less trace) of the batch.
   * `firstRowids` (by `project\u0000trace`): the first span rowid of traces whose spans are all the batch's, known
   * to the writer; the others are read.
   */
  add(spans: { project_id: string; trace_id: string; conversation_id: string | null; texts: readonly string[] }[], firstRowids?: ReadonlyMap<string, number | bigint>): void;
  /** Inside the delete transaction, before the traces' spans go: their documents. */
  drop(traces: readonly { project_id: string; trace_id: string }[]): void;
}

export function createSearchIndex(db: Db): SearchIndex {
  const lastDoc = db.prepare(FTS_SQL.lastDoc).pluck();
  const traceRowid = db.prepare(FTS_SQL.traceRowid).pluck();
  const mapDoc = db.prepare(FTS_SQL.mapDoc);
  const addText = db.prepare(FTS_SQL.addText);
  const traceDocs = db.prepare(FTS_SQL.traceDocs).pluck();
  const unmapTrace = db.prepare(FTS_SQL.unmapTrace);
  const docMapped = db.prepare(FTS_SQL.docMapped);
  const dropText = db.prepare(FTS_SQL.dropText);
  const index: SearchIndex = {
    add(spans, firstRowids) {
      type Doc = { project_id: string; traces: Set<string>; texts: Set<string> };
      // Every document of the batch; per conversation, the one still taking traces; per trace, its document.
      const docs: Doc[] = [];
      const open = new Map<string, Doc>();
      const ofTrace = new Map<string, Doc>();
      for (const s of spans) {
        const traceKey = `${s.project_id}\u0000${s.trace_id}`;
        let d = ofTrace.get(traceKey);
        if (!d) {
          const key = s.conversation_id != null ? `${s.project_id}\u0000c\u0000${s.conversation_id}` : `t\u0000${traceKey}`;
          d = open.get(key);
          if (!d || d.traces.size >= TRACES_PER_DOCUMENT) {
            docs.push((d = { project_id: s.project_id, traces: new Set(), texts: new Set() }));
            open.set(key, d);
          }
          d.traces.add(s.trace_id);
          ofTrace.set(traceKey, d);
        }
        for (const x of s.texts) d.texts.add(x);
      }
      let doc = 0;
      for (const d of docs) {
        if (!d.texts.size) continue;
        doc = (doc || Number(lastDoc.get())) + 1;
        addText.run(doc, [...d.texts].join('\n'));
        for (const traceId of d.traces) mapDoc.run(doc, firstRowids?.get(`${d.project_id}\u0000${traceId}`) ?? traceRowid.get(d.project_id, traceId));
      }
    },
    drop(traces) {
      for (const t of traces) {
        const rowid = traceRowid.get(t.project_id, t.trace_id);
        if (rowid == null) continue;
        const docs = traceDocs.all(rowid);
        unmapTrace.run(rowid);
        for (const doc of docs) if (!docMapped.get(doc)) dropText.run(doc);
      }
    },
  };
  // Spans stored before migration 0010 are indexed once, trace by trace, at the first open after it.
  if (!db.readonly && db.prepare(FTS_SQL.backfillNeeded).get()) {
    const read = db.prepare(FTS_SQL.traceSpans);
    db.transaction(() => {
      for (const t of db.prepare(FTS_SQL.allTraces).all() as { project_id: string; trace_id: string }[]) {
        const rows = read.all(t.project_id, t.trace_id) as StoredSearchRow[];
        index.add(rows.map((r) => ({ ...t, conversation_id: null, texts: storedTexts(r) })));
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
   * callback returns false. Returns false when the needle is too short for the index. A candidate
   * trace for which `wanted` (given the trace's conversation ids) answers false is not checked (the caller knows all it needs of it); when
   * it answers a function, that is asked after each matching span found (with the trace's matches so
   * far) and the trace's check ends when it says the caller needs no more of them.
   */
  eachMatch(
    projectId: string,
    needle: string,
    visit: (spans: SpanMatch[], traceId: string) => boolean,
    wanted?: (traceId: string, conversations: readonly string[]) => boolean | ((found: readonly SpanMatch[]) => boolean),
  ): boolean;
  /**
   * The number of candidate documents of a needle (of any project), counted up to `bound` + 1: more
   * than `bound` says the query is common. Null when the needle is too short for the index.
   */
  candidateCount(needle: string, bound: number): number | null;
  /**
   * The matching spans of one trace (empty when none, or when the index has no candidate for it);
   * with `accept`, only the first matching span it accepts.
   */
  traceMatches(projectId: string, traceId: string, needle: string, accept?: (span: { conversation_id: string | null }) => boolean): SpanMatch[];
}

/** What the check reads besides a trace's spans: body fields (bodies.ts) and a base's stored body. */
interface CheckReads {
  fields: ReturnType<typeof bodyFields>;
  baseBody: Statement<[number], { dict_id: number; body: Buffer | null; input_base: number | null }>;
  spanColumns: Statement<[number], RowColumns>;
}

/**
 * The check of candidate spans against one needle (one read: what it learns of bases is kept for its
 * spans). A span's raw columns are tested before anything is decoded, its body's fields then (one
 * decompression), and a continued input's bases last, each base's own messages once whatever number
 * of spans continue it; a span's texts are parsed only when these leave a match possible (and of its
 * input only the parts whose raw text holds the needle), so a span the needle is not in costs its own
 * body's decompression, not its conversation's history. The answer is the texts' (storedTexts), as before.
 */
function spanCheck(read: CheckReads, needle: string) {
  const { fields, baseBody, spanColumns } = read;
  const test = rawTest(needle);
  /**
   * Per span read: its own input messages (as stored) and its own base; for a base read on its own, its
   * body's text fields too (a base is often a span of an older candidate trace, checked later: its body
   * is then not decoded twice — 3,193 of 8,752 decodings for `A-1187` at 10M).
   */
  const bases = new Map<number, { input: string; base: number | null; fields?: Partial<SpanBody> } | null>();
  /** Per base span: whether its whole input (its own messages and its bases') may hold the needle. */
  const chainHolds = new Map<number, boolean>();
  const baseOf = (rowid: number) => {
    let b = bases.get(rowid);
    if (b === undefined) {
      const row = baseBody.get(rowid);
      const f = row && Buffer.isBuffer(row.body) ? fields(row.dict_id, row.body, TEXT_FIELDS) : {};
      b = row ? { input: f.input_messages ?? '[]', base: row.input_base, fields: f } : null;
      bases.set(rowid, b);
    }
    return b;
  };
  /**
   * The parts of a span's input messages, oldest first: a continued input's bases' own messages, then its
   * own (joined, the span_details view's input_messages).
   */
  const inputParts = (own: string, base: number | null): string[] => {
    const parts = [own];
    for (let at: number | null = base, depth = 0; at != null && depth < MAX_CHAIN; depth++) {
      const b = baseOf(at);
      if (!b) break;
      parts.push(b.input);
      at = b.base;
    }
    return parts.reverse();
  };
  /**
   * The first matching text of an input, part by part (a span's input texts come first among its texts,
   * in order): only a part whose raw text holds the needle is parsed, not the whole conversation so far
   * (parsed whole, the 277 matching spans of `A-1187` at 10M took ~45 ms). Null when no input text holds
   * it; undefined when a part does not parse on its own (the whole input is parsed then).
   */
  const firstInInput = (parts: string[]): string | null | undefined => {
    for (const p of parts) {
      if (!test!(p)) continue;
      let messages: SpanMessage[];
      try {
        messages = JSON.parse(p) as SpanMessage[];
      } catch {
        return undefined;
      }
      const texts: string[] = [];
      messageTexts(messages, texts);
      const found = firstMatch(texts, needle);
      if (found !== null) return found;
    }
    return null;
  };
  /** Whether the whole input of span `rowid` may hold the needle: its own messages or a base's. */
  const mayHoldChain = (rowid: number): boolean => {
    const walked: number[] = [];
    let holds = false;
    for (let at: number | null = rowid, depth = 0; at != null && depth <= MAX_CHAIN; depth++) {
      const known = chainHolds.get(at);
      if (known !== undefined) {
        holds = known;
        break;
      }
      walked.push(at);
      const b = baseOf(at);
      if (!b) break;
      if (test!(b.input)) {
        holds = true;
        break;
      }
      at = b.base;
    }
    for (const w of walked) chainHolds.set(w, holds);
    return holds;
  };
  /** A span's first matching text, or null. */
  const firstText = (r: CheckRow): string | null => {
    const [id, , , rowText, dict, blob, base] = r;
    let own: Partial<SpanBody> | null = null;
    const body = () => (own ??= bases.get(id)?.fields ?? (Buffer.isBuffer(blob) ? fields(dict, blob, TEXT_FIELDS) : {}));
    if (test && !test(rowText)) {
      const o = body();
      // Its own input, for the spans that continue it (mostly later calls of the same trace).
      if (!bases.has(id)) bases.set(id, { input: o.input_messages ?? '[]', base });
      if (!OWN_KEYS.some((f) => test(o[f])) && !mayHoldChain(id)) return null;
    }
    const o = body();
    const parts = inputParts(o.input_messages ?? '[]', base);
    const first = test ? firstInInput(parts) : undefined;
    if (first) return first;
    return firstMatch(
      storedTexts({
        ...(spanColumns.get(id) as RowColumns),
        id,
        span_id: r[1],
        start_ns: null,
        // No input text holds it (null): the texts after the input's.
        input_messages: first === null ? '[]' : parts.length === 1 ? parts[0]! : joinJsonArrays(parts),
        output_messages: o.output_messages ?? '[]',
        system_instructions: o.system_instructions ?? '[]',
        tool_call_arguments: o.tool_call_arguments ?? null,
        tool_call_result: o.tool_call_result ?? null,
      }),
      needle,
    );
  };
  /**
   * The matching spans of a trace's rows, in order; with `accept`, only the first it accepts; with
   * `enough`, until it says the matches found suffice.
   */
  return (traceId: string, rows: CheckRow[], accept?: (span: { conversation_id: string | null }) => boolean, enough?: (found: readonly SpanMatch[]) => boolean): SpanMatch[] => {
    const out: SpanMatch[] = [];
    for (const r of rows) {
      const [id, span_id, conversation_id] = r;
      if (accept && !accept({ conversation_id })) continue;
      const text = firstText(r);
      if (text === null) continue;
      out.push({ id: Number(id), trace_id: traceId, span_id, conversation_id, snippet: snippetOf(text, needle)! });
      if (accept || enough?.(out)) break;
    }
    return out;
  };
}

export function createSearchReader(db: Db): SearchReader {
  const candidates = db.prepare<unknown[], bigint>(FTS_SQL.candidates).pluck().safeIntegers(true);
  const candidateCount = db.prepare<[string, number], number>(FTS_SQL.candidateCount).pluck();
  const docTraces = db.prepare<[bigint, string], [string, string | null]>(FTS_SQL.docTraces).raw(true);
  const docsOfTrace = db.prepare<[string, string], number>(FTS_SQL.docsOfTrace).pluck();
  const docIsCandidate = db.prepare<[string, number], number>(FTS_SQL.docIsCandidate).pluck();
  const isCandidate = (projectId: string, traceId: string, q: string) => docsOfTrace.all(projectId, traceId).some((doc) => docIsCandidate.get(q, doc) !== undefined);
  const spansOf = db.prepare<[string, string], CheckRow>(FTS_SQL.traceSpansLean).raw(true);
  let reads: CheckReads | null = null;
  // On first use: a connection without body functions (bodies.ts) can still count candidates.
  const check = (needle: string) => spanCheck((reads ??= { fields: bodyFields(db), baseBody: db.prepare(FTS_SQL.baseBody), spanColumns: db.prepare(FTS_SQL.spanColumns) }), needle);
  return {
    candidateCount(needle, bound) {
      const q = ftsQuery(needle);
      return q === null ? null : candidateCount.get(q, bound + 1)!;
    },
    eachMatch(projectId, needle, visit, wanted) {
      const q = ftsQuery(needle);
      if (q === null) return false;
      const checkTrace = check(needle);
      const seen = new Set<string>();
      // Pages of candidates (not one open iterator: the check reads spans on the same connection).
      let before = 2n ** 63n - 1n;
      for (let page = CANDIDATE_PAGE; ; page = Math.min(page * 4, 16_384)) {
        const docs = candidates.all(q, before, page);
        for (const doc of docs) {
          before = doc;
          for (const [traceId, conversations] of docTraces.all(doc, projectId)) {
            if (seen.has(traceId)) continue;
            seen.add(traceId);
            const want = wanted ? wanted(traceId, conversations == null ? [] : (JSON.parse(conversations) as string[])) : true;
            if (want === false) continue;
            const found = checkTrace(traceId, spansOf.all(projectId, traceId), undefined, want === true ? undefined : want);
            if (found.length && !visit(found, traceId)) return true;
          }
        }
        if (docs.length < page) return true;
      }
    },
    traceMatches(projectId, traceId, needle, accept) {
      const q = ftsQuery(needle);
      if (q !== null && !isCandidate(projectId, traceId, q)) return [];
      return check(needle)(traceId, spansOf.all(projectId, traceId), accept);
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
    // The candidate traces as one uncorrelated list (SQLite builds it once per query). Correlated on
    // the span (its trace's first rowid, sought per span) it cost a walk of the trace's key index per
    // span: 38 s for a 20,000-span trace's find-in-trace.
    sql: `((s.project_id, s.trace_id) IN (SELECT t.project_id, t.trace_id FROM search_doc_traces sd JOIN spans t ON t.id = sd.trace_rowid
      WHERE sd.doc IN (SELECT rowid FROM search_text WHERE search_text MATCH ?)) AND ${check})`,
    params: [q, needle],
  };
}
