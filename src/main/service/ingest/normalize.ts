/**
 * One OTLP span (JSON form, read leniently) → the normalized SpanRecord, through the mapping table.
 * Returns a skip reason instead when the span cannot be stored (no readable trace or span id).
 */
import type { SpanKind, SpanRecord, StatusCode } from '../../domain/span.js';
import { isoFromNs } from '../../domain/time.js';
import { TOO_DEEP_MARKER, attributes, field, int, isObj, jsonish, nestedDeeperThan, num, readEnum, readId, readTimeNs, str, strList, type Obj } from './lenient.js';
import { COLUMN_AT as C, isDroppedKey, pickColumns } from './mapping.js';
import { extractContent, type SpanEvent } from './extract.js';
import { withDialect } from './dialects.js';
import { computeCosts } from './costs.js';
import { customAttributes } from './custom.js';
import type { HistoryRead, InputHistory } from './history.js';
import { leftOutValue } from '../../domain/messages-attribute.js';
import { rawKeys, stripSpanObject } from '../../domain/raw-span.js';

export const DEFAULT_PROJECT = 'local/default';

/** What the enclosing ResourceSpans / ScopeSpans contribute to each span. */
export interface SpanContext {
  project_id: string;
  resource: Obj;
  service_name: string | null;
  scope_name: string | null;
  scope_version: string | null;
  /**
   * The import's message history (history.ts), for a store that keeps continued inputs: repeated
   * messages are parsed once, and the span says which earlier call it continues.
   */
  history?: InputHistory;
}

const KINDS = ['UNSPECIFIED', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'] as const satisfies readonly SpanKind[];
const CODES = ['UNSET', 'OK', 'ERROR'] as const satisfies readonly StatusCode[];

/** `reject`: the span is real but cannot be stored (reported with its line, not just counted). */
export type Normalized = { ok: true; span: SpanRecord } | { ok: false; reason: string; reject?: boolean };

/**
 * Times are stored as signed 64-bit nanoseconds (SQLite INTEGER). OTLP's fixed64 is unsigned, so a
 * time at or after 2^63 ns (after 2262-04-11) is legal on the wire but cannot be stored or ordered:
 * that span is rejected by name rather than failing its whole batch (issue 13.2).
 */
export const MAX_TIME_NS = 2n ** 63n - 1n;
const storable = (ns: bigint | null) => ns === null || (ns <= MAX_TIME_NS && ns >= -MAX_TIME_NS);

/** Raw dumps and attribute trees nest at most this deep (see lenient.ts MAX_ANY_VALUE_DEPTH). */
const MAX_DUMP_DEPTH = 128;

function events(list: unknown): { events: SpanEvent[]; stored: unknown[] } {
  const evs: SpanEvent[] = [];
  const stored: unknown[] = [];
  if (!Array.isArray(list)) return { events: evs, stored };
  for (const e of list) {
    if (!isObj(e)) continue;
    const name = str(e.name) ?? '';
    const attrs = attributes(e.attributes);
    const t = readTimeNs(field(e, 'timeUnixNano', 'time_unix_nano'));
    evs.push({ name, attributes: attrs });
    stored.push({ name, time: t === null || !storable(t) ? null : isoFromNs(t), attributes: attrs });
  }
  return { events: evs, stored };
}

function links(list: unknown): unknown[] {
  if (!Array.isArray(list)) return [];
  return list.filter(isObj).map((l) => ({
    trace_id: readId(field(l, 'traceId', 'trace_id'), 16),
    span_id: readId(field(l, 'spanId', 'span_id'), 8),
    attributes: attributes(l.attributes),
  }));
}

/** Generic value carriers of tool spans, in order: OpenInference, Langfuse, OpenLLMetry, OpenAI Agents (Logfire), LangSmith (OTel mode). */
const TOOL_INPUTS = ['input.value', 'langfuse.observation.input', 'traceloop.entity.input', 'input', 'gen_ai.prompt'];
/** … and any-agent's `gen_ai.output` (`None` there: the tool returned nothing). */
const TOOL_OUTPUTS = ['output.value', 'langfuse.observation.output', 'traceloop.entity.output', 'output', 'gen_ai.completion', 'gen_ai.output'];

/** Operations named by a span-name prefix when no attribute names one. */
const NAME_OPS = /^(invoke_agent|execute_tool|chat|create_agent|embeddings|text_completion|generate_content)(?:\s|$)/;
/** Attributes that mark a Pydantic AI agent run (older versions set no operation name). */
const AGENT_RUN_KEYS = ['pydantic_ai.all_messages', 'all_messages_events', 'final_result'];

/**
 * The operation: the mapping table's, else the span-name prefix, else Google ADK's `call_llm`,
 * else what the attributes show (an agent run's history, a tool name on an otherwise plain span).
 */
function operationOf(a: Obj, name: string, mapped: string | null, toolName: string | null): string | null {
  if (mapped) return mapped;
  const m = NAME_OPS.exec(name);
  if (m) return m[1]!;
  if (name === 'call_llm') return 'chat';
  // OpenAI Agents SDK spans as Logfire names them ('Agent run: {name!r}', 'Function: {name}', ...).
  if (name.startsWith('Agent run')) return 'invoke_agent';
  if (name.startsWith('Function: ')) return 'execute_tool';
  // A handoff: the conversation passes from the agent running to another one (`to_agent`).
  if (name.startsWith('Handoff: ') && a.to_agent != null) return 'handoff';
  if (/^(Chat completion|Responses API) with/.test(name)) return 'chat';
  if (AGENT_RUN_KEYS.some((k) => a[k] != null)) return 'invoke_agent';
  if (toolName) return 'execute_tool';
  if (name.startsWith('ai.toolCall')) return 'execute_tool';
  return null;
}

/** OpenAI Agents SDK (Logfire): `error` = JSON `{message, data}` on a failed span. */
function errorAttrMessage(v: unknown): string | null {
  const j = jsonish(v);
  return isObj(j) ? str(j.message) : null;
}

/** `code.function.parameters.<name>.value` attributes as one arguments object, or null. */
function codeFunctionArgs(a: Obj): Obj | null {
  let out: Obj | null = null;
  for (const k in a) {
    const m = /^code\.function\.parameters\.(.+)\.value$/.exec(k);
    if (m) (out ??= {})[m[1]!] = a[k];
  }
  return out;
}

/** Error type and message from an `exception` span event (or Langfuse's status message). */
function exceptionOf(events: SpanEvent[], a: Obj): { type: string | null; message: string | null } {
  const e = events.find((x) => x.name === 'exception');
  return {
    type: e ? str(e.attributes['exception.type']) : null,
    message: (e ? str(e.attributes['exception.message']) : null) ?? str(a['langfuse.observation.status_message']) ?? errorAttrMessage(a.error),
  };
}

const suffixAfter = (name: string, prefix: string): string | null => (name.startsWith(prefix) ? name.slice(prefix.length).trim() || null : null);

/**
 * What makes a span storable at all — its ids, its times in range — checked first by normalizeSpan,
 * and alone by the OTLP spool's check of a large body (spool.ts: the answer's skipped spans without
 * the cost of normalizing them).
 */
export function admitSpan(s: Obj): { ok: true; trace_id: string; span_id: string; start_ns: bigint | null; end_ns: bigint | null } | Extract<Normalized, { ok: false }> {
  const trace_id = readId(field(s, 'traceId', 'trace_id'), 16);
  if (!trace_id) return { ok: false, reason: 'missing or invalid trace_id' };
  const span_id = readId(field(s, 'spanId', 'span_id'), 8);
  if (!span_id) return { ok: false, reason: 'missing or invalid span_id' };
  const start_ns = readTimeNs(field(s, 'startTimeUnixNano', 'start_time_unix_nano'));
  const end_ns = readTimeNs(field(s, 'endTimeUnixNano', 'end_time_unix_nano'));
  if (!storable(start_ns)) return { ok: false, reject: true, reason: 'start_time_unix_nano out of range (at or after 2^63 ns, i.e. after 2262-04-11)' };
  if (!storable(end_ns)) return { ok: false, reject: true, reason: 'end_time_unix_nano out of range (at or after 2^63 ns, i.e. after 2262-04-11)' };
  return { ok: true, trace_id, span_id, start_ns, end_ns };
}

export function normalizeSpan(s: Obj, ctx: SpanContext, rawDump?: string): Normalized {
  const admitted = admitSpan(s);
  if (!admitted.ok) return admitted;
  const { trace_id, span_id, start_ns, end_ns } = admitted;
  const ev = events(s.events);
  const name = str(s.name) ?? '';
  // Emitters with keys of their own get the standard keys added first (dialects.ts).
  const a = withDialect(attributes(s.attributes), name, ctx.scope_name, ev.events);
  const m = pickColumns(a);
  const pick = (col: number): unknown => m[col] ?? null;
  const status = isObj(s.status) ? s.status : {};

  const operation = operationOf(a, name, pick(C.operation_name) as string | null, str(pick(C.tool_name)));
  let agent_name = str(pick(C.agent_name));
  if (!agent_name) agent_name = suffixAfter(name, 'invoke_agent ');
  // OpenAI Agents SDK (Logfire) names the agent / function in a plain `name` attribute.
  const plainName = typeof a.name === 'string' && a.name ? a.name : null;
  if (!agent_name && operation === 'invoke_agent') agent_name = plainName;
  // A handoff span names the agent taking over (as `invoke_agent X` names the agent invoked); the
  // agent handing over is the one whose run encloses it (its `from_agent`).
  if (!agent_name && operation === 'handoff') agent_name = str(a.to_agent);
  // Langfuse agent observations and OpenInference AGENT spans are named after their agent.
  if (!agent_name && operation === 'invoke_agent' && name && (a['langfuse.observation.type'] != null || a['openinference.span.kind'] != null)) agent_name = name;
  let tool_name = str(pick(C.tool_name)) ?? (operation === 'execute_tool' ? plainName : null);
  // A tool span named for its tool (OpenInference TOOL, Langfuse tool observations, `execute_tool X`).
  if (!tool_name && operation === 'execute_tool') tool_name = suffixAfter(name, 'execute_tool ') ?? (name && name !== 'execute_tool' ? name : null);
  let toolArgs = pick(C.tool_call_arguments);
  let toolResult = pick(C.tool_call_result);
  const isTool = operation === 'execute_tool';
  if (isTool) {
    // Tool spans carry arguments and result as their generic input / output values.
    for (const k of TOOL_INPUTS) toolArgs ??= a[k] ?? null;
    for (const k of TOOL_OUTPUTS) toolResult ??= a[k] === 'None' ? null : (a[k] ?? null);
    // OpenTelemetry's GenAI tool wrappers (google-genai) record each argument as code.function.parameters.<name>.value.
    toolArgs ??= codeFunctionArgs(a);
    toolResult ??= a['code.function.return.value'] ?? null;
  }

  // A holder, not a `let`: the closure's assignment is invisible to the narrowing below.
  const got: { read: HistoryRead | null } = { read: null };
  const history = ctx.history;
  const readInput = history
    ? (v: unknown) => {
        if (typeof v !== 'string') return null;
        // One history per conversation (else trace) and agent: interleaved agents each continue their own calls.
        const scope = `${ctx.project_id}\u0000${str(pick(C.conversation_id)) ?? trace_id}\u0000${str(pick(C.agent_name)) ?? ''}`;
        const read = (got.read = history.read(scope, v, { trace_id, span_id }));
        return read.messages.length ? read.messages : null;
      }
    : undefined;
  const content = extractContent(a, ev.events, { valueCarriers: !isTool, plainInputOutput: operation === 'chat', readInput });
  // The history's reading is what the span keeps (no other carrier replaced it): its continuation holds.
  const kept = got.read !== null && content.input === got.read.messages ? got.read : null;
  if (isTool) {
    // Event-form tool spans (Strands: gen_ai.tool.message in, gen_ai.choice out).
    toolArgs ??= content.input.length ? content.input.map((m) => m.content).join('\n') || null : null;
    toolResult ??= content.output.length ? content.output.map((m) => m.content).join('\n') || null : null;
  }
  const provider_name = str(pick(C.provider_name));
  const request_model = str(pick(C.request_model));
  const response_model = str(pick(C.response_model));
  const usage = {
    input_tokens: int(pick(C.input_tokens)),
    output_tokens: int(pick(C.output_tokens)),
    cache_read_input_tokens: int(pick(C.cache_read_input_tokens)),
    cache_creation_input_tokens: int(pick(C.cache_creation_input_tokens)),
  };
  const carried = num(pick(C.total_cost_usd));
  const costs =
    carried !== null
      ? {
          total_cost_usd: carried,
          input_cost_usd: num(pick(C.input_cost_usd)),
          output_cost_usd: num(pick(C.output_cost_usd)),
          cache_read_cost_usd: num(pick(C.cache_read_cost_usd)),
          cache_creation_cost_usd: num(pick(C.cache_creation_cost_usd)),
        }
      : computeCosts(usage, response_model, request_model, provider_name);

  let reasoning = str(pick(C.reasoning_content));
  if (!reasoning) {
    const r = content.output.flatMap((m) => m.parts.filter((p) => p.type === 'reasoning').map((p) => p.content ?? ''));
    if (r.length) reasoning = r.join('\n');
  }
  const custom = customAttributes(a);
  const failure = exceptionOf(ev.events, a);
  let statusCode = readEnum(status.code, 'STATUS_CODE_', CODES, 'UNSET');
  // Emitters that mark failure outside the OTel status: Langfuse's level, Logfire's level number (17 = error).
  if (statusCode === 'UNSET' && ((str(a['langfuse.observation.level']) ?? '').toUpperCase() === 'ERROR' || (num(a['logfire.level_num']) ?? 0) >= 17)) statusCode = 'ERROR';
  // The OTel spec's status as attributes (`otel.status_code` / `otel.status_description`, for formats without a
  // status field: Zipkin, Jaeger), which a dialect also sets for an emitter that records failure in attributes
  // of its own (BeeAI Python's `exception.*` on an OK span).
  const tagged = (str(a['otel.status_code']) ?? '').toUpperCase() === 'ERROR';
  if (tagged) statusCode = 'ERROR';
  const rawFinish = pick(C.finish_reasons);
  const finish_reasons = rawFinish !== null ? strList(rawFinish) : content.output.map((m) => m.finish_reason).filter(Boolean);

  const span: SpanRecord = {
    project_id: ctx.project_id,
    trace_id,
    span_id,
    parent_span_id: readId(field(s, 'parentSpanId', 'parent_span_id'), 8),
    span_name: name,
    span_kind: readEnum(s.kind, 'SPAN_KIND_', KINDS, 'UNSPECIFIED'),
    start_ns,
    end_ns,
    status_code: statusCode,
    status_message: str(status.message) ?? failure.message ?? (tagged ? str(a['otel.status_description']) : null),
    service_name: ctx.service_name,
    scope_name: ctx.scope_name,
    scope_version: ctx.scope_version,
    operation_name: operation,
    provider_name,
    agent_id: str(pick(C.agent_id)),
    agent_name,
    agent_version: str(pick(C.agent_version)),
    agent_description: str(pick(C.agent_description)),
    conversation_id: str(pick(C.conversation_id)),
    conversation_name: str(pick(C.conversation_name)),
    request_model,
    response_model,
    response_id: str(pick(C.response_id)),
    output_type: str(pick(C.output_type)),
    error_type: str(pick(C.error_type)) ?? failure.type,
    server_address: str(pick(C.server_address)),
    server_port: int(pick(C.server_port)),
    tool_name,
    tool_type: str(pick(C.tool_type)),
    tool_call_id: str(pick(C.tool_call_id)),
    tool_description: str(pick(C.tool_description)),
    reasoning_content: reasoning,
    compaction_summary: str(pick(C.compaction_summary)),
    compaction_items_before: int(pick(C.compaction_items_before)),
    compaction_items_after: int(pick(C.compaction_items_after)),
    svc_user_id: str(pick(C.svc_user_id)),
    svc_run_id: str(pick(C.svc_run_id)),
    svc_run_step: int(pick(C.svc_run_step)),
    svc_run_step_end: int(pick(C.svc_run_step_end)),
    request_temperature: num(pick(C.request_temperature)),
    request_top_p: num(pick(C.request_top_p)),
    request_frequency_penalty: num(pick(C.request_frequency_penalty)),
    request_presence_penalty: num(pick(C.request_presence_penalty)),
    request_max_tokens: int(pick(C.request_max_tokens)),
    request_seed: int(pick(C.request_seed)),
    request_choice_count: int(pick(C.request_choice_count)),
    ...usage,
    reasoning_tokens: int(pick(C.reasoning_tokens)),
    ...costs,
    finish_reasons,
    request_stop_sequences: strList(pick(C.request_stop_sequences)),
    artifact_refs: strList(pick(C.artifact_refs)),
    content_refs: strList(pick(C.content_refs)),
    object_refs: strList(pick(C.object_refs)),
    custom_attrs_bool: custom.custom_attrs_bool,
    custom_attrs_int: custom.custom_attrs_int,
    custom_attrs_float: custom.custom_attrs_float,
    custom_attrs_string: custom.custom_attrs_string,
    system_instructions: content.system,
    tool_definitions: content.toolDefinitions,
    tool_call_arguments: textOf(toolArgs),
    tool_call_result: textOf(toolResult),
    input_messages: content.input,
    output_messages: content.output,
    resource_attributes: ctx.resource,
    events: ev.stored,
    links: links(s.links),
    raw_span_dump: rawDump ?? '',
  };
  if (rawDump === undefined) {
    const received = leaveOutInput(custom.dropped ? withoutDropped(s) : s, kept);
    // A store that keeps continued inputs (SQLite) gets the raw span in its stored form at once, made from
    // the parsed span (domain/raw-span.ts stripSpanObject) instead of printed and then scanned by the store.
    const stored = history ? stripSpanObject(received, rawKeys(span), span, MAX_DUMP_DEPTH) : null;
    if (stored !== null) {
      span.raw_span_dump = stored;
      span.raw_span_stripped = true;
    } else span.raw_span_dump = dumpSpan(received);
  }
  if (kept?.continues) span.input_continues = kept.continues;
  return { ok: true, span };
}

/**
 * The span as received, as JSON. A span nested deeper than MAX_DUMP_DEPTH (thousands of kvlist
 * levels overflow JSON.stringify's stack) is dumped with the deep parts replaced by a marker, the
 * same marker its attributes carry (lenient.ts), so the span is still stored.
 */
function dumpSpan(s: Obj): string {
  return JSON.stringify(nestedDeeperThan(s, MAX_DUMP_DEPTH) ? prune(s, MAX_DUMP_DEPTH) : s);
}

function prune(v: unknown, depth: number): unknown {
  if (typeof v !== 'object' || v === null) return v;
  if (depth <= 0) return TOO_DEEP_MARKER;
  if (Array.isArray(v)) return v.map((x) => prune(x, depth - 1));
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, prune(x, depth - 1)]));
}

/**
 * The span with its `gen_ai.input.messages` attribute left out (the store puts the text back from the
 * messages it keeps), when the history read it exactly and the attribute is in its canonical form
 * (`{"key":…,"value":{"stringValue":…}}`, once): a continued input's text is never printed again.
 */
function leaveOutInput(s: Obj, read: HistoryRead | null): Obj {
  if (!read?.exact || !Array.isArray(s.attributes)) return s;
  let at = -1;
  for (let i = 0; i < s.attributes.length; i++) {
    const kv = s.attributes[i] as unknown;
    if (!isObj(kv) || kv.key !== 'gen_ai.input.messages') continue;
    if (at >= 0) return s;
    at = i;
  }
  if (at < 0) return s; // the text came from another key (dialects.ts)
  const kv = s.attributes[at] as Obj;
  const keys = Object.keys(kv);
  if (keys.length !== 2 || keys[0] !== 'key' || keys[1] !== 'value' || !isObj(kv.value)) return s;
  const vkeys = Object.keys(kv.value);
  if (vkeys.length !== 1 || vkeys[0] !== 'stringValue') return s;
  const attributes = s.attributes.slice();
  attributes[at] = { key: kv.key, value: leftOutValue('input_messages') };
  return { ...s, attributes };
}

/** The span without credential attributes, for the raw dump. */
function withoutDropped(s: Obj): Obj {
  const attrs = Array.isArray(s.attributes) ? s.attributes.filter((kv) => !(isObj(kv) && typeof kv.key === 'string' && isDroppedKey(kv.key))) : s.attributes;
  return { ...s, attributes: attrs };
}

/** Tool arguments / results as text: strings kept verbatim, structures as JSON. */
function textOf(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  return typeof v === 'string' ? v : str(jsonish(v));
}
