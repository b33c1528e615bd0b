/**
 * The ClickHouse term index of the search of what was said (issue 19, migration 0009): the rows a
 * write adds, and the backfill of spans stored before the index existed.
 *
 * A document holds the distinct searchable texts (domain/search-text.ts) of the traces of one
 * conversation on one day, up to DOCUMENT_TRACES of them (one trace when its spans have no
 * conversation id). A chat span's input repeats the conversation so far, so a text is indexed once per
 * document, not once per call: the document is the conversation (SQLite's FTS documents hold 4 traces,
 * sqlite/fts.ts; here every trace of a conversation after the first carries the earlier ones' history,
 * so a larger document adds few false candidates and saves the history's terms — 35.8 → 23.7 term rows
 * per span on the bench's workload). Its terms are the hashed trigrams of those texts
 * (domain/search-terms.ts). One JSONEachRow line per document goes to `search_input`, whose views write
 * `search_terms` (term → document) and `search_docs` (document → traces).
 *
 * A conversation's traces come in many write batches (an agent exports a turn at a time): the writer
 * keeps its open documents (OpenDocuments: the document id, its traces and terms) and a later batch of
 * the conversation adds its new traces and only the terms the document does not hold yet to the same
 * document id. The ingest worker computes each batch's documents and terms (SearchDocs); the writer
 * assigns document ids, so ids are unique within a process. Ids grow with time (µs of the write): two
 * writers may draw the same id, which merges their documents' terms and traces — more candidates, never
 * a missed one.
 */
import type { SpanRecord } from '../../domain/span.js';
import type { ClickHouse } from './connection.js';
import { searchTexts } from '../../domain/search-text.js';
import { addTextTerms } from '../../domain/search-terms.js';
import { join, sql, str, u64 } from './sql.js';

/** Traces of one conversation per document: bounds the traces a rare term's hit makes candidates. */
export const DOCUMENT_TRACES = 32;

/** What a document takes from a span. */
export interface TermSource {
  project_id: string;
  trace_id: string;
  conversation_id: string | null;
  day: string;
  texts: readonly string[];
}

/** A batch's documents, each with its terms: `terms[start of doc i .. docs[i].end)` (one buffer, transferable). */
export interface SearchDocs {
  docs: { project_id: string; day: string; conversation_id: string | null; trace_ids: string[]; end: number }[];
  terms: Uint32Array;
}

/** The documents of spans' texts and their terms (see the file's comment). */
export function searchDocsOf(spans: Iterable<TermSource>): SearchDocs {
  type Doc = { project_id: string; day: string; conversation_id: string | null; traces: Set<string>; texts: Set<string> };
  const docs: Doc[] = [];
  const open = new Map<string, Doc>();
  const ofTrace = new Map<string, Doc>();
  for (const s of spans) {
    const traceKey = `${s.project_id}\u0000${s.day}\u0000${s.trace_id}`;
    let d = ofTrace.get(traceKey);
    if (!d) {
      const key = s.conversation_id != null ? `${s.project_id}\u0000${s.day}\u0000c\u0000${s.conversation_id}` : `t\u0000${traceKey}`;
      d = open.get(key);
      if (!d || d.traces.size >= DOCUMENT_TRACES) {
        docs.push((d = { project_id: s.project_id, day: s.day, conversation_id: s.conversation_id, traces: new Set(), texts: new Set() }));
        open.set(key, d);
      }
      d.traces.add(s.trace_id);
      ofTrace.set(traceKey, d);
    }
    for (const t of s.texts) d.texts.add(t);
  }
  const out: SearchDocs['docs'] = [];
  const all: number[] = [];
  for (const d of docs) {
    const terms = new Set<number>();
    for (const t of d.texts) addTextTerms(t, terms);
    if (!terms.size) continue;
    for (const t of terms) all.push(t);
    out.push({ project_id: d.project_id, day: d.day, conversation_id: d.conversation_id, trace_ids: [...d.traces], end: all.length });
  }
  return { docs: out, terms: Uint32Array.from(all) };
}

/** A `search_input` line: one document's traces and terms. */
const inputLine = (project_id: string, day: string, doc: number, traceIds: Iterable<string>, terms: Iterable<number>): string =>
  `{"day":"${day}","project_id":${JSON.stringify(project_id)},"doc":${doc},"trace_ids":${JSON.stringify([...traceIds])},"terms":[${[...terms].join(',')}]}`;

let lastDoc = 0;
/** Document ids: µs of the write, strictly increasing within this process. */
const nextDoc = (): number => (lastDoc = Math.max(lastDoc + 1, Date.now() * 1000));

/** The `search_input` lines of spans' texts, every document new (the backfill). */
export function searchInputLines(spans: Iterable<TermSource>): string[] {
  const { docs, terms } = searchDocsOf(spans);
  let start = 0;
  return docs.map((d) => {
    const line = inputLine(d.project_id, d.day, nextDoc(), d.trace_ids, terms.subarray(start, d.end));
    start = d.end;
    return line;
  });
}

/** The documents and terms of a batch of span records (the write path: encode.ts, on the ingest worker). */
export function searchDocsOfSpans(spans: readonly SpanRecord[], dayOf: (s: SpanRecord) => string): SearchDocs {
  return searchDocsOf(spans.map((s) => ({ project_id: s.project_id, trace_id: s.trace_id, conversation_id: s.conversation_id, day: dayOf(s), texts: searchTexts(s) })));
}

interface OpenDoc {
  doc: number;
  traces: Set<string>;
  /** Its terms, sorted (4 bytes each: a Set would take ~5 times that). */
  terms: Uint32Array;
}

/** What one call adds to an open document (`base`) or as a new one. */
interface Adding {
  base: OpenDoc | null;
  doc: number;
  traces: Set<string>;
  terms: Set<number>;
}

/** Whether a sorted array holds a value. */
function holds(sorted: Uint32Array, v: number): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const x = sorted[mid]!;
    if (x === v) return true;
    if (x < v) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/** Terms the open documents of one writer hold at most (4 MB): the least recently written go first. */
const OPEN_TERMS = 1_000_000;

/**
 * A writer's open documents, (project, day, conversation) → document id, traces and terms, so a later
 * batch of a conversation writes only what its document lacks (see the file's comment).
 *
 * A document is reused only while the server still holds it whole: deletes tombstone its traces
 * (retention.ts) and delete the terms of documents left without traces, so before a batch reuses
 * documents the writer reads their `search_docs` rows (`reusableDocs`: by key, a few granules) and
 * starts a new document for any that misses a trace or has a tombstone. (A delete of every trace of a
 * conversation landing between that read and the batch's insert would leave the reused document's
 * older terms deleted: a window of one insert, for a conversation being written while deleted.) What
 * a batch adds is recorded once its insert succeeded (`commit`); a failed insert leaves the documents
 * as they were (rows it left are repeats).
 */
export class OpenDocuments {
  private open = new Map<string, OpenDoc>();
  private held = 0;

  constructor(private readonly maxTerms = OPEN_TERMS) {}

  private static key(project: string, day: string, conversation: string): string {
    return `${project}\u0000${day}\u0000${conversation}`;
  }

  /** The open documents these batches would add to, by project, with the traces each holds (to be checked with `reusableDocs`). */
  wanted(batches: readonly SearchDocs[]): Map<string, Map<number, number>> {
    const out = new Map<string, Map<number, number>>();
    for (const b of batches) {
      for (const d of b.docs) {
        if (d.conversation_id == null) continue;
        const o = this.open.get(OpenDocuments.key(d.project_id, d.day, d.conversation_id));
        if (!o) continue;
        let docs = out.get(d.project_id);
        if (!docs) out.set(d.project_id, (docs = new Map()));
        docs.set(o.doc, o.traces.size);
      }
    }
    return out;
  }

  /**
   * The `search_input` lines of these batches' documents: an open document of the same conversation and
   * day (among `reusable`) gets the new traces and terms only; any other a new id and all its terms.
   * `commit` records what the lines hold once they are stored.
   */
  lines(batches: readonly SearchDocs[], reusable: ReadonlySet<number>): { lines: string[]; commit: () => void } {
    const lines: string[] = [];
    const adds = new Map<string, Adding>();
    for (const b of batches) {
      let start = 0;
      for (const d of b.docs) {
        const terms = b.terms.subarray(start, d.end);
        start = d.end;
        if (d.conversation_id == null) {
          lines.push(inputLine(d.project_id, d.day, nextDoc(), d.trace_ids, terms));
          continue;
        }
        const key = OpenDocuments.key(d.project_id, d.day, d.conversation_id);
        let a = adds.get(key);
        if (!a) {
          const o = this.open.get(key);
          if (o && reusable.has(o.doc)) a = { base: o, doc: o.doc, traces: new Set(), terms: new Set() };
        }
        const newTraces = a ? d.trace_ids.filter((t) => !a.traces.has(t) && !a.base?.traces.has(t)) : d.trace_ids;
        if (!a || (a.base?.traces.size ?? 0) + a.traces.size + newTraces.length > DOCUMENT_TRACES) {
          adds.set(key, { base: null, doc: nextDoc(), traces: new Set(d.trace_ids), terms: new Set(terms) });
          lines.push(inputLine(d.project_id, d.day, adds.get(key)!.doc, d.trace_ids, terms));
          continue;
        }
        adds.set(key, a);
        const fresh: number[] = [];
        for (const t of terms) {
          if ((a.base && holds(a.base.terms, t)) || a.terms.has(t)) continue;
          a.terms.add(t);
          fresh.push(t);
        }
        for (const t of newTraces) a.traces.add(t);
        if (fresh.length || newTraces.length) lines.push(inputLine(d.project_id, d.day, a.doc, newTraces, fresh));
      }
    }
    const commit = () => {
      for (const [key, a] of adds) {
        const had = this.open.get(key);
        if (had) this.held -= had.terms.length;
        this.open.delete(key); // set again below: the Map's order is the least recently written first
        const added = Uint32Array.from(a.terms).sort();
        let doc: OpenDoc;
        if (a.base && had === a.base) {
          const terms = new Uint32Array(a.base.terms.length + added.length);
          terms.set(a.base.terms);
          terms.set(added, a.base.terms.length);
          doc = { doc: a.doc, traces: new Set([...a.base.traces, ...a.traces]), terms: terms.sort() };
        } else doc = { doc: a.doc, traces: a.traces, terms: added };
        this.open.set(key, doc);
        this.held += doc.terms.length;
      }
      for (const [key, o] of this.open) {
        if (this.held <= this.maxTerms) break;
        this.open.delete(key);
        this.held -= o.terms.length;
      }
    };
    return { lines, commit };
  }
}

/**
 * Of these open documents (id → traces it holds), those the server still holds whole: every trace's
 * row in `search_docs`, none a tombstone — a deleted trace's rows are tombstoned, then purged, and a
 * document left without traces loses its terms (retention.ts). One statement per project, by key.
 */
export async function reusableDocs(ch: ClickHouse, wanted: Map<string, Map<number, number>>): Promise<Set<number>> {
  const out = new Set<number>();
  for (const [project, docs] of wanted) {
    const rows = await ch.rows<{ d: string; traces: string; dead: number }>(
      sql`SELECT toString(doc) AS d, uniqExact(trace_id) AS traces, max(deleted) AS dead FROM search_docs
          WHERE project_id = ${str(project)} AND doc IN (${join([...docs.keys()].map((d) => sql`${u64(d)}`), ', ')}) GROUP BY doc`,
    );
    for (const r of rows) if (Number(r.dead) === 0 && Number(r.traces) === docs.get(Number(r.d))) out.add(Number(r.d));
  }
  return out;
}

/** Whether the index covers every stored span (its backfill is done); remembered once true. */
const ready = new WeakSet<ClickHouse>();
export async function termIndexReady(ch: ClickHouse, opts: { signal?: AbortSignal } = {}): Promise<boolean> {
  if (ready.has(ch)) return true;
  const [r] = await ch.rows<{ done: number }>(sql`SELECT done FROM search_backfill FINAL WHERE name = 'terms'`, opts);
  if (Number(r?.done ?? 0) === 1) ready.add(ch);
  return ready.has(ch);
}

/** Traces per backfill step: their spans and payloads are read, indexed and let go. */
const BACKFILL_TRACES = 200;

type BackfillState = { project_id: string; trace_id: string; done: number; version: string };

/**
 * Indexes the spans stored before migration 0009, trace by trace in key order (BACKFILL_TRACES at a
 * time, so memory stays bounded whatever the store's size), recording the last trace done: a backfill
 * stopped part-way resumes there. Spans written meanwhile are indexed by their writes (a trace indexed
 * twice is a candidate twice, which the reads fold). Returns the number of traces indexed.
 */
export async function backfillSearchTerms(ch: ClickHouse, read: (projectId: string, traceIds: string[]) => Promise<TermSource[]>): Promise<number> {
  const [state] = await ch.rows<BackfillState>(sql`SELECT project_id, trace_id, done, version FROM search_backfill FINAL WHERE name = 'terms'`);
  if (!state || Number(state.done) === 1) return 0;
  let at = { project_id: state.project_id, trace_id: state.trace_id };
  let version = Number(state.version);
  let indexed = 0;
  for (;;) {
    const traces = await ch.rows<{ project_id: string; trace_id: string }>(
      sql`SELECT project_id, trace_id FROM trace_keys FINAL WHERE deleted = 0 AND (project_id > ${str(at.project_id)} OR (project_id = ${str(at.project_id)} AND trace_id > ${str(at.trace_id)}))
          ORDER BY project_id, trace_id LIMIT ${u64(BACKFILL_TRACES)} SETTINGS optimize_move_to_prewhere = 0`,
    );
    const byProject = new Map<string, string[]>();
    for (const t of traces) byProject.set(t.project_id, [...(byProject.get(t.project_id) ?? []), t.trace_id]);
    for (const [p, ids] of byProject) {
      const lines = searchInputLines(await read(p, ids));
      await ch.insertJsonEachRow('search_input', lines.join('\n'));
    }
    indexed += traces.length;
    const last = traces[traces.length - 1];
    if (last) at = last;
    version = Math.max(version + 1, Date.now() * 1000);
    await ch.insertJsonEachRow('search_backfill', JSON.stringify({ name: 'terms', ...at, done: traces.length < BACKFILL_TRACES ? 1 : 0, version }));
    if (traces.length < BACKFILL_TRACES) return indexed;
  }
}
