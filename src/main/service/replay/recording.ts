/**
 * What a turn recorded, read for a replay (docs/replay.md "What is replayed"): its first model
 * call's request (system instructions, messages, tool definitions, settings), every tool call of the
 * turn with its recorded result, and the turn's outcome (answer, tool sequence, tokens, cost,
 * latency) for the report. Messages come normalized from the store, so every emitter the chat views
 * read replays alike; settings the normalized span does not keep (temperature, max tokens) come from
 * the span as received.
 */
import type { ServiceContext } from '../context.js';
import type { ChatSpan } from '../../domain/chat/span.js';
import { compareSpans } from '../../domain/chat/span.js';
import { outputText } from '../../domain/chat/walk.js';
import type { SpanMessage } from '../../domain/span.js';

/** Spans that are a model call by their GenAI operation. */
const MODEL_OPS = new Set(['chat', 'text_completion', 'generate_content']);

export interface RecordedToolCall {
  name: string;
  /** Arguments as the model wrote them (JSON text when it was JSON). */
  arguments: string;
  /** The recorded result text (null: the call was made, its result not recorded). */
  result: string | null;
}

export interface RecordedSettings {
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  seed?: number;
  stop?: string[];
}

export interface Recording {
  trace_id: string;
  conversation_id: string | null;
  agent_name: string | null;
  /** The model the first call asked for. */
  model: string | null;
  /** Set when this trace is itself a replay (never replayed again). */
  replay_of: string | null;
  /** The first model call's request: what the replay sends first. */
  system: string[];
  messages: SpanMessage[];
  tool_definitions: unknown[];
  settings: RecordedSettings;
  /** Every tool call of the turn with its result (tool spans and message parts). */
  tool_calls: RecordedToolCall[];
  /** Outcome, for the report. */
  model_calls: number;
  answer: string;
  tools_used: string[];
  input_tokens: number | null;
  output_tokens: number | null;
  cost_usd: number | null;
  duration_ms: number | null;
  /** When the turn started (ms since the epoch; null when no span has a time): orders a conversation's turns. */
  start_ms: number | null;
}

const isModelCall = (s: ChatSpan): boolean =>
  s.operation_name ? MODEL_OPS.has(s.operation_name) : s.input_messages.length > 0 && s.output_messages.length > 0 && !s.tool_name;

const jsonText = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v ?? null));

/** OTLP/JSON attribute list → plain values (only the scalar kinds the settings use). */
function attrsOf(raw: string): Record<string, unknown> {
  try {
    const span = JSON.parse(raw) as { attributes?: { key: string; value?: Record<string, unknown> }[] };
    const out: Record<string, unknown> = {};
    for (const a of span.attributes ?? []) {
      const v = a.value ?? {};
      if ('stringValue' in v) out[a.key] = v.stringValue;
      else if ('intValue' in v) out[a.key] = Number(v.intValue);
      else if ('doubleValue' in v) out[a.key] = Number(v.doubleValue);
      else if ('boolValue' in v) out[a.key] = v.boolValue;
      else if ('arrayValue' in v) out[a.key] = ((v.arrayValue as { values?: Record<string, unknown>[] }).values ?? []).map((x) => x.stringValue ?? x.intValue ?? x.doubleValue);
    }
    return out;
  } catch {
    return {};
  }
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function settingsOf(a: Record<string, unknown>): RecordedSettings {
  const s: RecordedSettings = {};
  const t = num(a['gen_ai.request.temperature']);
  if (t !== undefined) s.temperature = t;
  const p = num(a['gen_ai.request.top_p']);
  if (p !== undefined) s.top_p = p;
  const m = num(a['gen_ai.request.max_tokens']);
  if (m !== undefined) s.max_tokens = m;
  const seed = num(a['gen_ai.request.seed']);
  if (seed !== undefined) s.seed = seed;
  const stop = a['gen_ai.request.stop_sequences'];
  if (Array.isArray(stop) && stop.length) s.stop = stop.map(String);
  return s;
}

function parseDefinitions(text: string | null): unknown[] {
  if (!text) return [];
  try {
    const v = JSON.parse(text) as unknown;
    return Array.isArray(v) ? v : [];
  } catch {
    return [];
  }
}

/** Tool calls of the turn: tool spans first (their own arguments and result), then calls only seen as message parts. */
function toolCallsOf(spans: ChatSpan[], calls: ChatSpan[]): RecordedToolCall[] {
  const out: RecordedToolCall[] = [];
  const seen = new Set<string>();
  const responses = new Map<string, string>();
  for (const c of calls) {
    for (const m of [...c.input_messages, ...c.output_messages]) {
      for (const p of m.parts ?? []) if (p.type === 'tool_call_response' && typeof p.id === 'string') responses.set(p.id, jsonText(p.response));
    }
  }
  for (const s of spans) {
    if (!s.tool_name || isModelCall(s)) continue;
    const args = s.tool_call_arguments ?? '{}';
    const result = s.tool_call_result ?? (s.tool_call_id ? (responses.get(s.tool_call_id) ?? null) : null);
    out.push({ name: s.tool_name, arguments: args, result });
    seen.add(`${s.tool_name}\u0000${args}`);
  }
  for (const c of calls) {
    for (const m of [...c.input_messages, ...c.output_messages]) {
      for (const p of m.parts ?? []) {
        if (p.type !== 'tool_call' || typeof p.name !== 'string') continue;
        const args = typeof p.arguments === 'string' ? p.arguments : JSON.stringify(p.arguments ?? {});
        const key = `${p.name}\u0000${args}`;
        const result = typeof p.id === 'string' ? (responses.get(p.id) ?? null) : null;
        if (seen.has(key) || result === null) continue;
        seen.add(key);
        out.push({ name: p.name, arguments: args, result });
      }
    }
  }
  return out;
}

/** Tool names the turn's model calls asked for, in order. */
function toolsUsed(calls: ChatSpan[]): string[] {
  return calls.flatMap((c) => c.output_messages.flatMap((m) => (m.parts ?? []).filter((p) => p.type === 'tool_call' && typeof p.name === 'string').map((p) => p.name as string)));
}

const sumOrNull = (xs: (number | null)[]): number | null => (xs.some((x) => x != null) ? xs.reduce<number>((a, x) => a + (x ?? 0), 0) : null);

/** Reads one turn; null when the project has no such trace. */
export async function readRecording(ctx: ServiceContext, projectId: string, traceId: string, signal?: AbortSignal): Promise<Recording | null> {
  const spans = [...(await ctx.traces.traceSpans(projectId, traceId, { signal }))].sort(compareSpans);
  if (!spans.length) return null;
  const raw = await ctx.traces.exportTraceSpans(projectId, traceId, { signal });
  const attrs = new Map<string, Record<string, unknown>>();
  let replayOf: string | null = null;
  for (const r of raw) {
    const a = attrsOf(r.raw_span);
    const id = (JSON.parse(r.raw_span) as { spanId?: string }).spanId;
    if (id) attrs.set(id.toLowerCase(), a);
    if (typeof a['loupe.replay.of_trace'] === 'string') replayOf = a['loupe.replay.of_trace'];
  }
  const calls = spans.filter(isModelCall);
  const first = calls[0];
  const last = calls[calls.length - 1];
  const root = spans.find((s) => !s.parent_span_id || !spans.some((p) => p.span_id === s.parent_span_id)) ?? spans[0]!;
  const start = spans.reduce<bigint | null>((m, s) => (s.start_ns != null && (m == null || s.start_ns < m) ? s.start_ns : m), null);
  const end = spans.reduce<bigint | null>((m, s) => (s.end_ns != null && (m == null || s.end_ns > m) ? s.end_ns : m), null);
  return {
    trace_id: traceId,
    conversation_id: spans.find((s) => s.conversation_id)?.conversation_id ?? null,
    agent_name: root.agent_name ?? spans.find((s) => s.agent_name)?.agent_name ?? null,
    model: first?.request_model ?? null,
    replay_of: replayOf,
    system: first?.system_instructions ?? [],
    messages: first?.input_messages ?? [],
    tool_definitions: parseDefinitions(first?.tool_definitions ?? null),
    settings: first ? settingsOf(attrs.get(first.span_id) ?? {}) : {},
    tool_calls: toolCallsOf(spans, calls),
    model_calls: calls.length,
    answer: last ? outputText(last.output_messages) : '',
    tools_used: toolsUsed(calls),
    input_tokens: sumOrNull(calls.map((c) => c.input_tokens)),
    output_tokens: sumOrNull(calls.map((c) => c.output_tokens)),
    cost_usd: sumOrNull(calls.map((c) => c.total_cost_usd)),
    duration_ms: start != null && end != null ? Number((end - start) / 1_000_000n) : null,
    start_ms: start != null ? Number(start / 1_000_000n) : null,
  };
}
