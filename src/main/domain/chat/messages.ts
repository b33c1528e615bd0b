/**
 * Message shapes of the chat views (interface.md "Chat message" and payloads) and the small
 * constructors that guarantee every key is present and exactly one payload is set.
 */
import type { FeedbackRecord, StatusCode } from '../../../shared/contract/common.js';
import type { SpanMessage } from '../span.js';

export type MessageType = 'user_message' | 'assistant_message' | 'tool_call' | 'agent_handoff' | 'agent_start' | 'context_compacted';

export interface UserPayload { text: string; content_refs: string[] }
export interface AssistantPayload {
  text: string; model: string | null; reasoning_content: string | null; reasoning_tokens: number | null;
  input_tokens: number | null; output_tokens: number | null; input_cost_usd: number | null; output_cost_usd: number | null;
  total_cost_usd: number | null; duration_ms: number | null; status: StatusCode | null; content_refs: string[];
}
export interface ToolCallPayload {
  tool_name: string | null; tool_arguments: string | null; tool_result: string | null; duration_ms: number | null;
  status: StatusCode | null; content_refs: string[];
}
export interface AgentStartPayload { model: string | null; system_instructions: string | null; tool_definitions: string | null; status: StatusCode | null }
export interface CompactionPayload { compaction_summary: string | null; compaction_items_before: number | null; compaction_items_after: number | null }

export interface ChatMessage {
  type: MessageType;
  span_id: string | null;
  agent_name: string | null;
  agent_version: string | null;
  status_code: StatusCode | null;
  started_at: string | null;
  user_message: UserPayload | null;
  assistant_message: AssistantPayload | null;
  tool_call: ToolCallPayload | null;
  agent_start: AgentStartPayload | null;
  agent_handoff: Record<string, never> | null;
  context_compacted: CompactionPayload | null;
  feedback: FeedbackRecord[] | null;
}

type Payloads = {
  user_message: UserPayload; assistant_message: AssistantPayload; tool_call: ToolCallPayload;
  agent_start: AgentStartPayload; context_compacted: CompactionPayload;
};

export interface MessageHead {
  span_id: string | null;
  agent_name: string | null;
  agent_version: string | null;
  status_code: StatusCode | null;
  started_at: string | null;
}

/** A message with its one payload under the key named by `type`; all other payload keys null. */
export function message<T extends keyof Payloads>(type: T, head: MessageHead, payload: Payloads[T]): ChatMessage {
  return {
    type, ...head,
    user_message: null, assistant_message: null, tool_call: null, agent_start: null, agent_handoff: null, context_compacted: null,
    [type]: payload,
    feedback: null,
  } as ChatMessage;
}

/** Text of one normalized message: its content, else its parts rendered (text joined, tool calls as JSON). */
export function messageText(m: SpanMessage): string {
  if (m.content) return m.content;
  const parts = Array.isArray(m.parts) ? m.parts : [];
  return parts
    .map((p) => {
      if (p.type === 'text' && typeof p.content === 'string') return p.content;
      if (p.type === 'tool_call') return JSON.stringify({ id: p.id ?? null, name: p.name ?? null, arguments: p.arguments ?? null });
      if (p.type === 'tool_call_response') return typeof p.response === 'string' ? p.response : JSON.stringify(p.response ?? null);
      return '';
    })
    .filter(Boolean)
    .join('\n');
}

/** Reasoning text carried as message parts, when the span has no reasoning_content column. */
export function reasoningFromParts(msgs: SpanMessage[]): string | null {
  const texts = msgs.flatMap((m) => (Array.isArray(m.parts) ? m.parts : [])).filter((p) => p.type === 'reasoning' && typeof p.content === 'string' && p.content);
  return texts.length ? texts.map((p) => p.content as string).join('\n\n') : null;
}
