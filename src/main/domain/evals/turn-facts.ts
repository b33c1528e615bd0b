/**
 * What scorers and failure signatures read about one turn (issue 20): the user's question, the
 * assistant's final answer, the tool calls in order with their arguments and errors, failed spans,
 * finish reasons, and the turn's duration, tokens and cost by the one counting rule. Computed from
 * the turn's spans with the chat walk (domain/chat/walk.ts), so "the answer" is what the chat shows.
 */
import type { ChatSpan } from '../chat/span.js';
import { buildMessages } from '../chat/walk.js';
import { turnHeader } from '../chat/header.js';

export interface ToolCallFact {
  span_id: string | null;
  name: string;
  arguments: string | null;
  /** The failure's type or message when the tool failed; null when it did not. */
  error: string | null;
}

export interface TurnFacts {
  trace_id: string;
  conversation_id: string | null;
  agent_name: string | null;
  /** The turn's first user message, or null. */
  question: string | null;
  /** The last assistant message's text (the answer the chat shows last), or null. */
  answer: string | null;
  answer_span_id: string | null;
  tool_calls: ToolCallFact[];
  /** Spans with status ERROR: their error type and message. */
  errors: { span_id: string; span_name: string; error_type: string | null; message: string | null; tool_name: string | null }[];
  /** Finish reasons of the turn's model outputs, in span order. */
  finish_reasons: string[];
  duration_ms: number | null;
  tokens: number;
  cost_usd: number | null;
  models: string[];
  start_ns: bigint | null;
}

export function turnFacts(spans: readonly ChatSpan[], conversationId: string | null): TurnFacts {
  const messages = buildMessages(spans);
  const header = turnHeader(spans);
  let question: string | null = null;
  let answer: string | null = null;
  let answerSpan: string | null = null;
  const tools: ToolCallFact[] = [];
  for (const m of messages) {
    if (m.type === 'user_message' && question === null && m.user_message?.text) question = m.user_message.text;
    if (m.type === 'assistant_message' && m.assistant_message?.text) {
      answer = m.assistant_message.text;
      answerSpan = m.span_id;
    }
    if (m.type === 'tool_call' && m.tool_call) {
      const t = m.tool_call;
      const failed = t.status === 'ERROR' || !!t.error_message;
      tools.push({ span_id: m.span_id, name: t.tool_name ?? '(unnamed tool)', arguments: t.tool_arguments, error: failed ? (t.error_message ?? t.error_type ?? 'error') : null });
    }
  }
  const ordered = [...spans].sort((a, b) => (a.start_ns ?? 0n) < (b.start_ns ?? 0n) ? -1 : (a.start_ns ?? 0n) > (b.start_ns ?? 0n) ? 1 : 0);
  const finish: string[] = [];
  const models = new Set<string>();
  for (const s of ordered) {
    for (const o of s.output_messages ?? []) if (o.finish_reason) finish.push(o.finish_reason);
    const model = s.response_model ?? s.request_model;
    if (model) models.add(model);
  }
  return {
    trace_id: spans[0]?.trace_id ?? '',
    conversation_id: conversationId,
    agent_name: header.agent_name,
    question,
    answer,
    answer_span_id: answerSpan,
    tool_calls: tools,
    errors: ordered
      .filter((s) => s.status_code === 'ERROR')
      .map((s) => ({ span_id: s.span_id, span_name: s.span_name, error_type: s.error_type ?? null, message: s.status_message ?? null, tool_name: s.tool_name ?? null })),
    finish_reasons: finish,
    duration_ms: header.start_ns != null && header.end_ns != null ? Number((header.end_ns - header.start_ns) / 1_000_000n) : null,
    tokens: header.total_input_tokens + header.total_output_tokens,
    cost_usd: header.total_cost_usd,
    models: [...models].sort(),
    start_ns: header.start_ns,
  };
}
