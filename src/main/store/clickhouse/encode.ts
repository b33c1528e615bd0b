/**
 * Spans in the ClickHouse adapter's storage form: one RowBinary row for the narrow `spans` table,
 * one for the `span_payloads` table (row-binary.ts: each table's rows in one Buffer, which the ingest
 * worker transfers to the writing thread without a copy), and the span's resource (stored once per
 * distinct resource). Runs on the ingest worker thread (EncodedBatch) or inline. The row version
 * (the write's stamp) is set by the writer when it inserts (the first 8 bytes of every row).
 * 64-bit integers (nanosecond times, int attributes beyond 2^53 as bigint) are written exactly.
 */
import { createHash } from 'node:crypto';
import type { SpanMessage, SpanRecord } from '../../domain/span.js';
import { messagesPreview } from '../../domain/previews.js';
import { countedSpans } from '../../domain/chat/tree.js';
import { creditSpans, type Credit } from '../../domain/accounting.js';
import { RowBinaryWriter, rowsTransfer, type BinaryRows } from './row-binary.js';
import type { EncodedBatch } from '../ports.js';
import { searchDocsOfSpans, type SearchDocs } from './search-index.js';
import { stripMessageAttributes, stripSpanKeys } from '../../domain/raw-span.js';
import { jsonWithBigints } from '../../../shared/text.js';

/** JSON text of a value that may hold bigints (as digits): shared/text.ts, the replacer only when one is there. */
const jsonText = (v: unknown): string => jsonWithBigints(v) as string;

/** Scalar columns of `spans` copied from the record as they are (strings, numbers, null). */
export const SPAN_SCALARS = [
  'parent_span_id', 'span_name', 'span_kind', 'status_code', 'status_message', 'service_name', 'scope_name', 'scope_version',
  'operation_name', 'provider_name', 'agent_id', 'agent_name', 'agent_version', 'agent_description', 'conversation_id',
  'conversation_name', 'request_model', 'response_model', 'response_id', 'output_type', 'error_type', 'server_address',
  'server_port', 'tool_name', 'tool_type', 'tool_call_id', 'tool_description', 'reasoning_content', 'compaction_summary',
  'compaction_items_before', 'compaction_items_after', 'svc_user_id', 'svc_run_id', 'svc_run_step', 'svc_run_step_end',
  'request_temperature', 'request_top_p', 'request_frequency_penalty', 'request_presence_penalty', 'request_max_tokens',
  'request_seed', 'request_choice_count', 'input_tokens', 'output_tokens', 'reasoning_tokens', 'cache_creation_input_tokens',
  'cache_read_input_tokens', 'input_cost_usd', 'output_cost_usd', 'cache_creation_cost_usd', 'cache_read_cost_usd',
  'total_cost_usd',
] as const satisfies readonly (keyof SpanRecord)[];

export const SPAN_ARRAYS = ['finish_reasons', 'request_stop_sequences', 'artifact_refs', 'content_refs', 'object_refs'] as const satisfies readonly (keyof SpanRecord)[];

/** A resource: its attributes as JSON text, stored once under an id derived from project and text. */
export interface EncodedResource {
  project_id: string;
  resource_id: string;
  attributes: string;
}

export interface EncodedSpans {
  /** RowBinary rows of `spans` (SPAN_ROW) and `span_payloads` (PAYLOAD_ROW); the writer sets their version. */
  spans: BinaryRows;
  payloads: BinaryRows;
  resources: EncodedResource[];
  /** Key and partition of each span, in batch order: [project_id, trace_id, span_id, day]. */
  keys: [string, string, string, string][];
  /**
   * The batch's documents of the term index and their terms (search-index.ts; the writer makes the rows),
   * by the day of the spans' partition (a walk reads a day's documents with that day's spans).
   */
  search: SearchDocs;
}

const DAY_NS = 86_400_000_000_000n;

/** UTC day of a start time (spans without one go to 1970-01-01): the partition of both span tables. */
export const dayOf = (startNs: bigint | null): string => dayName(dayNumber(startNs));

/** First user text of a span's input (the conversation preview's candidate), cut like every preview. */
export function inputPreview(messages: SpanMessage[]): string | null {
  return messagesPreview(messages, 'input');
}

/** Non-user output texts joined by a blank line, cut; null when there is none. */
export function outputPreview(messages: SpanMessage[]): string | null {
  return messagesPreview(messages, 'output');
}

// All spans of one ResourceSpans share one attributes object: hash and serialize it once.
const resourceCache = new WeakMap<object, { text: string; hash: string }>();

function resourceOf(s: SpanRecord): EncodedResource {
  let r = resourceCache.get(s.resource_attributes);
  if (!r) {
    const text = jsonText(s.resource_attributes);
    r = { text, hash: createHash('sha256').update(text).digest('hex').slice(0, 16) };
    resourceCache.set(s.resource_attributes, r);
  }
  return { project_id: s.project_id, resource_id: r.hash, attributes: r.text };
}

/**
 * The counting rule's bits and the credit (domain/accounting.ts: credited agent and conversation, the
 * inheritance bits) of a batch's spans, trace by trace, from the batch's own spans of each trace:
 * exact for a trace the batch holds whole (an import writes whole turns); for a trace that also has
 * stored spans, the writer's summary pass recomputes them over all of them.
 */
function countBatch(spans: readonly SpanRecord[]): { counted: Map<string, number>; credit: Map<string, Credit> } {
  const byTrace = new Map<string, Map<string, SpanRecord>>();
  for (const s of spans) {
    const key = `${s.project_id}\u0000${s.trace_id}`;
    let t = byTrace.get(key);
    if (!t) byTrace.set(key, (t = new Map()));
    t.set(s.span_id, s); // the last write of a span id wins, as in the store
  }
  const out = new Map<string, number>();
  const credit = new Map<string, Credit>();
  for (const [key, t] of byTrace) {
    for (const [id, bits] of countedSpans([...t.values()])) out.set(`${key}\u0000${id}`, bits);
    for (const [id, c] of creditSpans([...t.values()])) credit.set(`${key}\u0000${id}`, c);
  }
  return { counted: out, credit };
}

/** ClickHouse type of each scalar column of `spans` (RowBinary writes each type its own way). */
const SCALAR_TYPES: Record<(typeof SPAN_SCALARS)[number], 'String' | 'Nullable(String)' | 'Nullable(Int64)' | 'Nullable(Float64)'> = Object.fromEntries(
  SPAN_SCALARS.map((c) => [
    c,
    c === 'span_name' || c === 'span_kind' || c === 'status_code'
      ? 'String'
      : /^(server_port|compaction_items_(before|after)|svc_run_step(_end)?|request_(max_tokens|seed|choice_count)|(input|output|reasoning|cache_creation_input|cache_read_input)_tokens)$/.test(c)
        ? 'Nullable(Int64)'
        : /^request_(temperature|top_p|frequency_penalty|presence_penalty)$|_cost_usd$/.test(c)
          ? 'Nullable(Float64)'
          : 'Nullable(String)',
  ]),
) as never;

/**
 * Columns of `spans` as the encoder writes them (RowBinary, in this order) with their ClickHouse types;
 * test/unit/clickhouse-writes.test.ts checks them against the server's table.
 */
export const SPAN_ROW: readonly (readonly [string, string])[] = [
  ['version', 'UInt64'], ['day', 'Date'], ['project_id', 'String'], ['trace_id', 'String'], ['span_id', 'String'],
  ['start_ns', 'Nullable(Int64)'], ['end_ns', 'Nullable(Int64)'], ['resource_id', 'String'],
  ...SPAN_SCALARS.map((c) => [c, SCALAR_TYPES[c]] as const),
  ...SPAN_ARRAYS.map((c) => [c, 'Array(String)'] as const),
  ['str_keys', 'Array(String)'], ['str_values', 'Array(String)'], ['int_keys', 'Array(String)'], ['int_values', 'Array(Int64)'],
  ['float_keys', 'Array(String)'], ['float_values', 'Array(Float64)'], ['bool_keys', 'Array(String)'], ['bool_values', 'Array(UInt8)'],
  ['tool_definitions', 'Nullable(String)'], ['tool_call_arguments', 'Nullable(String)'], ['tool_call_result', 'Nullable(String)'],
  ['counted', 'UInt8'], ['has_input', 'UInt8'], ['input_preview', 'Nullable(String)'], ['has_output', 'UInt8'], ['output_preview', 'Nullable(String)'],
  ['deleted', 'UInt8'],
];

/** Columns of `span_payloads` as the encoder writes them. */
export const PAYLOAD_ROW: readonly (readonly [string, string])[] = [
  ['version', 'UInt64'], ['day', 'Date'], ['project_id', 'String'], ['trace_id', 'String'], ['span_id', 'String'],
  ['system_instructions', 'String'], ['input_messages', 'String'], ['output_messages', 'String'], ['events', 'String'], ['links', 'String'],
  ['raw_span', 'String'], ['deleted', 'UInt8'],
];

export const SPAN_COLUMNS = SPAN_ROW.map(([c]) => c);
export const PAYLOAD_COLUMNS = PAYLOAD_ROW.map(([c]) => c);

const DAY_MS = 86_400_000;
/** Days since 1970-01-01 of a start time (spans without one: day 0), and its 'YYYY-MM-DD'. */
export function dayNumber(startNs: bigint | null): number {
  if (startNs == null) return 0;
  return Number(startNs >= 0n ? startNs / DAY_NS : (startNs - DAY_NS + 1n) / DAY_NS);
}
const dayNames = new Map<number, string>();
function dayName(day: number): string {
  let s = dayNames.get(day);
  if (s === undefined) {
    s = new Date(day * DAY_MS).toISOString().slice(0, 10);
    if (dayNames.size < 4096) dayNames.set(day, s);
  }
  return s;
}

/**
 * A day as the Date column holds it (UInt16 days since 1970): a day outside 1970–2149 is 0. The
 * writer's keys name this partition day too (never the text of a day past 2149, which 18.16 reads as
 * day 0 and later releases saturate to 2149-06-06), so its read-back by day finds such spans.
 */
const dateColumn = (day: number): number => (day >= 0 && day <= 0xffff ? day : 0);

/** The partition (day) of a span's rows, as 'YYYY-MM-DD': 1970-01-01 for a start outside 1970–2149 or none. */
export const partitionDay = (startNs: bigint | null): string => dayName(dateColumn(dayNumber(startNs)));

/**
 * A Date the server sent, named as dayOf names it: 18.16 prints day 0 as '0000-00-00' (current releases
 * '1970-01-01'). Days read back and days of the batch meet in maps keyed by name (the day rows' upkeep).
 */
export const dayText = (d: string): string => (d === '0000-00-00' ? '1970-01-01' : d);

/** Dated days a trace row's range stands for when its first day is day 0 (see daysBetween). */
const DATED_AFTER_DAY_ZERO = 400;

/**
 * The days from a trace row's first day to its last (as the server sends them), at most `cap`. Day 0 stands apart:
 * a trace with spans on day 0 (no start, or outside 1970–2149) and dated ones has first day 0, so its days are day 0
 * and the last DATED_AFTER_DAY_ZERO days up to its last — not every day since 1970 (~20k).
 */
export function daysBetween(first: string, last: string, cap = Number.POSITIVE_INFINITY): string[] {
  const end = Date.parse(`${dayText(last)}T00:00:00Z`);
  let t = Date.parse(`${dayText(first)}T00:00:00Z`);
  const out: string[] = [];
  if (t === 0 && end > 0) {
    out.push(dayName(0));
    t = Math.max(DAY_MS, end - (DATED_AFTER_DAY_ZERO - 1) * DAY_MS);
  }
  for (; t <= end && out.length < cap; t += DAY_MS) out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

/** One span's row of `spans` (after the version the writer sets). */
function writeSpanRow(w: RowBinaryWriter, s: SpanRecord, day: number, resourceId: string, credit: Credit, counted: number): void {
  w.u16(dateColumn(day));
  w.str(s.project_id);
  w.str(s.trace_id);
  w.str(s.span_id);
  w.ni64(s.start_ns, 'start_ns');
  w.ni64(s.end_ns, 'end_ns');
  w.str(resourceId);
  for (const col of SPAN_SCALARS) {
    // The analytic agent / conversation columns hold the credited values (the span's own when it has one).
    const v = col === 'agent_name' ? credit.agent : col === 'conversation_id' ? credit.conversation : s[col];
    const type = SCALAR_TYPES[col];
    if (type === 'Nullable(String)') w.nstr(v == null ? null : String(v));
    else if (type === 'String') w.str(v == null ? '' : String(v));
    else if (type === 'Nullable(Int64)') w.ni64(typeof v === 'string' ? wholeNumber(v, col) : v, col);
    else w.nf64(typeof v === 'string' ? Number(v) : v);
  }
  for (const c of SPAN_ARRAYS) w.strs(s[c]);
  // Custom attributes: per value type, the keys then the values (parallel arrays).
  const attrs = <T>(m: Record<string, T>, value: (v: T, k: string) => void) => {
    const keys = Object.keys(m);
    w.strs(keys);
    w.arrayLength(keys.length);
    for (const k of keys) value(m[k]!, k);
  };
  attrs(s.custom_attrs_string, (v) => w.str(String(v)));
  attrs(s.custom_attrs_int, (v, k) => w.i64(v, `int attribute ${k}`));
  attrs(s.custom_attrs_float, (v) => w.f64(Number(v)));
  attrs(s.custom_attrs_bool, (v) => w.u8(v ? 1 : 0));
  w.nstr(s.tool_definitions);
  w.nstr(s.tool_call_arguments);
  w.nstr(s.tool_call_result);
  w.u8(counted);
  w.u8(s.input_messages.length ? 1 : 0);
  w.nstr(inputPreview(s.input_messages));
  w.u8(s.output_messages.length ? 1 : 0);
  w.nstr(outputPreview(s.output_messages));
  w.u8(0);
}

function wholeNumber(v: string, column: string): bigint {
  if (!/^-?\d+$/.test(v.trim())) throw new TypeError(`${column}: ${JSON.stringify(v)} is not a whole number (an Int64 column)`);
  return BigInt(v.trim());
}

/** One span's row of `span_payloads` (after the version). */
function writePayloadRow(w: RowBinaryWriter, s: SpanRecord, day: number): void {
  w.u16(dateColumn(day));
  w.str(s.project_id);
  w.str(s.trace_id);
  w.str(s.span_id);
  w.str(s.system_instructions.length ? jsonText(s.system_instructions) : '[]');
  w.str(jsonText(s.input_messages));
  w.str(jsonText(s.output_messages));
  w.str(s.events.length ? jsonText(s.events) : '[]');
  w.str(s.links.length ? jsonText(s.links) : '[]');
  w.str(storedRawSpan(s));
  w.u8(0);
}

/**
 * The span as received without what its two rows hold anyway (domain/raw-span.ts): the message
 * attributes its input_messages / output_messages print back exactly, and its ids and times. On the
 * conversation-history workload the raw span was ~60 % of `span_payloads` (the input history a second
 * time); reads put them back (rows.ts receivedRawSpan), so every answer is the span as received.
 */
function storedRawSpan(s: SpanRecord): string {
  const keys = { trace_id: s.trace_id, span_id: s.span_id, parent_span_id: s.parent_span_id, start_ns: s.start_ns == null ? null : String(s.start_ns), end_ns: s.end_ns == null ? null : String(s.end_ns) };
  return stripMessageAttributes(stripSpanKeys(s.raw_span_dump, keys), s);
}

export function encodeSpans(spans: readonly SpanRecord[]): EncodedSpans {
  const rows = new RowBinaryWriter(spans.length * 768);
  const payloads = new RowBinaryWriter(spans.length * 3072);
  const out = { resources: [] as EncodedResource[], keys: [] as [string, string, string, string][] };
  const seen = new Set<string>();
  const { counted, credit } = countBatch(spans);
  for (const s of spans) {
    const skey = `${s.project_id}\u0000${s.trace_id}\u0000${s.span_id}`;
    const c = credit.get(skey)!;
    const day = dayNumber(s.start_ns);
    const res = resourceOf(s);
    const rk = `${res.project_id}\u0000${res.resource_id}`;
    if (!seen.has(rk)) {
      seen.add(rk);
      out.resources.push(res);
    }
    rows.rowWithVersion();
    writeSpanRow(rows, s, day, res.resource_id, c, (counted.get(skey) ?? 0) | c.bits);
    payloads.rowWithVersion();
    writePayloadRow(payloads, s, day);
    out.keys.push([s.project_id, s.trace_id, s.span_id, dayName(dateColumn(day))]);
  }
  return { spans: rows.finish(), payloads: payloads.finish(), ...out, search: searchDocsOfSpans(spans, (s) => partitionDay(s.start_ns)) };
}

/** Spans encoded for this adapter (on the ingest worker thread, or inline): see EncodedBatch. Its row buffers may be transferred. */
export function encodeForClickHouse(spans: readonly SpanRecord[]): EncodedBatch {
  const payload = encodeSpans(spans);
  return { adapter: 'clickhouse', count: spans.length, payload, transfer: [...rowsTransfer(payload.spans, payload.payloads), payload.search.terms.buffer as ArrayBuffer] };
}
