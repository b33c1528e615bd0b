/**
 * Message shapes of the chat views (interface.md "Chat message" and payloads) and the small
 * constructors that guarantee every key is present and exactly one payload is set.
 */
import type { FeedbackRecord, StatusCode } from '../../../shared/contract/common.js';
import type { SpanMessage } from '../span.js';

export type MessageType = 'user_message' | 'assistant_message' | 'tool_call' | 'agent_handoff' | 'agent_start' | 'context_compacted';

export interface UserPayload { text: string; content_refs: string[] }
/**
 * Extension (issue 10, docs/chat.md): the error of a failed span or tool, shown in its bubble.
 * `error_type` is the span's error.type (or exception type); `error_message` its status message
 * (or exception message) when the span failed, without a stack trace; `error_detail` the whole
 * recorded text when a trace was cut from the message (errors.ts).
 */
export interface ErrorFields { error_type: string | null; error_message: string | null; error_detail: string | null }
/** Extension: who handed what to whom (the reserved payload of the interface, filled in). */
export interface HandoffPayload { from_agent: string | null; to_agent: string | null; text: string | null }
export interface AssistantPayload extends ErrorFields {
  text: string; model: string | null; reasoning_content: string | null; reasoning_tokens: number | null;
  input_tokens: number | null; output_tokens: number | null; input_cost_usd: number | null; output_cost_usd: number | null;
  total_cost_usd: number | null; duration_ms: number | null; status: StatusCode | null; content_refs: string[];
}
export interface ToolCallPayload extends ErrorFields {
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
  agent_handoff: HandoffPayload | null;
  context_compacted: CompactionPayload | null;
  feedback: FeedbackRecord[] | null;
}

type Payloads = {
  user_message: UserPayload; assistant_message: AssistantPayload; tool_call: ToolCallPayload;
  agent_start: AgentStartPayload; context_compacted: CompactionPayload; agent_handoff: HandoffPayload;
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
  };
}

/**
 * What a message says: its text parts joined by a newline. Tool calls and tool results are never
 * part of it (they are shown as tool calls). A message stored without parts falls back to its content.
 */
export function messageText(m: SpanMessage): string {
  const parts = Array.isArray(m.parts) ? m.parts : [];
  if (!parts.length) return m.content ?? '';
  return parts
    .filter((p) => p.type === 'text' && typeof p.content === 'string' && p.content)
    .map((p) => p.content as string)
    .join('\n');
}

/** Reasoning text carried as message parts, when the span has no reasoning_content column. */
export function reasoningFromParts(msgs: SpanMessage[]): string | null {
  const texts = msgs.flatMap((m) => (Array.isArray(m.parts) ? m.parts : [])).filter((p) => p.type === 'reasoning' && typeof p.content === 'string' && p.content);
  return texts.length ? texts.map((p) => p.content as string).join('\n\n') : null;
}
