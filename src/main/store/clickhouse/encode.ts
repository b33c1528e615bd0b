/**
 * Spans in the ClickHouse adapter's storage form: one JSONEachRow line for the narrow `spans` table,
 * one for the `span_payloads` table, and the span's resource (stored once per distinct resource).
 * Runs on the ingest worker thread (EncodedBatch) or inline; the result is plain strings, cheap to
 * post between threads. The row version (the write's stamp) is added by the writer when it inserts.
 *
 * JSON is written by hand for the columns that carry 64-bit integers: nanosecond times and int
 * attributes may exceed 2^53 (bigint) and JSON.stringify cannot write those exactly.
 */
import { createHash } from 'node:crypto';
import type { SpanMessage, SpanRecord } from '../../domain/span.js';
import { messagesPreview } from '../../domain/previews.js';
import { countedSpans } from '../../domain/chat/tree.js';
import { creditSpans, type Credit } from '../../domain/accounting.js';

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
  /** JSONEachRow lines of `spans`, each starting right after its opening brace (the writer prepends the version). */
  spans: string[];
  payloads: string[];
  resources: EncodedResource[];
  /** Key and partition of each span, in batch order: [project_id, trace_id, span_id, day]. */
  keys: [string, string, string, string][];
}

const DAY_NS = 86_400_000_000_000n;

/** UTC day of a start time (spans without one go to 1970-01-01): the partition of both span tables. */
export function dayOf(startNs: bigint | null): string {
  if (startNs == null) return '1970-01-01';
  const day = startNs >= 0n ? startNs / DAY_NS : (startNs - DAY_NS + 1n) / DAY_NS;
  return new Date(Number(day) * 86_400_000).toISOString().slice(0, 10);
}

const q = JSON.stringify;
const num = (v: number | bigint | null): string => (v == null ? 'null' : typeof v === 'bigint' ? v.toString() : Number.isFinite(v) ? String(v) : 'null');
const bigintSafe = (_k: string, v: unknown) => (typeof v === 'bigint' ? v.toString() : v);

/** First user text of a span's input (the conversation preview's candidate), cut like every preview. */
export function inputPreview(messages: SpanMessage[]): string | null {
  return messagesPreview(messages, 'input');
}

/** Non-user output texts joined by a blank line, cut; null when there is none. */
export function outputPreview(messages: SpanMessage[]): string | null {
  return messagesPreview(messages, 'output');
}

function keysValues(m: Record<string, unknown>, write: (v: unknown) => string): [string, string] {
  const keys: string[] = [];
  const values: string[] = [];
  for (const k in m) {
    keys.push(q(k));
    values.push(write(m[k]));
  }
  return [`[${keys.join(',')}]`, `[${values.join(',')}]`];
}

// All spans of one ResourceSpans share one attributes object: hash and serialize it once.
const resourceCache = new WeakMap<object, { text: string; hash: string }>();

function resourceOf(s: SpanRecord): EncodedResource {
  let r = resourceCache.get(s.resource_attributes);
  if (!r) {
    const text = JSON.stringify(s.resource_attributes, bigintSafe);
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

export function encodeSpans(spans: readonly SpanRecord[]): EncodedSpans {
  const out: EncodedSpans = { spans: [], payloads: [], resources: [], keys: [] };
  const seen = new Set<string>();
  const { counted, credit } = countBatch(spans);
  for (const s of spans) {
    const skey = `${s.project_id}\u0000${s.trace_id}\u0000${s.span_id}`;
    const c = credit.get(skey)!;
    const day = dayOf(s.start_ns);
    const res = resourceOf(s);
    const rk = `${res.project_id}\u0000${res.resource_id}`;
    if (!seen.has(rk)) {
      seen.add(rk);
      out.resources.push(res);
    }
    const key = `"day":"${day}","project_id":${q(s.project_id)},"trace_id":${q(s.trace_id)},"span_id":${q(s.span_id)}`;
    let row = `${key},"start_ns":${num(s.start_ns)},"end_ns":${num(s.end_ns)},"resource_id":"${res.resource_id}"`;
    for (const col of SPAN_SCALARS) {
      // The analytic agent / conversation columns hold the credited values (the span's own when it has one).
      const v = col === 'agent_name' ? c.agent : col === 'conversation_id' ? c.conversation : s[col];
      row += `,"${col}":${typeof v === 'string' ? q(v) : num(v)}`;
    }
    for (const c of SPAN_ARRAYS) row += `,"${c}":${s[c].length ? q(s[c]) : '[]'}`;
    const [sk, sv] = keysValues(s.custom_attrs_string, (v) => q(v));
    const [ik, iv] = keysValues(s.custom_attrs_int, (v) => num(v as number | bigint));
    const [fk, fv] = keysValues(s.custom_attrs_float, (v) => num(v as number));
    const [bk, bv] = keysValues(s.custom_attrs_bool, (v) => (v ? '1' : '0'));
    row += `,"str_keys":${sk},"str_values":${sv},"int_keys":${ik},"int_values":${iv},"float_keys":${fk},"float_values":${fv},"bool_keys":${bk},"bool_values":${bv}`;
    row += `,"tool_definitions":${q(s.tool_definitions)},"tool_call_arguments":${q(s.tool_call_arguments)},"tool_call_result":${q(s.tool_call_result)}`;
    row += `,"counted":${(counted.get(skey) ?? 0) | c.bits},"has_input":${s.input_messages.length ? 1 : 0},"input_preview":${q(inputPreview(s.input_messages))}`;
    row += `,"has_output":${s.output_messages.length ? 1 : 0},"output_preview":${q(outputPreview(s.output_messages))}`;
    out.spans.push(`${row},"deleted":0}`);

    out.payloads.push(
      `${key},"system_instructions":${q(s.system_instructions.length ? q(s.system_instructions) : '[]')}` +
        `,"input_messages":${q(q(s.input_messages, bigintSafe))},"output_messages":${q(q(s.output_messages, bigintSafe))}` +
        `,"events":${q(s.events.length ? JSON.stringify(s.events, bigintSafe) : '[]')},"links":${q(s.links.length ? JSON.stringify(s.links, bigintSafe) : '[]')}` +
        `,"raw_span":${q(s.raw_span_dump)},"deleted":0}`,
    );
    out.keys.push([s.project_id, s.trace_id, s.span_id, day]);
  }
  return out;
}
