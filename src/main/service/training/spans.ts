/**
 * Spans the training service writes — one `chat` span per completion (semantics §9.7) and one trace
 * per logged trajectory (§9.6) — built as OTLP/JSON with OpenTelemetry GenAI attributes, to be stored
 * through the same importer as any exporter's spans (import-spans.ts; issue 11). No I/O here: the
 * intake worker builds rollout traces with these too. So they read like any agent trace,
 * and an export (the spans as received) re-imports to the same project, parents, times,
 * conversation, messages and reward.
 */
import { randomBytes } from 'node:crypto';
import { exportRequest, type AttrValue, type DemoSpan } from '../../demo/otlp.js';

export const traceId = (): string => randomBytes(16).toString('hex');
export const spanId = (): string => randomBytes(8).toString('hex');

export type OtlpSpan = DemoSpan;
export type Attrs = Record<string, AttrValue>;

/** OTLP SpanKind and status codes used here. */
export const KIND = { internal: 1, client: 3 } as const;
export const STATUS_OK = { code: 1 as const };

/** Text of a chat-completions message content (string or parts). */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (p && typeof p === 'object' && 'text' in p ? String((p as { text: unknown }).text) : '')).join('');
  return '';
}

interface ChatLike {
  role: string;
  content?: unknown;
  tool_calls?: unknown;
  tool_call_id?: unknown;
}

type Part = Record<string, unknown>;

/** A chat-completions message as an OTel GenAI message (`{role, parts}`; tool calls and results as parts). */
function genAiMessage(m: ChatLike, finishReason?: string): Record<string, unknown> {
  const text = contentText(m.content);
  const parts: Part[] = [];
  if (m.role === 'tool' && typeof m.tool_call_id === 'string') parts.push({ type: 'tool_call_response', id: m.tool_call_id, response: text });
  else if (text) parts.push({ type: 'text', content: text });
  if (Array.isArray(m.tool_calls)) {
    for (const c of m.tool_calls as { id?: string; function?: { name?: string; arguments?: string } }[]) {
      parts.push({ type: 'tool_call', id: c.id ?? null, name: c.function?.name ?? '', arguments: c.function?.arguments ?? null });
    }
  }
  return { role: m.role, parts, ...(finishReason ? { finish_reason: finishReason } : {}) };
}

/** Leading system/developer messages go to gen_ai.system_instructions, the rest to the message list. */
export function splitSystem<M extends ChatLike>(messages: M[]): { system: string[]; rest: M[] } {
  const isSystem = (m: ChatLike) => m.role === 'system' || m.role === 'developer';
  return { system: messages.filter(isSystem).map((m) => contentText(m.content)), rest: messages.filter((m) => !isSystem(m)) };
}

/** The GenAI message attributes of a chat span. */
export function messageAttrs(system: string[], input: ChatLike[], output: { message: ChatLike; finish_reason: string }[]): Attrs {
  return {
    'gen_ai.system_instructions': system.length ? JSON.stringify(system.map((content) => ({ type: 'text', content }))) : undefined,
    'gen_ai.input.messages': JSON.stringify(input.map((m) => genAiMessage(m))),
    'gen_ai.output.messages': JSON.stringify(output.map((o) => genAiMessage(o.message, o.finish_reason))),
    'gen_ai.response.finish_reasons': output.map((o) => o.finish_reason),
  };
}

/**
 * One OTLP/JSON request holding spans of one project; the project travels as the resource attribute
 * svc.project_id, so an export re-imports to it without a header. Stored by import-spans.ts.
 */
export function spansRequest(projectId: string, spans: OtlpSpan[]): Record<string, unknown> {
  return exportRequest('loupe-training', { 'svc.project_id': projectId }, spans, { scope: { name: 'loupe.training' }, sdkResource: {} });
}
