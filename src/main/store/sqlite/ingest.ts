import type { Db } from './open.js';
import type { SpanRecord } from '../../domain/span.js';
import { createSummaryMaintainer, type SummaryMaintainer, type SummarySpan } from './summaries/index.js';
import { HAS_INPUT, HAS_OUTPUT } from '../../domain/summaries/turns.js';
import { previewOf } from '../../domain/previews.js';
import { countedSpans } from '../../domain/chat/tree.js';
import { creditSpans } from '../../domain/accounting.js';
import { searchTexts } from '../../domain/search-text.js';
import { createSearchIndex, type SearchIndex } from './fts.js';
import { ThreadBodyEncoder, createBodyWriter, type EncodedBody } from './bodies.js';
import { rawKeys } from '../../domain/raw-span.js';

/** SQL of span ingestion: batched idempotent upserts of spans and their details. */
export interface WriteResult {
  inserted: number;
  replaced: number;
  /** (project_id, trace_id) pairs touched, so summaries and live views can refresh just those. */
  touched: { project_id: string; trace_id: string }[];
}

export interface IngestRepo {
  /** Upserts a batch in ONE transaction; either all of it is stored or none. */
  writeBatch(spans: SpanRecord[]): WriteResult;
  /** The same for spans already in storage form (prepareSpan, e.g. done in the ingest worker thread). */
  writePrepared(rows: PreparedSpan[]): WriteResult;
  /**
   * The same inside a transaction the caller holds open (the bulk path, write-side.ts): no savepoint of its own, so a
   * failure leaves the caller's transaction to roll back whole.
   */
  writeInOpen(rows: PreparedSpan[]): WriteResult;
  /** After the caller rolled back a transaction writeInOpen wrote in: cached row ids of it are forgotten. */
  forgetIds(): void;
}

/** Scalar columns of `spans`, bound as-is (strings, numbers, bigint nanoseconds, null). */
export const SCALAR_COLUMNS = [
  'project_id', 'trace_id', 'span_id', 'parent_span_id', 'span_name', 'span_kind', 'start_ns', 'end_ns',
  'status_code', 'status_message', 'service_name', 'scope_name', 'scope_version',
  'operation_name', 'provider_name', 'agent_id', 'agent_name', 'agent_version', 'agent_description',
  'conversation_id', 'conversation_name', 'request_model', 'response_model', 'response_id', 'output_type',
  'error_type', 'server_address', 'server_port', 'tool_name', 'tool_type', 'tool_call_id', 'tool_description',
  'reasoning_content', 'compaction_summary', 'compaction_items_before', 'compaction_items_after',
  'svc_user_id', 'svc_run_id', 'svc_run_step', 'svc_run_step_end',
  'request_temperature', 'request_top_p', 'request_frequency_penalty', 'request_presence_penalty',
  'request_max_tokens', 'request_seed', 'request_choice_count',
  'input_tokens', 'output_tokens', 'reasoning_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens',
  'input_cost_usd', 'output_cost_usd', 'cache_creation_cost_usd', 'cache_read_cost_usd', 'total_cost_usd',
] as const satisfies readonly (keyof SpanRecord)[];

/** Array / map columns of `spans`, stored as JSON text; an empty one as NULL (migration 0025). */
export const JSON_COLUMNS = [
  'finish_reasons', 'request_stop_sequences', 'artifact_refs', 'content_refs', 'object_refs',
  'custom_attrs_bool', 'custom_attrs_float', 'custom_attrs_string',
] as const satisfies readonly (keyof SpanRecord)[];

/** `counted`: the counting rule's bits (set per trace by the writer) and the message bits (set by prepareSpan). */
const SPAN_COLUMNS = [...SCALAR_COLUMNS, ...JSON_COLUMNS, 'custom_attrs_int', 'counted', 'ingested_at_ms'];
const KEY = new Set(['project_id', 'trace_id', 'span_id']);
/**
 * Values of a prepared span: every spans column but ingested_at_ms, then its resource attributes
 * (JSON text) and its compressed body (sqlite/bodies.ts), then the two preview texts the
 * conversation summaries read and the span's searchable texts (the full-text index's,
 * sqlite/fts.ts) — neither stored as such.
 */
const N_SPAN = SPAN_COLUMNS.length - 1;
const COUNTED_AT = SPAN_COLUMNS.indexOf('counted');
const AGENT_AT = SPAN_COLUMNS.indexOf('agent_name');
const CONVERSATION_AT = SPAN_COLUMNS.indexOf('conversation_id');
const RESOURCE_AT = N_SPAN;
const BODY_AT = N_SPAN + 1;
const PREVIEWS_AT = N_SPAN + 2;
const SEARCH_AT = PREVIEWS_AT + 2;
/** [trace_id, span_id] of the span whose input messages this one's continue (SpanRecord.input_continues), or null. */
const BASE_AT = SEARCH_AT + 1;

/**
 * A span in storage form: the bound values of its spans row (JSON columns as text), its resource and
 * compressed body, and what the summaries and the search index read. Made by `prepareSpan`, which
 * runs on the ingest worker thread: the array of strings, numbers and buffers is far cheaper to post
 * between threads than the SpanRecord's object tree, and the compression is done there.
 */
export type PreparedSpan = unknown[];

/** Fields the summaries read from a written span (summaries/index.ts). */
const SUMMARY_FIELDS = [
  'project_id', 'trace_id', 'span_id', 'parent_span_id', 'span_name', 'start_ns', 'end_ns', 'status_code',
  'provider_name', 'agent_name', 'agent_version', 'operation_name', 'conversation_id', 'svc_user_id', 'input_tokens', 'output_tokens',
  'reasoning_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens', 'total_cost_usd', 'request_model',
  'conversation_name', 'counted',
] as const satisfies readonly (keyof SummarySpan)[];

/** Where each summary field is in a prepared row. */
const SA = Object.fromEntries(SUMMARY_FIELDS.map((f) => [f, SPAN_COLUMNS.indexOf(f)])) as Record<(typeof SUMMARY_FIELDS)[number], number>;

/**
 * The fields the summaries read from a prepared row (SUMMARY_FIELDS' order, then the previews), each
 * written by its own name: a loop over the names stored them through V8's megamorphic lookups.
 */
function summaryOf(row: PreparedSpan): SummarySpan {
  return {
    project_id: row[SA.project_id],
    trace_id: row[SA.trace_id],
    span_id: row[SA.span_id],
    parent_span_id: row[SA.parent_span_id],
    span_name: row[SA.span_name],
    start_ns: row[SA.start_ns],
    end_ns: row[SA.end_ns],
    status_code: row[SA.status_code],
    provider_name: row[SA.provider_name],
    agent_name: row[SA.agent_name],
    agent_version: row[SA.agent_version],
    operation_name: row[SA.operation_name],
    conversation_id: row[SA.conversation_id],
    svc_user_id: row[SA.svc_user_id],
    input_tokens: row[SA.input_tokens],
    output_tokens: row[SA.output_tokens],
    reasoning_tokens: row[SA.reasoning_tokens],
    cache_creation_input_tokens: row[SA.cache_creation_input_tokens],
    cache_read_input_tokens: row[SA.cache_read_input_tokens],
    total_cost_usd: row[SA.total_cost_usd],
    request_model: row[SA.request_model],
    conversation_name: row[SA.conversation_name],
    counted: row[SA.counted],
    input_preview: row[PREVIEWS_AT],
    output_preview: row[PREVIEWS_AT + 1],
  } as SummarySpan;
}
{
  const row = Array.from({ length: N_SPAN + 6 }, (_, i) => i);
  const got = Object.entries(summaryOf(row));
  const want = [...SUMMARY_FIELDS.map((f) => [f, SPAN_COLUMNS.indexOf(f)]), ['input_preview', PREVIEWS_AT], ['output_preview', PREVIEWS_AT + 1]];
  if (JSON.stringify(got) !== JSON.stringify(want)) throw new Error('ingest.ts: summaryOf is out of step with SUMMARY_FIELDS');
}

/** Columns whose values repeat from span to span of a batch (a project, a trace, a service, an agent, a model…). */
const REPEATING = new Set<string>([
  'project_id', 'trace_id', 'span_kind', 'status_code', 'service_name', 'scope_name', 'scope_version', 'operation_name',
  'provider_name', 'agent_id', 'agent_name', 'agent_version', 'agent_description', 'conversation_id', 'conversation_name',
  'request_model', 'response_model', 'output_type', 'error_type', 'server_address', 'tool_name', 'tool_type',
  'tool_description', 'svc_user_id', 'svc_run_id', 'finish_reasons',
] satisfies (keyof SpanRecord)[]);
/** Positions of a prepared row whose strings go through a packed batch's dictionary (packed-rows.ts): those columns and the resource. */
export const PACK_DICT_AT: readonly boolean[] = [...SPAN_COLUMNS.slice(0, N_SPAN).map((c) => REPEATING.has(c)), true, false, false, false, false, false];

// All spans of one ResourceSpans share its attribute object: serialize it once.
const resourceJson = new WeakMap<object, string>();
// One encoder per thread: its first bodies become its dictionary (sqlite/bodies.ts).
const bodies = new ThreadBodyEncoder();

/**
 * The scalar columns of a span into `row` (SCALAR_COLUMNS' order), each read by its own name: a loop over
 * the names read them through V8's megamorphic property lookups (issue 19 item 3). Checked against
 * SCALAR_COLUMNS when this module loads.
 */
function scalarValues(s: SpanRecord, row: unknown[]): void {
  row[0] = s.project_id; row[1] = s.trace_id; row[2] = s.span_id; row[3] = s.parent_span_id;
  row[4] = s.span_name; row[5] = s.span_kind; row[6] = s.start_ns; row[7] = s.end_ns;
  row[8] = s.status_code; row[9] = s.status_message; row[10] = s.service_name; row[11] = s.scope_name;
  row[12] = s.scope_version; row[13] = s.operation_name; row[14] = s.provider_name; row[15] = s.agent_id;
  row[16] = s.agent_name; row[17] = s.agent_version; row[18] = s.agent_description; row[19] = s.conversation_id;
  row[20] = s.conversation_name; row[21] = s.request_model; row[22] = s.response_model; row[23] = s.response_id;
  row[24] = s.output_type; row[25] = s.error_type; row[26] = s.server_address; row[27] = s.server_port;
  row[28] = s.tool_name; row[29] = s.tool_type; row[30] = s.tool_call_id; row[31] = s.tool_description;
  row[32] = s.reasoning_content; row[33] = s.compaction_summary; row[34] = s.compaction_items_before; row[35] = s.compaction_items_after;
  row[36] = s.svc_user_id; row[37] = s.svc_run_id; row[38] = s.svc_run_step; row[39] = s.svc_run_step_end;
  row[40] = s.request_temperature; row[41] = s.request_top_p; row[42] = s.request_frequency_penalty; row[43] = s.request_presence_penalty;
  row[44] = s.request_max_tokens; row[45] = s.request_seed; row[46] = s.request_choice_count; row[47] = s.input_tokens;
  row[48] = s.output_tokens; row[49] = s.reasoning_tokens; row[50] = s.cache_creation_input_tokens; row[51] = s.cache_read_input_tokens;
  row[52] = s.input_cost_usd; row[53] = s.output_cost_usd; row[54] = s.cache_creation_cost_usd; row[55] = s.cache_read_cost_usd;
  row[56] = s.total_cost_usd;
}
{
  const probe = Object.fromEntries(SCALAR_COLUMNS.map((c) => [c, c])) as unknown as SpanRecord;
  const got: unknown[] = [];
  scalarValues(probe, got);
  if (got.length !== SCALAR_COLUMNS.length || SCALAR_COLUMNS.some((c, i) => got[i] !== c)) throw new Error('ingest.ts: scalarValues is out of step with SCALAR_COLUMNS');
}

export function prepareSpan(s: SpanRecord): PreparedSpan {
  const row: unknown[] = new Array(N_SPAN + 6);
  // A continued input is stored as its base's messages (by reference) and the rest (the tail).
  const cont = s.input_continues ?? null;
  scalarValues(s, row);
  let i = SCALAR_COLUMNS.length;
  for (const c of JSON_COLUMNS) row[i++] = columnJson(s[c]);
  row[i++] = intMapColumn(s.custom_attrs_int);
  row[i++] = (s.input_messages.length ? HAS_INPUT : 0) | (s.output_messages.length ? HAS_OUTPUT : 0);
  let res = resourceJson.get(s.resource_attributes);
  if (res === undefined) resourceJson.set(s.resource_attributes, (res = JSON.stringify(s.resource_attributes, bigintReplacer)));
  row[i++] = res;
  row[i++] = bodies.encode({
    system_instructions: jsonText(s.system_instructions),
    tool_definitions: s.tool_definitions,
    tool_call_arguments: s.tool_call_arguments,
    tool_call_result: s.tool_call_result,
    input_messages: jsonText(cont ? cont.tail : s.input_messages),
    output_messages: jsonText(s.output_messages),
    events: s.events.length ? JSON.stringify(s.events, bigintReplacer) : '[]',
    links: s.links.length ? JSON.stringify(s.links, bigintReplacer) : '[]',
    raw_span_dump: s.raw_span_dump,
    input_parsed: s.input_messages,
    output_parsed: s.output_messages,
    // Already in its stored form (stripSpanObject on the ingest worker): the keys are not looked for again.
    keys: s.raw_span_stripped === true ? undefined : rawKeys(s),
    stripped: s.raw_span_stripped === true,
  });
  row[i++] = s.input_messages.length ? previewOf(s.input_messages, 'input') : null;
  row[i++] = s.output_messages.length ? previewOf(s.output_messages, 'output') : null;
  // The search index gets a continued input's earlier messages once per trace (fts.ts: a trace's
  // documents together hold the texts of all its spans), and only the tail from its other spans.
  row[i++] = searchTexts(s, cont && !cont.first_in_trace ? cont.tail : s.input_messages);
  row[i] = cont ? [cont.base_trace_id, cont.base_span_id] : null;
  return row;
}

/**
 * Sets the counting rule's bits (spans.counted) and the credited agent and conversation
 * (domain/accounting.ts: the agent_name / conversation_id columns, inheritance bits in counted) of the
 * batch's spans, trace by trace, from the batch's own spans of each trace: exact for a trace first
 * seen in this batch (an import writes whole turns); for a trace already stored, the summaries
 * recompute them over all its spans (summaries/traces.ts).
 */
function countBatch(rows: PreparedSpan[], spans: SummarySpan[]): void {
  const byTrace = new Map<string, Map<string, number[]>>();
  spans.forEach((s, i) => {
    const key = `${s.project_id}\u0000${s.trace_id}`;
    let t = byTrace.get(key);
    if (!t) byTrace.set(key, (t = new Map()));
    const at = t.get(s.span_id);
    if (at) at.push(i);
    else t.set(s.span_id, [i]);
  });
  for (const t of byTrace.values()) {
    // The last write of a span id wins, as in the upsert.
    const set = [...t.values()].map((at) => spans[at[at.length - 1]!]!);
    const counted = countedSpans(set);
    const credit = creditSpans(set);
    for (const [id, at] of t) {
      const bits = counted.get(id) ?? 0;
      const c = credit.get(id)!;
      for (const i of at) {
        const s = spans[i]!;
        s.counted |= bits | c.bits;
        s.agent_name = c.agent;
        s.conversation_id = c.conversation;
        const row = rows[i]!;
        row[COUNTED_AT] = s.counted;
        row[AGENT_AT] = c.agent;
        row[CONVERSATION_AT] = c.conversation;
      }
    }
  }
}

/**
 * New spans (the common case of an import) take a plain INSERT: OR IGNORE skips a key that exists,
 * and only then the upsert runs. Measured cheaper than one ON CONFLICT … RETURNING for every span.
 */
const INSERT_SPAN = `INSERT OR IGNORE INTO spans (${SPAN_COLUMNS.join(', ')}) VALUES (${SPAN_COLUMNS.map(() => '?').join(', ')})`;

const UPSERT_SPAN = `INSERT INTO spans (${SPAN_COLUMNS.join(', ')})
VALUES (${SPAN_COLUMNS.map(() => '?').join(', ')})
ON CONFLICT (project_id, trace_id, span_id) DO UPDATE SET
${SPAN_COLUMNS.filter((c) => !KEY.has(c)).map((c) => `${c} = excluded.${c}`).join(',\n')},
version = spans.version + 1
RETURNING id, version`;

/**
 * JSON text of an integer map. Values may be bigint (int64 attributes beyond 2^53): JSON.stringify
 * cannot write those, so the digits are written by hand and no precision is lost in the stored text.
 */
/** An int map column's value: NULL when empty (0025), else its JSON. */
function intMapColumn(m: Record<string, number | bigint>): string | null {
  for (const _ in m) return intMapJson(m);
  return null;
}

export function intMapJson(m: Record<string, number | bigint>): string {
  let out = '';
  for (const k in m) out += `${out ? ',' : ''}${JSON.stringify(k)}:${String(m[k])}`;
  return `{${out}}`;
}

export function createIngestRepo(
  db: Db,
  summaries: SummaryMaintainer = createSummaryMaintainer(db),
  search: SearchIndex = createSearchIndex(db),
): IngestRepo {
  const insertSpan = db.prepare(INSERT_SPAN);
  const bodyWriter = createBodyWriter(db);
  const upsertSpan = db.prepare<unknown[], { id: number; version: number }>(UPSERT_SPAN);
  const addValue = db.prepare(`INSERT OR IGNORE INTO project_values (project_id, field, value) VALUES (?, 'request_model', ?)`);
  // Project rows (migration 0009): new spans counted, latest start kept.
  const addToProject = db.prepare(`INSERT INTO project_summaries (project_id, span_count, last_start_ns) VALUES (?, ?, ?)
    ON CONFLICT (project_id) DO UPDATE SET span_count = span_count + excluded.span_count,
    last_start_ns = MAX(IFNULL(last_start_ns, excluded.last_start_ns), IFNULL(excluded.last_start_ns, last_start_ns))`);
  const spanArgs: unknown[] = new Array(SPAN_COLUMNS.length);
  const rowidOf = db.prepare(`SELECT id FROM spans WHERE project_id = ? AND trace_id = ? AND span_id = ?`).pluck();

  const writeBody = (rows: PreparedSpan[]): WriteResult => {
    const now = Date.now();
    let inserted = 0;
    let replaced = 0;
    const touched = new Map<string, { project_id: string; trace_id: string }>();
    const written = rows.map(summaryOf);
    countBatch(rows, written);
    const projects = new Map<string, { added: number; last: bigint | null }>();
    // Row ids of the batch's spans, for the continued inputs (a base is mostly in the same batch).
    const rowids = new Map<string, number | bigint>();
    // Each trace's first (lowest) row id among the batch's spans: a trace first seen in the batch is named by it in
    // the search index's document map (fts.ts), without a read of spans_key per trace.
    const firstRowids = new Map<string, number | bigint>();
    for (const [n, row] of rows.entries()) {
      const insertedBefore = inserted;
      for (let i = 0; i < N_SPAN; i++) spanArgs[i] = row[i];
      spanArgs[N_SPAN] = now;
      const base = row[BASE_AT] ? inputBase(row, rowids) : null;
      const fresh = insertSpan.run(spanArgs);
      let rowid: number | bigint;
      if (fresh.changes === 1) {
        inserted++;
        rowid = fresh.lastInsertRowid;
        bodyWriter.write(rowid, row[RESOURCE_AT] as string, row[BODY_AT] as EncodedBody, false, base);
      } else {
        const r = upsertSpan.get(spanArgs)!;
        if (r.version === 1) inserted++;
        else replaced++;
        rowid = r.id;
        if (base !== null && BigInt(base) === BigInt(rowid)) throw new Error(`span ${String(row[2])} of trace ${String(row[1])}: its input continues itself`);
        bodyWriter.write(rowid, row[RESOURCE_AT] as string, row[BODY_AT] as EncodedBody, true, base);
      }
      rowids.set(`${String(row[0])}\u0000${String(row[1])}\u0000${String(row[2])}`, rowid);
      const s = written[n]!;
      const key = `${s.project_id}\u0000${s.trace_id}`;
      const first = firstRowids.get(key);
      if (first === undefined || rowid < first) firstRowids.set(key, rowid);
      let p = projects.get(s.project_id);
      if (!p) projects.set(s.project_id, (p = { added: 0, last: null }));
      if (inserted > insertedBefore) p.added++;
      if (s.start_ns != null && (p.last == null || s.start_ns > p.last)) p.last = s.start_ns;
      if (!touched.has(key)) touched.set(key, { project_id: s.project_id, trace_id: s.trace_id });
    }
    // The traces first seen in this batch: every span of them is the batch's (a stored span has a trace row).
    const fresh = summaries.afterWrite(written) ?? new Map();
    for (const key of firstRowids.keys()) if (!fresh.has(key)) firstRowids.delete(key);
    search.add(written.map((s, n) => ({ project_id: s.project_id, trace_id: s.trace_id, conversation_id: s.conversation_id, texts: rows[n]![SEARCH_AT] as string[] })), firstRowids);
    // Filter choices (migration 0008): each distinct model of the batch once.
    const models = new Set<string>();
    for (const s of written) if (s.request_model) models.add(`${s.project_id}\u0000${s.request_model}`);
    for (const m of models) addValue.run(...m.split('\u0000'));
    for (const [projectId, p] of projects) addToProject.run(projectId, p.added, p.last);
    return { inserted, replaced, touched: [...touched.values()] };
  };
  const writeRows = db.transaction(writeBody);
  // A batch that fails is rolled back (and then mostly written again span by span): the body writer's
  // cached ids of rows it stored are forgotten with it.
  const write = (rows: PreparedSpan[]): WriteResult => {
    try {
      return writeRows(rows);
    } catch (e) {
      bodyWriter.forget();
      throw e;
    }
  };
  const empty = (): WriteResult => ({ inserted: 0, replaced: 0, touched: [] });

  /**
   * The row id of the span a prepared span's input continues: written earlier in the batch, or stored
   * (ingest only refers to spans of the same import, written before). Missing only when that span was
   * refused: this one cannot be stored without it.
   */
  function inputBase(row: PreparedSpan, rowids: Map<string, number | bigint>): number | bigint {
    const [traceId, spanId] = row[BASE_AT] as [string, string];
    const id = rowids.get(`${String(row[0])}\u0000${traceId}\u0000${spanId}`) ?? (rowidOf.get(row[0], traceId, spanId) as number | bigint | undefined);
    if (id === undefined) throw new Error(`its input continues span ${spanId} of trace ${traceId}, which was not stored`);
    return id;
  }

  return {
    writeBatch: (spans) => (spans.length ? write(spans.map(prepareSpan)) : empty()),
    writePrepared: (rows) => (rows.length ? write(rows) : empty()),
    // A failure here is the caller's to roll back, and its rollback calls forgetIds (write-side.ts rollbackGroup).
    writeInOpen: (rows) => (rows.length ? writeBody(rows) : empty()),
    forgetIds: () => bodyWriter.forget(),
  };
}

/** JSON text of an array or map column; empty ones (most of them) skip the serializer. */
/** An array or map column's value: NULL when empty (0025: 1 byte in the row, readers take it as empty). */
function columnJson(v: unknown[] | Record<string, unknown>): string | null {
  if (Array.isArray(v)) return v.length ? JSON.stringify(v) : null;
  for (const _ in v) return JSON.stringify(v);
  return null;
}

function jsonText(v: unknown[] | Record<string, unknown>): string {
  if (Array.isArray(v)) return v.length ? JSON.stringify(v) : '[]';
  for (const _ in v) return JSON.stringify(v);
  return '{}';
}

/** Nested attribute values may hold int64 beyond 2^53 as bigint; in nested JSON they become strings. */
function bigintReplacer(_k: string, v: unknown): unknown {
  return typeof v === 'bigint' ? v.toString() : v;
}
