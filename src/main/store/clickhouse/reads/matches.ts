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
import { DAY_ZERO_TEXT, DIRTY, FINAL_SETTINGS, currentPayloads, currentSpans, isDayZero, spanDays } from './scope.js';
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
  trace_id: string; span_id: string; conversation_id: string | null; start_ns: string | null; day_n: number;
  tool_call_arguments: string | null; tool_call_result: string | null; str_keys: string[]; str_values: string[]; payload: number;
};
type PayloadRow = { trace_id: string; span_id: string; system_instructions: string; input_messages: string; output_messages: string };

/**
 * Ids (documents, traces, spans' keys) per statement: an IN list well under the server's 256 KiB query
 * size, and a read bounded whatever the store holds (tests lower it: GatherRule.chunk).
 */
export const CHUNK = 1_000;

/** Days a statement of the gather looks documents up in, at most (its windows grow 1, 2, 4, … up to this, newest first). */
const WINDOW_DAYS = 32;

const dayList = (days: readonly string[]): Sql => join(days.map((d) => sql`${date(d)}`), ', ');
/** Ids as the items of an IN list. */
export const idList = (ids: readonly string[]): Sql => join(ids.map((t) => sql`${str(t)}`), ', ');
const docList = (docs: readonly string[]): Sql => join(docs.map((d) => sql`${u64(BigInt(d))}`), ', ');
/** `xs` cut into lists of at most `n`, in order. */
export const slices = <T>(xs: readonly T[], n: number): T[][] => Array.from({ length: Math.ceil(xs.length / n) }, (_, i) => xs.slice(i * n, (i + 1) * n));
/** A day number (days since 1970, as the server sends toUInt32(day)) as the day's text. */
const dayOfNumber = (d: number | string): string => new Date(Number(d) * 86_400_000).toISOString().slice(0, 10);

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

/**
 * The conversations list's hold on a gather (reads/conversations.ts): which candidate traces still need
 * their spans checked — a trace every row of which has matched in a newer day is skipped, as SQLite's
 * gather does — and the hits newer than every candidate still to come.
 */
export interface GatherRows {
  /** Of these candidate traces, those to check. */
  keep(traceIds: string[]): Promise<string[]>;
  /** Hits newer than any span of the candidates still to come (their rows' newest). */
  seen(hits: readonly SpanHit[]): void;
}

export interface Matcher {
  /** True when the index names more candidate documents than the gather limit (never when it cannot answer the needle). */
  common(): Promise<boolean>;
  /** Matching spans of these traces only (trace → the days its spans lie in), newest first: the walk's check. */
  spansIn(traces: ReadonlyMap<string, readonly string[]>): Promise<SpanHit[]>;
  /**
   * Matching spans, newest first; at most `limit` of them (the candidates are checked newest first,
   * so a small limit reads few payloads). `rows`: the list's rows, to skip traces whose rows all matched.
   */
  spans(limit?: number, rows?: GatherRows): Promise<SpanHit[]>;
  /** The excerpt of a matching span: around the first match in its texts, in the rule's order. */
  snippets(hits: readonly SpanHit[]): Promise<Map<string, Snippet>>;
}

/** The columns of `spans` a span's texts are read from. */
const TEXT_COLUMNS = sql`trace_id, span_id, conversation_id, start_ns, ${join(SEARCHED_COLUMNS.map((c) => ident(c)), ', ')}, tool_call_arguments, tool_call_result, str_keys, str_values`;
/** The columns of `spans` a candidate is checked by: its texts and its day (where its payload is read). */
const CANDIDATE_COLUMNS = sql`${TEXT_COLUMNS}, toUInt32(day) AS day_n`;

/** The condition "holds every term" of a document's rows of `search_terms` grouped by day and document (a document never spans days). */
const termsIn = (projectId: string, terms: readonly number[], days: readonly string[]): Sql =>
  sql`FROM search_terms WHERE project_id = ${str(projectId)} AND day IN (${dayList(days)}) AND term IN (${join(terms.map((t) => sql`${u64(t)}`), ', ')})
      GROUP BY day, doc HAVING uniqExact(term) = ${u64(terms.length)}`;

/** A day's candidate documents (ids as text). */
type DocsOfDay = { day: string; docs: string[] };

/**
 * Up to `atMost` documents holding every term in these days: reads the terms' granules of those
 * days' partitions only (the key starts with project and term).
 */
async function docsIn(ch: ClickHouse, projectId: string, terms: readonly number[], days: readonly string[], atMost: number, opts: ReadOptions): Promise<DocsOfDay[]> {
  const rows = await ch.rows<{ day: number; d: string }>(sql`SELECT toUInt32(day) AS day, toString(doc) AS d ${termsIn(projectId, terms, days)} LIMIT ${u64(atMost)}`, opts);
  const out = new Map<string, string[]>();
  for (const r of rows) {
    const day = dayOfNumber(r.day);
    out.set(day, [...(out.get(day) ?? []), r.d]);
  }
  return [...out].map(([day, docs]) => ({ day, docs }));
}

/**
 * The traces of documents with the days their documents lie in (`search_docs`, keyed by document), read
 * in those days' partitions only: of the listed documents, or of those holding the terms there (a
 * subquery), optionally among some traces only. A tombstone (retention.ts: the same day, document and
 * trace, a newer version, deleted = 1) hides its trace: each row's newest version decides — what FINAL
 * gives, without FINAL's merge of every part of the days read (at 8M spans a FINAL over every day's
 * parts used 2.7 GiB for 600 documents).
 */
async function candidateTraces(
  ch: ClickHouse, projectId: string, days: readonly string[], docs: readonly string[] | { terms: readonly number[] }, opts: ReadOptions, within?: readonly string[],
): Promise<CandidateTraces> {
  if (!days.length || (Array.isArray(docs) && !docs.length) || (within && !within.length)) return new Map();
  const ofDocs = Array.isArray(docs) ? docList(docs as readonly string[]) : sql`SELECT doc ${termsIn(projectId, (docs as { terms: readonly number[] }).terms, days)}`;
  const among = within ? sql` AND trace_id IN (${idList(within)})` : sql``;
  // Days as day numbers (18.16 prints day 0 as 0000-00-00, which later releases do not read back).
  const rows = await ch.rows<{ trace_id: string; days: number[] }>(
    sql`SELECT trace_id, groupUniqArray(toUInt32(day)) AS days FROM (
          SELECT day, trace_id, argMax(deleted, version) AS dead FROM search_docs
          WHERE project_id = ${str(projectId)} AND day IN (${dayList(days)}) AND doc IN (${ofDocs})${among}
          GROUP BY day, doc, trace_id)
        WHERE dead = 0 GROUP BY trace_id`,
    opts,
  );
  return new Map(rows.map((r) => [r.trace_id, r.days.map(dayOfNumber)]));
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
 * currentSpans / currentPayloads (scope.ts) of some traces: in the days read as stored, the trace ids are
 * a PREWHERE, so the server reads the other columns only around those traces' rows and tests the needle
 * on their rows only (a WHERE is evaluated on every row of the granules read: at 8M spans, ~480 candidate
 * traces over 151 days cost ~900 ms of server CPU as a WHERE, ~100 ms of it for the key test alone).
 */
function ofTraces(table: 'spans' | 'span_payloads', where: Sql, traces: Sql): Sql {
  const t = raw(table);
  return sql`(SELECT * FROM ${t} FINAL WHERE day IN ${DIRTY} AND ${where} AND trace_id IN (${traces})
    UNION ALL SELECT * FROM ${t} PREWHERE trace_id IN (${traces}) WHERE day NOT IN ${DIRTY} AND ${where})`;
}

/**
 * The candidate spans of rows `where` selects (in both `spans` and `span_payloads`), of the listed traces
 * only when `traces` is given. With the needle's server-side test (search-sql.ts asciiPrefilter): first
 * the payloads that pass it, with their texts (kept in `payloads`: the check reads nothing more), then
 * only the spans whose columns pass it or whose payload did, `payload` telling which. Without one:
 * every span, each payload to be read when its columns do not match. Unsorted.
 */
async function candidateRows(ch: ClickHouse, where: Sql, needle: string, payloads: Payloads, opts: ReadOptions, traces?: Sql): Promise<CandidateRow[]> {
  const spansFrom = traces ? ofTraces('spans', where, traces) : currentSpans(where);
  const pre = prefilterSql(needle);
  if (!pre) return ch.rows<CandidateRow>(sql`SELECT ${CANDIDATE_COLUMNS}, 1 AS payload FROM ${spansFrom}${FINAL_SETTINGS}`, opts);
  const passed = sql`FROM ${traces ? ofTraces('span_payloads', where, traces) : currentPayloads(where)} WHERE ${pre.payload}`;
  const found = await ch.rows<PayloadRow>(sql`SELECT trace_id, span_id, system_instructions, input_messages, output_messages ${passed}${FINAL_SETTINGS}`, opts);
  for (const p of found) payloads.set(`${p.trace_id}/${p.span_id}`, p);
  const inFound = !found.length ? raw('0')
    : found.length <= KEYED_PAYLOADS ? sql`(trace_id, span_id) IN (${join(found.map((p) => sql`(${str(p.trace_id)}, ${str(p.span_id)})`), ', ')})`
    : sql`(trace_id, span_id) IN (SELECT trace_id, span_id ${passed})`;
  return ch.rows<CandidateRow>(
    sql`SELECT ${CANDIDATE_COLUMNS}, ${inFound} AS payload FROM ${spansFrom} WHERE payload OR ${pre.columns}${FINAL_SETTINGS}`,
    opts,
  );
}

/**
 * The candidate spans of candidate traces (candidateRows), newest first, read in their candidate days
 * only, `chunk` traces a statement: without a day, every partition's index is searched for every id,
 * and with ids that do not grow with time each day's parts hold granules around each of them.
 */
async function spansOfTraces(
  ch: ClickHouse, projectId: string, candidates: CandidateTraces, needle: string, payloads: Payloads, opts: ReadOptions, chunk = CHUNK,
): Promise<CandidateRow[]> {
  const found: CandidateRow[] = [];
  for (const part of slices([...candidates.keys()], chunk)) {
    const days = [...new Set(part.flatMap((t) => candidates.get(t)!))].sort();
    const where = sql`project_id = ${str(projectId)} AND deleted = 0 AND day IN (${dayList(days)})`;
    found.push(...(await candidateRows(ch, where, needle, payloads, opts, idList(part))));
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
    ch.rows<CandidateRow & { day: string }>(sql`SELECT ${TEXT_COLUMNS}, toString(day) AS day FROM ${currentSpans(where)}${FINAL_SETTINGS}`),
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

/** A gather's documents (up to the limit, or its weighed bound, + 1), day 0's first then newest first; `over`: more than the bound. */
type Gathered = { days: DocsOfDay[]; count: number; over: boolean };

/** Test knobs: ids per statement (documents, traces), days per document lookup. */
export interface Chunking {
  ids?: number;
  days?: number;
}

export function matcher(ch: ClickHouse, projectId: string, needle: string, opts: ReadOptions, limit: GatherLimit = GATHER_DOCS, chunking: Chunking = {}): Matcher {
  const ids = chunking.ids ?? CHUNK;
  const windowDays = chunking.days ?? WINDOW_DAYS;
  const key = (h: { trace_id: string; span_id: string }) => `${h.trace_id}/${h.span_id}`;
  const rows = new Map<string, CandidateRow>();
  const payloads: Payloads = new Map();

  /** Payloads of candidate spans, read in their days' partitions (their traces a PREWHERE), `ids` spans a statement. */
  const readPayloads = async (keys: string[]) => {
    const missing = keys.filter((k) => !payloads.has(k));
    for (const part of slices(missing, ids)) {
      const chunk = part.map((k) => rows.get(k)!);
      const days = [...new Set(chunk.map((r) => dayOfNumber(r.day_n)))];
      const where = sql`project_id = ${str(projectId)} AND deleted = 0 AND day IN (${dayList(days)})`;
      const got = await ch.rows<PayloadRow>(
        sql`SELECT trace_id, span_id, system_instructions, input_messages, output_messages FROM ${ofTraces('span_payloads', where, idList([...new Set(chunk.map((r) => r.trace_id))]))}
            WHERE (trace_id, span_id) IN (${join(chunk.map((r) => sql`(${str(r.trace_id)}, ${str(r.span_id)})`), ', ')})${FINAL_SETTINGS}`,
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
  /**
   * The candidate documents, looked up in windows of days, day 0 first then newest first (1, 2, 4, …
   * days a statement, at most `windowDays`), until there are more than `most` (a common needle stops in
   * its newest days) or no day is left. Past the floor, the bound weighed for the list and the page once.
   */
  let gathered: Promise<Gathered | null> | null = null;
  const gather = () => (gathered ??= termsOf().then(async (terms) => {
    if (!terms) return null;
    const all = (await spanDays(ch, opts)).map((p) => (isDayZero(p) ? DAY_ZERO_TEXT : p));
    const days = [...all.filter((d) => d === DAY_ZERO_TEXT), ...all.filter((d) => d !== DAY_ZERO_TEXT)];
    const out: Gathered = { days: [], count: 0, over: false };
    let weighed = typeof limit === 'number';
    for (let at = 0, size = 1; at < days.length; at += size, size = Math.min(size * 2, windowDays)) {
      const window = days[at] === DAY_ZERO_TEXT ? [DAY_ZERO_TEXT] : days.slice(at, at + size);
      if (days[at] === DAY_ZERO_TEXT) size = 1;
      let got = await docsIn(ch, projectId, terms, window, most + 1 - out.count, opts);
      const found = () => got.reduce((a, d) => a + d.docs.length, 0);
      if (out.count + found() > most && !weighed && typeof limit !== 'number') {
        weighed = true;
        const bound = await limit.past();
        if (bound > most) {
          most = bound;
          got = await docsIn(ch, projectId, terms, window, most + 1 - out.count, opts);
        }
      }
      // Newest first within the window (the lookup's rows come in no order).
      out.days.push(...got.sort((a, b) => (a.day === DAY_ZERO_TEXT ? -1 : b.day === DAY_ZERO_TEXT ? 1 : a.day < b.day ? 1 : -1)));
      out.count += found();
      if (out.count > most) return { ...out, over: true };
    }
    return out;
  }));

  /** The hits among candidates (newest first), checked in chunks: the payloads of a chunk's message candidates are read together. */
  const check = async (found: CandidateRow[], limit: number): Promise<SpanHit[]> => {
    const hits: SpanHit[] = [];
    for (let i = 0; i < found.length && hits.length < limit; i += ids) {
      const chunk = found.slice(i, i + ids);
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

  /**
   * The gathered documents' hits, newest first: the documents in batches of days (day 0 alone, first;
   * then newest first, up to `ids` documents or `windowDays` days a batch), each batch's traces checked
   * before the next — never a statement with every gathered id. Day 0 holds the spans past 2149 (newer
   * than any dated one) and those without a start or before 1970 (older than any): its hits are split
   * and answered first and last. A dated batch's hits are newer than any older batch's spans, so once
   * a row matched its traces in older days are skipped (`rows`).
   */
  const gatheredHits = async (g: Gathered, limit: number, held?: GatherRows): Promise<SpanHit[]> => {
    const late: SpanHit[] = [];
    const early: SpanHit[] = [];
    const dated: SpanHit[] = [];
    const batches: DocsOfDay[][] = [];
    for (const d of g.days) {
      const last = batches[batches.length - 1];
      const open = last && last[0]!.day !== DAY_ZERO_TEXT && d.day !== DAY_ZERO_TEXT && last.length < windowDays && last.reduce((a, x) => a + x.docs.length, 0) + d.docs.length <= ids;
      if (open) last.push(d);
      else batches.push([d]);
    }
    for (const batch of batches) {
      const zero = batch[0]!.day === DAY_ZERO_TEXT;
      const days = batch.map((d) => d.day);
      const traces: CandidateTraces = new Map();
      for (const part of slices(batch.flatMap((d) => d.docs), ids)) {
        for (const [t, ds] of await candidateTraces(ch, projectId, days, part, opts)) traces.set(t, [...new Set([...(traces.get(t) ?? []), ...ds])]);
      }
      const keep = held && !zero ? new Set(await held.keep([...traces.keys()])) : null;
      const checked = keep ? new Map([...traces].filter(([t]) => keep.has(t))) : traces;
      const hits = await check(await spansOfTraces(ch, projectId, checked, needle, payloads, opts, ids), limit - late.length - dated.length);
      const isLate = (h: SpanHit) => h.start_ns !== null && h.start_ns >= PAST_DATES_NS;
      if (zero) {
        late.push(...hits.filter(isLate));
        early.push(...hits.filter((h) => !isLate(h)));
        held?.seen(late);
      } else {
        dated.push(...hits);
        held?.seen(hits);
      }
      if (late.length + dated.length >= limit) break;
    }
    return [...late, ...dated, ...early].slice(0, limit);
  };

  return {
    async common() {
      const g = await gather();
      return g !== null && g.over;
    },
    async spansIn(traces) {
      const terms = await termsOf();
      if (!terms) throw new Error('spansIn needs the term index (common() was false)');
      const days = [...new Set([...traces.values()].flat())].sort().reverse();
      const candidates: CandidateTraces = new Map();
      for (const part of slices([...traces.keys()], ids)) {
        for (const [t, ds] of await candidateTraces(ch, projectId, days, { terms }, opts, part)) candidates.set(t, ds);
      }
      return check(await spansOfTraces(ch, projectId, candidates, needle, payloads, opts, ids), Number.POSITIVE_INFINITY);
    },
    async spans(limit = Number.POSITIVE_INFINITY, held) {
      const terms = await termsOf();
      if (!terms) return check(await scannedCandidates(ch, projectId, needle, opts), limit);
      const g = (await gather())!;
      if (!g.over) return gatheredHits(g, limit, held);
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
