/**
 * A tiny OTLP/JSON builder for the analytics tests: spans described by what matters to the rules
 * (agent, operation, conversation, times, usage, custom attributes, messages), imported through
 * the real ingest path (importBuffer), so every test reads data exactly as users' files land.
 */
import { importRequest, keyValues, messagesJson, otlpRequest } from './otlp.js';
import type { TraceStore } from '../../src/main/store/ports.js';

export interface SpanSpec {
  trace: number | string;
  span: number | string;
  parent?: number | string;
  name?: string;
  /** Milliseconds after BASE_MS. */
  start: number;
  end?: number | null;
  agent?: string;
  op?: string;
  conversation?: string;
  status?: 'OK' | 'ERROR';
  input_tokens?: number;
  output_tokens?: number;
  model?: string;
  cost?: number;
  attrs?: Record<string, string | number | boolean>;
  input?: { role: string; content: string }[];
  output?: { role: string; content: string }[];
}

export const BASE_MS = Date.UTC(2026, 10, 1, 12, 0, 0);
export const traceHex = (t: number | string) => (typeof t === 'number' ? t.toString(16).padStart(32, '0') : t);
export const spanHex = (s: number | string) => (typeof s === 'number' ? s.toString(16).padStart(16, '0') : s);
const ns = (ms: number) => (BigInt(Math.round(ms * 1000)) * 1000n + BigInt(BASE_MS) * 1_000_000n).toString();

function otlpSpan(s: SpanSpec) {
  const attrs: Record<string, string | number | boolean> = { ...(s.attrs ?? {}) };
  if (s.agent) attrs['gen_ai.agent.name'] = s.agent;
  if (s.op) attrs['gen_ai.operation.name'] = s.op;
  if (s.conversation) attrs['gen_ai.conversation.id'] = s.conversation;
  if (s.input_tokens !== undefined) attrs['gen_ai.usage.input_tokens'] = s.input_tokens;
  if (s.output_tokens !== undefined) attrs['gen_ai.usage.output_tokens'] = s.output_tokens;
  if (s.model) attrs['gen_ai.request.model'] = s.model;
  if (s.cost !== undefined) attrs['gen_ai.usage.cost'] = s.cost;
  if (s.input) attrs['gen_ai.input.messages'] = messagesJson(s.input);
  if (s.output) attrs['gen_ai.output.messages'] = messagesJson(s.output);
  return {
    traceId: traceHex(s.trace),
    spanId: spanHex(s.span),
    ...(s.parent !== undefined ? { parentSpanId: spanHex(s.parent) } : {}),
    name: s.name ?? (s.op === 'invoke_agent' ? `invoke_agent ${s.agent ?? ''}`.trim() : s.op ?? 'span'),
    kind: 1,
    startTimeUnixNano: ns(s.start),
    ...(s.end === null ? {} : { endTimeUnixNano: ns(s.end ?? s.start + 10) }),
    attributes: keyValues(attrs),
    status: s.status ? { code: s.status === 'ERROR' ? 2 : 1 } : {},
  };
}

export function otlp(spans: SpanSpec[]) {
  return otlpRequest(spans.map(otlpSpan), { resource: {}, scope: { name: 'test' } });
}

export function load(store: { traces: TraceStore }, projectId: string, spans: SpanSpec[]) {
  return importRequest(store, projectId, otlp(spans));
}
