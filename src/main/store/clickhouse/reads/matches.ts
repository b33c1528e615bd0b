/**
 * Spans whose searchable texts hold a needle, by the rule every adapter applies
 * (domain/search-text.ts: message texts, tool text, string columns and attributes, case-insensitive
 * substring): for `search` and the conversations list's search. Candidates are the spans of the
 * traces the term index names (migration 0009, search-index.ts: the documents holding every term of
 * the needle, domain/search-terms.ts) — a statement that reads the needle's terms' granules, the
 * documents' and then the candidates' rows only. Each candidate is checked here against its texts,
 * which also gives the snippet.
 *
 * Until the index covers the store (the backfill of a store written before it) and for needles it
 * cannot look up (a lone surrogate), candidates come from a scan instead: a case-insensitive
 * substring of the stored texts (columns, attributes, tool text in `spans`; the messages' and
 * instructions' JSON in `span_payloads`, the needle also JSON-escaped), a superset checked the same way.
 */
import type { ReadOptions } from '../../ports.js';
import type { SpanMessage } from '../../../domain/span.js';
import { SEARCHED_COLUMNS, firstMatch, searchTexts, snippetOf, type SearchSource } from '../../../domain/search-text.js';
import type { ClickHouse } from '../connection.js';
import { date, ident, join, raw, sql, str, u64, type Sql } from '../sql.js';
import { columnCandidates, payloadCandidates, prefilterSql } from '../search-sql.js';
import { needleTerms } from '../../../domain/search-terms.js';
import { termIndexReady, type TermSource } from '../search-index.js';
import { DAY_ZERO_TEXT, FINAL_SETTINGS, currentPayloads, currentSpans, isDayZero, spanDays } from './scope.js';
import { GATHER_DOCS, gatherBound as weighedBound } from '../../../domain/gather-bound.js';

export type Snippet = NonNullable<ReturnType<typeof snippetOf>>;

/** A matching span (verified), with what the callers order and group it by. */
export interface SpanHit {
  trace_id: string;
  span_id: string;
  conversation_id: string | null;
  start_ns: bigint | null;
}

type CandidateRow = Record<(typeof SEARCHED_COLUMNS)[number], string | null> & {
  trace_id: string; span_id: string; conversation_id: string | null; start_ns: string | null;
  tool_call_arguments: string | null; tool_call_result: string | null; str_keys: string[]; str_values: string[]; payload: number;
};
type PayloadRow = { trace_id: string; span_id: string; system_instructions: string; input_messages: string; output_messages: string };

/** Spans' keys per payload read (an IN list well under the server's 256 KiB query size). */
const CHUNK = 1_000;

const parse = <T>(json: string | null | undefined): T[] => {
  if (!json) return [];
  try {
    const v = JSON.parse(json) as unknown;
    return Array.isArray(v) ? (v as T[]) : [];
  } catch {
    return [];
  }
};

function source(r: CandidateRow, p: PayloadRow | null): SearchSource {
  const custom: Record<string, string> = {};
  r.str_keys.forEach((k, i) => (custom[k] = r.str_values[i] ?? ''));
  const cols = Object.fromEntries(SEARCHED_COLUMNS.map((c) => [c, r[c]])) as Pick<SearchSource, (typeof SEARCHED_COLUMNS)[number]>;
  return {
    ...cols,
    tool_call_arguments: r.tool_call_arguments,
    tool_call_result: r.tool_call_result,
    custom_attrs_string: custom,
    input_messages: parse<SpanMessage>(p?.input_messages),
    output_messages: parse<SpanMessage>(p?.output_messages),
    system_instructions: parse<unknown>(p?.system_instructions),
  };
}

/** The order hits are answered in: newest first (start descending, spans without one last), then trace and span id. */
export function newestFirst(a: SpanHit, b: SpanHit): number {
  if (a.start_ns !== b.start_ns) {
    if (a.start_ns === null) return 1;
    if (b.start_ns === null) return -1;
    return a.start_ns > b.start_ns ? -1 : 1;
  }
  return a.trace_id < b.trace_id ? -1 : a.trace_id > b.trace_id ? 1 : a.span_id < b.span_id ? -1 : a.span_id > b.span_id ? 1 : 0;
}


/**
 * Measured at 1M spans (50,054 list rows; docs/clickhouse.md "When a search is walked"): the walk passes
 * a row that does not match in ~1.65 ms (`A-1187` walked through every row: 82 s, load 7.7; each step of
 * 500 rows sorts the list, reads their turns' keys, asks the index which traces are candidates and reads
 * theirs), the gather checks a candidate document in ~5.5 ms (58 → 4,915 documents: 5.5 → 32 s, load 7–11:
 * each document's ~6 traces cost a 2,048-row granule of `spans`); `A-118`'s 563 documents named 275
 * matching rows, `A-11`'s 4,915 named 2,745 (~2 documents per matching row: a document is a
 * conversation's day).
 */
const WALK_ROW_PER_GATHER_DOC = 0.3;
const DOCS_PER_MATCHING_ROW = 2;

/**
 * The candidate documents beyond which the conversations list walks a search rather than gathering
 * it (domain/gather-bound.ts, weighed by this adapter's costs): 1,000 up to ~8,000 rows for a 200-row
 * page, ~2,450 at 1M spans (50k rows), ~7,800 at 10M (500k rows). Never below `floor` (tests lower it).
 */
export function gatherBound(rows: number, need: number, floor = GATHER_DOCS): number {
  return weighedBound(rows, need, DOCS_PER_MATCHING_ROW * WALK_ROW_PER_GATHER_DOC, floor);
}

/**
 * The candidate documents a needle may have and still be gathered: a fixed number (`search`, whose walk
 * reads only candidates, day by day), or for the conversations list a floor and, past it, the bound
 * weighed for the list's rows and the page (its walk passes rows that do not match).
 */
export type GatherLimit = number | { floor: number; past: () => Promise<number> };

export interface Matcher {
  /** True when the index names more candidate documents than the gather limit (never when it cannot answer the needle). */
  common(): Promise<boolean>;
  /** Matching spans of these traces only, newest first (the walk's check). */
  spansIn(traceIds: readonly string[]): Promise<SpanHit[]>;
  /**
   * Matching spans, newest first; at most `limit` of them (the candidates are checked newest first,
   * so a small limit reads few payloads).
   */
  spans(limit?: number): Promise<SpanHit[]>;
  /** The excerpt of a matching span: around the first match in its texts, in the rule's order. */
  snippets(hits: readonly SpanHit[]): Promise<Map<string, Snippet>>;
}

/** The columns of `spans` a candidate is checked by. */
const CANDIDATE_COLUMNS = sql`trace_id, span_id, conversation_id, start_ns, ${join(SEARCHED_COLUMNS.map((c) => ident(c)), ', ')}, tool_call_arguments, tool_call_result, str_keys, str_values`;

/** The documents holding every term (SQL): reads the terms' granules of `search_terms` only (its key starts with project and term). */
const docsOf = (projectId: string, terms: readonly number[]): Sql =>
  sql`SELECT doc FROM search_terms WHERE project_id = ${str(projectId)} AND term IN (${join(terms.map((t) => sql`${u64(t)}`), ', ')})
      GROUP BY doc HAVING uniqExact(term) = ${u64(terms.length)}`;

/** Up to `atMost` documents holding every term (their ids as text). */
async function candidateDocs(ch: ClickHouse, projectId: string, terms: readonly number[], atMost: number, opts: ReadOptions): Promise<string[]> {
  const rows = await ch.rows<{ d: string }>(sql`SELECT toString(doc) AS d FROM (${docsOf(projectId, terms)}) LIMIT ${u64(atMost)}`, opts);
  return rows.map((r) => r.d);
}

/**
 * The traces of documents (`search_docs`, keyed by document): of the listed ones, or of every document
 * holding the terms (a subquery), optionally among some traces only.
 */
export async function candidateTraces(
  ch: ClickHouse, projectId: string, docs: readonly string[] | { terms: readonly number[] }, opts: ReadOptions, within?: readonly string[],
): Promise<CandidateTraces> {
  const ofDocs = Array.isArray(docs) ? join((docs as readonly string[]).map((d) => sql`${u64(BigInt(d))}`), ', ') : docsOf(projectId, (docs as { terms: readonly number[] }).terms);
  if (Array.isArray(docs) && !docs.length) return new Map();
  const among = within ? sql` AND trace_id IN (${join(within.map((t) => sql`${str(t)}`), ', ')})` : sql``;
  // Days as day numbers (18.16 prints day 0 as 0000-00-00, which later releases do not read back).
  const rows = await ch.rows<{ trace_id: string; days: number[] }>(
    sql`SELECT trace_id, groupUniqArray(toUInt32(day)) AS days FROM search_docs FINAL WHERE project_id = ${str(projectId)} AND deleted = 0${among} AND doc IN (${ofDocs})
        GROUP BY trace_id${FINAL_SETTINGS}`,
    opts,
  );
  return new Map(rows.map((r) => [r.trace_id, r.days.map((d) => new Date(Number(d) * 86_400_000).toISOString().slice(0, 10))]));
}

/**
 * Candidate traces with the days of their matching documents: a document holds one day's spans (of one
 * conversation), so a span that can hold the needle sits in one of its trace's candidate days.
 */
export type CandidateTraces = Map<string, string[]>;

/** The candidates' order: start descending (none last), then trace and span id — the hits' order. */
const byStartDesc = (a: CandidateRow, b: CandidateRow): number =>
  newestFirst(
    { ...a, start_ns: a.start_ns === null ? null : BigInt(a.start_ns) },
    { ...b, start_ns: b.start_ns === null ? null : BigInt(b.start_ns) },
  );

/** Payload rows read so far, by span key (`trace/span`); null: read, none stored. */
type Payloads = Map<string, PayloadRow | null>;

/** Payload hits a spans read names one by one (an IN list well under the server's query size); past it, by a subquery. */
const KEYED_PAYLOADS = 500;

/**
 * The candidate spans of rows `where` selects (in both `spans` and `span_payloads`). With the needle's
 * server-side test (search-sql.ts asciiPrefilter): first the payloads that pass it, with their texts
 * (kept in `payloads`: the check reads nothing more), then only the spans whose columns pass it or
 * whose payload did, `payload` telling which. Without one: every span, each payload to be read when
 * its columns do not match. Unsorted.
 */
async function candidateRows(ch: ClickHouse, where: Sql, needle: string, payloads: Payloads, opts: ReadOptions): Promise<CandidateRow[]> {
  const pre = prefilterSql(needle);
  if (!pre) return ch.rows<CandidateRow>(sql`SELECT ${CANDIDATE_COLUMNS}, 1 AS payload FROM ${currentSpans(where)}${FINAL_SETTINGS}`, opts);
  const passed = sql`FROM ${currentPayloads(where)} WHERE ${pre.payload}`;
  const found = await ch.rows<PayloadRow>(sql`SELECT trace_id, span_id, system_instructions, input_messages, output_messages ${passed}${FINAL_SETTINGS}`, opts);
  for (const p of found) payloads.set(`${p.trace_id}/${p.span_id}`, p);
  const inFound = !found.length ? raw('0')
    : found.length <= KEYED_PAYLOADS ? sql`(trace_id, span_id) IN (${join(found.map((p) => sql`(${str(p.trace_id)}, ${str(p.span_id)})`), ', ')})`
    : sql`(trace_id, span_id) IN (SELECT trace_id, span_id ${passed})`;
  return ch.rows<CandidateRow>(
    sql`SELECT ${CANDIDATE_COLUMNS}, ${inFound} AS payload FROM ${currentSpans(where)} WHERE payload OR ${pre.columns}${FINAL_SETTINGS}`,
    opts,
  );
}

/**
 * The candidate spans of candidate traces (candidateRows), newest first, read in their candidate days only:
 * without a day, every partition's index is searched for every id, and with ids that do not grow with time
 * each day's parts hold granules around each of them.
 */
async function spansOfTraces(ch: ClickHouse, projectId: string, candidates: CandidateTraces, needle: string, payloads: Payloads, opts: ReadOptions): Promise<CandidateRow[]> {
  const found: CandidateRow[] = [];
  const traces = [...candidates.keys()];
  for (let i = 0; i < traces.length; i += CHUNK) {
    const chunk = traces.slice(i, i + CHUNK);
    const days = [...new Set(chunk.flatMap((t) => candidates.get(t)!))].sort();
    const where = sql`project_id = ${str(projectId)} AND deleted = 0 AND day IN (${join(days.map((d) => sql`${date(d)}`), ', ')})
      AND trace_id IN (${join(chunk.map((t) => sql`${str(t)}`), ', ')})`;
    found.push(...(await candidateRows(ch, where, needle, payloads, opts)));
  }
  return found.sort(byStartDesc);
}

/** The first day past what a Date column holds (2149-06-06): spans starting later sit in day 0 with those without a start. */
const PAST_DATES_NS = 65_536n * 86_400_000_000_000n;

/**
 * The candidates of a common needle in the hits' order, a day's at a time (each window newest first,
 * every window newer than the next): the partitions of `spans` newest first, each day's candidates from
 * that day's documents only (a document never spans days, so the terms' and documents' reads stay in
 * that day's partitions). Day 0 holds the spans without a start and those outside the Date column's
 * years: its candidates past 2149 come first, the rest last (1970-01-01, before 1970, no start).
 */
async function* candidatesByDay(ch: ClickHouse, projectId: string, terms: readonly number[], needle: string, payloads: Payloads, opts: ReadOptions): AsyncGenerator<CandidateRow[]> {
  const days = await spanDays(ch, opts);
  const ofDay = async (day: string) => {
    const docs = sql`SELECT doc FROM search_terms WHERE project_id = ${str(projectId)} AND day = ${date(day)} AND term IN (${join(terms.map((t) => sql`${u64(t)}`), ', ')})
      GROUP BY doc HAVING uniqExact(term) = ${u64(terms.length)}`;
    const traces = sql`SELECT trace_id FROM search_docs FINAL WHERE project_id = ${str(projectId)} AND day = ${date(day)} AND deleted = 0 AND doc IN (${docs})`;
    const rows = await candidateRows(ch, sql`project_id = ${str(projectId)} AND day = ${date(day)} AND deleted = 0 AND trace_id IN (${traces})`, needle, payloads, opts);
    return rows.sort(byStartDesc);
  };
  const zero = days.some(isDayZero) ? await ofDay(DAY_ZERO_TEXT) : [];
  const late = (r: CandidateRow) => r.start_ns !== null && BigInt(r.start_ns) >= PAST_DATES_NS;
  if (zero.some(late)) yield zero.filter(late);
  for (const day of days) if (!isDayZero(day)) yield await ofDay(day);
  if (zero.length) yield zero.filter((r) => !late(r));
}

/** Candidates by a scan of the stored texts (see the file's comment), newest first. */
function scannedCandidates(ch: ClickHouse, projectId: string, needle: string, opts: ReadOptions): Promise<CandidateRow[]> {
  const payload = payloadCandidates(projectId, needle);
  return ch.rows<CandidateRow>(
    sql`SELECT ${CANDIDATE_COLUMNS}, (trace_id, span_id) IN (${payload}) AS payload
        FROM ${currentSpans(sql`project_id = ${str(projectId)} AND deleted = 0 AND (${columnCandidates(needle)} OR (trace_id, span_id) IN (${payload}))`)}
        ORDER BY start_ns DESC NULLS LAST, trace_id, span_id${FINAL_SETTINGS}`,
    opts,
  );
}

/** Every span of these traces with its searchable texts (the term index's backfill). */
export async function spanTexts(ch: ClickHouse, projectId: string, traceIds: readonly string[]): Promise<TermSource[]> {
  if (!traceIds.length) return [];
  const traces = join(traceIds.map((t) => sql`${str(t)}`), ', ');
  const where = sql`project_id = ${str(projectId)} AND deleted = 0 AND trace_id IN (${traces})`;
  const [rows, payloads] = await Promise.all([
    ch.rows<CandidateRow & { day: string }>(sql`SELECT ${CANDIDATE_COLUMNS}, toString(day) AS day FROM ${currentSpans(where)}${FINAL_SETTINGS}`),
    ch.rows<PayloadRow>(
      sql`SELECT trace_id, span_id, system_instructions, input_messages, output_messages FROM span_payloads FINAL WHERE ${where}${FINAL_SETTINGS}`,
    ),
  ]);
  const byKey = new Map(payloads.map((p) => [`${p.trace_id}/${p.span_id}`, p]));
  return rows.map((r) => ({
    project_id: projectId, trace_id: r.trace_id, conversation_id: r.conversation_id, day: r.day,
    texts: searchTexts(source(r, byKey.get(`${r.trace_id}/${r.span_id}`) ?? null)),
  }));
}

export function matcher(ch: ClickHouse, projectId: string, needle: string, opts: ReadOptions, limit: GatherLimit = GATHER_DOCS): Matcher {
  const key = (h: { trace_id: string; span_id: string }) => `${h.trace_id}/${h.span_id}`;
  const rows = new Map<string, CandidateRow>();
  const payloads: Payloads = new Map();

  const readPayloads = async (keys: string[]) => {
    const missing = keys.filter((k) => !payloads.has(k));
    for (let i = 0; i < missing.length; i += CHUNK) {
      const chunk = missing.slice(i, i + CHUNK).map((k) => rows.get(k)!);
      const got = await ch.rows<PayloadRow>(
        sql`SELECT trace_id, span_id, system_instructions, input_messages, output_messages FROM span_payloads FINAL
            WHERE project_id = ${str(projectId)} AND deleted = 0
              AND (trace_id, span_id) IN (${join(chunk.map((r) => sql`(${str(r.trace_id)}, ${str(r.span_id)})`), ', ')})${FINAL_SETTINGS}`,
        opts,
      );
      for (const r of chunk) payloads.set(key(r), null);
      for (const p of got) payloads.set(key(p), p);
    }
  };
  const texts = (k: string) => searchTexts(source(rows.get(k)!, payloads.get(k) ?? null));

  /** The needle's terms when the index answers it (null: candidates by a scan). */
  let indexed: Promise<number[] | null> | null = null;
  const termsOf = () => (indexed ??= (async () => {
    const terms = needleTerms(needle);
    return terms !== null && (await termIndexReady(ch, opts)) ? terms : null;
  })());
  /** The candidate documents gathered at most (the limit, or past its floor the weighed bound). */
  let most = typeof limit === 'number' ? limit : limit.floor;
  /** Up to `most` + 1 candidate documents (all of them when there are no more). */
  let gathered: Promise<string[] | null> | null = null;
  const gather = () => (gathered ??= termsOf().then(async (terms) => {
    if (!terms) return null;
    const docs = await candidateDocs(ch, projectId, terms, most + 1, opts);
    if (typeof limit === 'number' || docs.length <= most) return docs;
    // Past the floor: the bound weighed for this list and page, and the lookup again up to it.
    const weighed = await limit.past();
    if (weighed <= most) return docs;
    most = weighed;
    return candidateDocs(ch, projectId, terms, most + 1, opts);
  }));

  /** The hits among candidates (newest first), checked in chunks: the payloads of a chunk's message candidates are read together. */
  const check = async (found: CandidateRow[], limit: number): Promise<SpanHit[]> => {
    const hits: SpanHit[] = [];
    for (let i = 0; i < found.length && hits.length < limit; i += CHUNK) {
      const chunk = found.slice(i, i + CHUNK);
      for (const r of chunk) rows.set(key(r), r);
      // A column match needs no payload; a message candidate is checked against its messages.
      const needPayload = chunk.filter((r) => firstMatch(searchTexts(source(r, null)), needle) === null && Number(r.payload)).map(key);
      await readPayloads(needPayload);
      for (const r of chunk) {
        if (firstMatch(texts(key(r)), needle) === null) continue;
        hits.push({ trace_id: r.trace_id, span_id: r.span_id, conversation_id: r.conversation_id, start_ns: r.start_ns === null ? null : BigInt(r.start_ns) });
        if (hits.length >= limit) break;
      }
    }
    return hits;
  };

  return {
    async common() {
      const g = await gather();
      return g !== null && g.length > most;
    },
    async spansIn(traceIds) {
      const terms = await termsOf();
      if (!terms) throw new Error('spansIn needs the term index (common() was false)');
      const traces = traceIds.length ? await candidateTraces(ch, projectId, { terms }, opts, traceIds) : new Map<string, string[]>();
      return check(await spansOfTraces(ch, projectId, traces, needle, payloads, opts), Number.POSITIVE_INFINITY);
    },
    async spans(limit = Number.POSITIVE_INFINITY) {
      const terms = await termsOf();
      if (!terms) return check(await scannedCandidates(ch, projectId, needle, opts), limit);
      const g = (await gather())!;
      if (g.length <= most) return check(await spansOfTraces(ch, projectId, await candidateTraces(ch, projectId, g, opts), needle, payloads, opts), limit);
      // A common needle: its candidates day by day, newest first, until `limit` hits.
      const hits: SpanHit[] = [];
      for await (const window of candidatesByDay(ch, projectId, terms, needle, payloads, opts)) {
        hits.push(...(await check(window, limit - hits.length)));
        if (hits.length >= limit) break;
      }
      return hits;
    },
    async snippets(hits) {
      await readPayloads(hits.map(key).filter((k) => rows.has(k)));
      const out = new Map<string, Snippet>();
      for (const h of hits) {
        const text = firstMatch(texts(key(h)), needle);
        if (text !== null) out.set(key(h), snippetOf(text, needle)!);
      }
      return out;
    },
  };
}
