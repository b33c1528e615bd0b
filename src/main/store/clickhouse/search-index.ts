/**
 * The ClickHouse term index of the search of what was said (issue 19, migration 0009): the rows a
 * write adds, and the backfill of spans stored before the index existed.
 *
 * As on SQLite (sqlite/fts.ts), a document holds the distinct searchable texts (domain/search-text.ts)
 * of up to TRACES_PER_DOCUMENT traces of one conversation in a write batch (one trace when its spans
 * have no conversation id), per day: a chat span's input repeats the conversation so far, so texts
 * repeated by the spans of a document are indexed once. Its terms are the hashed trigrams of those
 * texts (domain/search-terms.ts). One JSONEachRow line per document goes to `search_input`, whose
 * views write `search_terms` (term → document) and `search_docs` (document → traces).
 *
 * Document ids grow with time (µs of the write, made unique in this thread): two writers may draw the
 * same id, which merges their documents' terms and traces — more candidates, never a missed one.
 */
import type { SpanRecord } from '../../domain/span.js';
import type { ClickHouse } from './connection.js';
import { searchTexts } from '../../domain/search-text.js';
import { addTextTerms, TRACES_PER_DOCUMENT } from '../../domain/search-terms.js';
import { sql, str, u64 } from './sql.js';

/** What a document takes from a span. */
export interface TermSource {
  project_id: string;
  trace_id: string;
  conversation_id: string | null;
  day: string;
  texts: readonly string[];
}

let lastDoc = 0;
const nextDoc = (): number => (lastDoc = Math.max(lastDoc + 1, Date.now() * 1000));

/** The `search_input` lines of spans' texts (see the file's comment). */
export function searchInputLines(spans: Iterable<TermSource>): string[] {
  type Doc = { project_id: string; day: string; traces: Set<string>; texts: Set<string> };
  const docs: Doc[] = [];
  const open = new Map<string, Doc>();
  const ofTrace = new Map<string, Doc>();
  for (const s of spans) {
    const traceKey = `${s.project_id}\u0000${s.day}\u0000${s.trace_id}`;
    let d = ofTrace.get(traceKey);
    if (!d) {
      const key = s.conversation_id != null ? `${s.project_id}\u0000${s.day}\u0000c\u0000${s.conversation_id}` : `t\u0000${traceKey}`;
      d = open.get(key);
      if (!d || d.traces.size >= TRACES_PER_DOCUMENT) {
        docs.push((d = { project_id: s.project_id, day: s.day, traces: new Set(), texts: new Set() }));
        open.set(key, d);
      }
      d.traces.add(s.trace_id);
      ofTrace.set(traceKey, d);
    }
    for (const t of s.texts) d.texts.add(t);
  }
  const lines: string[] = [];
  for (const d of docs) {
    const terms = new Set<number>();
    for (const t of d.texts) addTextTerms(t, terms);
    if (!terms.size) continue;
    lines.push(
      `{"day":"${d.day}","project_id":${JSON.stringify(d.project_id)},"doc":${nextDoc()},"trace_ids":${JSON.stringify([...d.traces])},"terms":[${[...terms].join(',')}]}`,
    );
  }
  return lines;
}

/** The `search_input` lines of a batch of span records (the write path: encode.ts). */
export function searchLinesOfSpans(spans: readonly SpanRecord[], dayOf: (s: SpanRecord) => string): string[] {
  return searchInputLines(spans.map((s) => ({ project_id: s.project_id, trace_id: s.trace_id, conversation_id: s.conversation_id, day: dayOf(s), texts: searchTexts(s) })));
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
