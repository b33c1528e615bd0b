/**
 * Concise builder of OTLP/JSON trace requests for tests. Attributes are plain objects; the builder
 * writes the AnyValue wire form (integers as intValue strings, other numbers as doubleValue, arrays
 * as arrayValue, objects as kvlistValue). Times are milliseconds from the trace's start.
 *
 *   const t = traceBuilder({ start: '2026-11-22T10:00:00Z', resource: { 'service.name': 'shop' } });
 *   const root = t.span('invoke_agent support', { durationMs: 900, attributes: { 'gen_ai.operation.name': 'invoke_agent' } });
 *   t.span('chat gpt-4o-mini', { parent: root, at: 10, durationMs: 300, attributes: chatAttributes({ ... }) });
 *   await importBuffer(store, Buffer.from(JSON.stringify(t.request())), { contentType: 'application/json' });
 */
import { createHash } from 'node:crypto';
import { importBuffer } from '../../src/main/service/ingest/index.js';
import { walkRequest } from '../../src/main/service/ingest/otlp.js';
import type { SpanRecord } from '../../src/main/domain/span.js';
import type { TraceStore } from '../../src/main/store/ports.js';

export type AttrValue = string | number | boolean | bigint | null | AttrValue[] | { [k: string]: AttrValue };
export type Attrs = Record<string, AttrValue | undefined>;

export interface SpanHandle {
  traceId: string;
  spanId: string;
}

export interface SpanOptions {
  /** Parent span (handle or hex span id); omitted = a root span. */
  parent?: SpanHandle | string;
  /** Start, in ms after the trace's start (default 0). */
  at?: number;
  /** Duration in ms (default 100). `null` leaves the span open (no end time). */
  durationMs?: number | null;
  attributes?: Attrs;
  status?: 'UNSET' | 'OK' | 'ERROR' | { code: 'UNSET' | 'OK' | 'ERROR'; message?: string };
  kind?: 'INTERNAL' | 'SERVER' | 'CLIENT' | 'PRODUCER' | 'CONSUMER';
  events?: { name: string; at?: number; attributes?: Attrs }[];
  /** Explicit span id (16 hex); default derived from the trace seed and span count. */
  spanId?: string;
}

export interface TraceOptions {
  /** ISO start of the trace or epoch ms (default 2026-11-22T10:00:00Z). */
  start?: string | number;
  /** Explicit trace id (32 hex); default derived from `seed`. */
  traceId?: string;
  /** Seed for deterministic ids (default: a counter). */
  seed?: string;
  resource?: Attrs;
  scope?: { name: string; version?: string };
}

const KIND_NUM = { INTERNAL: 1, SERVER: 2, CLIENT: 3, PRODUCER: 4, CONSUMER: 5 } as const;
const CODE_NUM = { UNSET: 0, OK: 1, ERROR: 2 } as const;
let seedCounter = 0;

export const hexId = (seed: string, bytes: 8 | 16): string => createHash('sha256').update(seed).digest('hex').slice(0, bytes * 2);

export function anyValue(v: AttrValue): Record<string, unknown> {
  if (v === null) return {};
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (typeof v === 'bigint') return { intValue: v.toString() };
  if (typeof v === 'number') return Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
  if (Array.isArray(v)) return { arrayValue: { values: v.map(anyValue) } };
  return { kvlistValue: { values: keyValues(v) } };
}

export function keyValues(attrs: Attrs): { key: string; value: Record<string, unknown> }[] {
  return Object.entries(attrs)
    .filter((e): e is [string, AttrValue] => e[1] !== undefined)
    .map(([key, value]) => ({ key, value: anyValue(value) }));
}

const nsString = (ms: number): string => (BigInt(Math.round(ms * 1000)) * 1000n).toString();

export function traceBuilder(opts: TraceOptions = {}) {
  const seed = opts.seed ?? `trace-${++seedCounter}`;
  const traceId = opts.traceId ?? hexId(seed, 16);
  const startMs = typeof opts.start === 'number' ? opts.start : Date.parse(opts.start ?? '2026-11-22T10:00:00Z');
  const spans: Record<string, unknown>[] = [];

  function span(name: string, o: SpanOptions = {}): SpanHandle {
    const spanId = o.spanId ?? hexId(`${seed}/${spans.length}`, 8);
    const begin = startMs + (o.at ?? 0);
    const status = typeof o.status === 'string' ? { code: o.status } : o.status;
    spans.push({
      traceId,
      spanId,
      ...(o.parent ? { parentSpanId: typeof o.parent === 'string' ? o.parent : o.parent.spanId } : {}),
      name,
      kind: KIND_NUM[o.kind ?? 'INTERNAL'],
      startTimeUnixNano: nsString(begin),
      ...(o.durationMs === null ? {} : { endTimeUnixNano: nsString(begin + (o.durationMs ?? 100)) }),
      attributes: keyValues(o.attributes ?? {}),
      events: (o.events ?? []).map((e) => ({ name: e.name, timeUnixNano: nsString(begin + (e.at ?? 0)), attributes: keyValues(e.attributes ?? {}) })),
      status: status ? { code: CODE_NUM[status.code], ...(status.message ? { message: status.message } : {}) } : {},
    });
    return { traceId, spanId };
  }

  return {
    traceId,
    span,
    /** The spans as OTLP JSON objects (to combine several traces in one request). */
    spans: () => spans,
    /** A whole ExportTraceServiceRequest holding this trace. */
    request: () => otlpRequest(spans, { resource: opts.resource, scope: opts.scope }),
  };
}

/** An ExportTraceServiceRequest around OTLP JSON spans. */
export function otlpRequest(spans: Record<string, unknown>[], o: { resource?: Attrs; scope?: { name: string; version?: string } } = {}) {
  return {
    resourceSpans: [
      {
        resource: { attributes: keyValues(o.resource ?? { 'service.name': 'test' }) },
        scopeSpans: [{ scope: o.scope ?? { name: 'loupe-test' }, spans }],
      },
    ],
  };
}

export type Msg = { role: string; content?: string; toolCalls?: { id: string; name: string; arguments: unknown }[]; finish_reason?: string };

/** OTel GenAI parts JSON (gen_ai.input.messages / gen_ai.output.messages) from simple messages. */
export function messagesJson(msgs: Msg[]): string {
  return JSON.stringify(
    msgs.map((m) => ({
      role: m.role,
      parts: [
        ...(m.content !== undefined ? [{ type: 'text', content: m.content }] : []),
        ...(m.toolCalls ?? []).map((c) => ({ type: 'tool_call', id: c.id, name: c.name, arguments: c.arguments })),
      ],
      ...(m.finish_reason ? { finish_reason: m.finish_reason } : {}),
    })),
  );
}

/** Attributes of a current-OTel GenAI chat span. */
export function chatAttributes(o: {
  model: string;
  provider?: string;
  input?: Msg[];
  output?: Msg[];
  inputTokens?: number;
  outputTokens?: number;
  conversationId?: string;
  agentName?: string;
  extra?: Attrs;
}): Attrs {
  return {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': o.provider ?? 'openai',
    'gen_ai.request.model': o.model,
    'gen_ai.response.model': o.model,
    'gen_ai.conversation.id': o.conversationId,
    'gen_ai.agent.name': o.agentName,
    'gen_ai.input.messages': o.input ? messagesJson(o.input) : undefined,
    'gen_ai.output.messages': o.output ? messagesJson(o.output) : undefined,
    'gen_ai.usage.input_tokens': o.inputTokens,
    'gen_ai.usage.output_tokens': o.outputTokens,
    ...o.extra,
  };
}

/** JSONL text (collector file exporter style) of several requests. */
export const jsonl = (requests: unknown[]): string => requests.map((r) => JSON.stringify(r)).join('\n') + '\n';

/**
 * Imports one OTLP JSON request into a project through the same ingest path stock exporters use,
 * and fails loudly unless every span of it was stored (a test must never read half its data).
 */
export async function importRequest(store: { traces: TraceStore }, projectId: string, request: ReturnType<typeof otlpRequest>) {
  const sent = request.resourceSpans.reduce((n, rs) => n + rs.scopeSpans.reduce((m, ss) => m + ss.spans.length, 0), 0);
  const report = await importBuffer(store.traces, Buffer.from(JSON.stringify(request)), { contentType: 'application/json', projectId });
  if (report.error_count || report.spans_imported + report.spans_replaced !== sent) throw new Error(`import: ${JSON.stringify(report)}`);
  return report;
}

/** One span built from plain attributes, normalized by the importer's own walk (no store). */
export function normalizedSpan(name: string, attributes: Attrs, o: Omit<SpanOptions, 'attributes'> = {}): SpanRecord {
  const t = traceBuilder();
  t.span(name, { ...o, attributes });
  const out: SpanRecord[] = [];
  walkRequest(t.request(), undefined, { span: (s) => out.push(s), skip: (r) => { throw new Error(r); } });
  return out[0]!;
}

/** Filler prompt text of ~1.9 KB (the WAL test and bench: a span about the size the issue measured). */
const PROMPT_TEXT = 'The assistant read the ticket, looked up the order and wrote back. '.repeat(28);

/** Chat span number `n` of ~2 KB: ten spans per trace (trace ids prefixed by `tracePrefix`, 4 hex), fifty per conversation. */
export function chatSpan2k(n: number, tracePrefix = '', conversationPrefix = '') {
  return {
    traceId: `${tracePrefix}${(Math.floor(n / 10) + 1).toString(16).padStart(32 - tracePrefix.length, '0')}`,
    spanId: (n + 1).toString(16).padStart(16, '0'),
    name: 'chat gpt-4o',
    startTimeUnixNano: String(1_763_800_000_000_000_000n + BigInt(n) * 1_000_000n),
    endTimeUnixNano: String(1_763_800_000_000_000_000n + BigInt(n) * 1_000_000n + 500_000n),
    attributes: [
      { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
      { key: 'gen_ai.request.model', value: { stringValue: 'gpt-4o' } },
      { key: 'gen_ai.conversation.id', value: { stringValue: `${conversationPrefix}c${Math.floor(n / 50)}` } },
      { key: 'gen_ai.prompt', value: { stringValue: `${n}: ${PROMPT_TEXT}` } },
    ],
  };
}
