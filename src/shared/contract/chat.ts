import { op } from './define.js';
import { z } from 'zod';
import { DateTimeOut, FeedbackRecord, Limit, Offset, StatusCode } from './common.js';

/**
 * Chat views (interface.md "Chat message", payloads, "Turn"; semantics §4). Every key of the
 * interface is listed and required; "nullable" keys are present with null.
 */
const Refs = z.array(z.string());
const Int = z.number().int();

export const UserPayload = z.object({ text: z.string(), content_refs: Refs });
/**
 * Extension (issue 10): the error of a failed span or tool, for its bubble. Null when the span did
 * not fail (error_type may be set on its own when the emitter names an error without failing).
 * `error_message` is the message without a stack trace; `error_detail` the whole recorded text
 * (message and trace) when a trace was cut from it, else null: show it collapsed, not as the headline.
 */
const ErrorFields = {
  error_type: z.string().nullable(),
  error_message: z.string().nullable(),
  error_detail: z.string().nullable(),
};
export const AssistantPayload = z.object({
  text: z.string(),
  model: z.string().nullable(),
  reasoning_content: z.string().nullable(),
  reasoning_tokens: Int.nullable(),
  input_tokens: Int.nullable(),
  output_tokens: Int.nullable(),
  input_cost_usd: z.number().nullable(),
  output_cost_usd: z.number().nullable(),
  total_cost_usd: z.number().nullable(),
  duration_ms: Int.nullable(),
  status: StatusCode.nullable(),
  content_refs: Refs,
  ...ErrorFields,
});
export const ToolCallPayload = z.object({
  tool_name: z.string().nullable(),
  tool_arguments: z.string().nullable(),
  tool_result: z.string().nullable(),
  duration_ms: Int.nullable(),
  status: StatusCode.nullable(),
  content_refs: Refs,
  ...ErrorFields,
});
export const AgentStartPayload = z.object({
  model: z.string().nullable(),
  system_instructions: z.string().nullable(),
  tool_definitions: z.string().nullable(),
  status: StatusCode.nullable(),
});
/**
 * The interface reserves this payload (an empty object) for agent-to-agent handoffs. Extension
 * (issue 10, docs/decisions/0004-chat-speakers.md): emitted when an agent hands a sub-agent its task;
 * the message's agent_name is the speaker (the delegating agent), `to_agent` the one addressed, `text`
 * the task (null when the emitter recorded none).
 */
export const AgentHandoffPayload = z.object({
  from_agent: z.string().nullable(),
  to_agent: z.string().nullable(),
  text: z.string().nullable(),
});
export const CompactionPayload = z.object({
  compaction_summary: z.string().nullable(),
  compaction_items_before: Int.nullable(),
  compaction_items_after: Int.nullable(),
});

export const MessageType = z.enum(['user_message', 'assistant_message', 'tool_call', 'agent_handoff', 'agent_start', 'context_compacted']);

export const ChatMessage = z.object({
  type: MessageType,
  span_id: z.string().nullable(),
  agent_name: z.string().nullable(),
  agent_version: z.string().nullable(),
  status_code: StatusCode.nullable(),
  started_at: DateTimeOut.nullable(),
  user_message: UserPayload.nullable(),
  assistant_message: AssistantPayload.nullable(),
  tool_call: ToolCallPayload.nullable(),
  agent_start: AgentStartPayload.nullable(),
  agent_handoff: AgentHandoffPayload.nullable(),
  context_compacted: CompactionPayload.nullable(),
  feedback: z.array(FeedbackRecord).nullable(),
});

export const Turn = z.object({
  trace_id: z.string(),
  root_span_name: z.string().nullable(),
  agent_name: z.string().nullable(),
  agent_version: z.string().nullable(),
  status_code: StatusCode.nullable(),
  provider: z.string().nullable(),
  started_at: DateTimeOut.nullable(),
  ended_at: DateTimeOut.nullable(),
  svc_user_id: z.string().nullable(),
  total_duration_ms: Int.nullable(),
  total_cost_usd: z.number().nullable(),
  total_input_tokens: Int.default(0),
  total_output_tokens: Int.default(0),
  total_reasoning_tokens: Int.default(0),
  total_cache_creation_input_tokens: Int.default(0),
  total_cache_read_input_tokens: Int.default(0),
  /**
   * Extension (issue 18, decision 0022): false when no span of the turn reported token usage. The
   * interface's token totals stay integers (0 then); a reader shows them as unknown ("–"), never as 0.
   */
  usage_known: z.boolean(),
  messages: z.array(ChatMessage),
  feedback: z.array(FeedbackRecord).nullable(),
});
export type Turn = z.infer<typeof Turn>;

/**
 * Extension (issue 18): the whole conversation's totals, summed from the same turn rows as its
 * conversations-list row (so the chat header and the list cannot disagree); null for an unknown
 * conversation. Duration is wall time: first span's start to last span's end.
 */
export const ConversationTotals = z.object({
  span_count: Int,
  error_count: Int,
  total_input_tokens: Int,
  total_output_tokens: Int,
  usage_known: z.boolean(),
  total_cost_usd: z.number().nullable(),
  first_activity: DateTimeOut.nullable(),
  last_activity: DateTimeOut.nullable(),
  duration_ms: Int.nullable(),
});

export const ConversationChat = z.object({
  conversation_id: z.string(),
  turns: z.array(Turn),
  total_turns: Int.default(0),
  has_more: z.boolean().default(false),
  limit: Int.default(50),
  offset: Int.default(0),
  total_cost_usd: z.number().nullable(),
  totals: ConversationTotals.nullable(),
  /**
   * Extension (issue 18): the conversation's title, the same as its conversations-list row's `title`
   * (src/shared/titles.ts listRowTitle over the same stored row); null for an unknown conversation.
   */
  title: z.string().nullable(),
  feedback: z.array(FeedbackRecord).nullable(),
});
export type ConversationChat = z.infer<typeof ConversationChat>;

export const chatOps = {
  'chat.conversation': op({
    method: 'POST',
    path: '/agents/conversations/chat',
    auth: 'none',
    summary: 'Multi-turn chat view of one conversation: turns newest-first paged, each page oldest first.',
    input: z.strictObject({
      project_id: z.string().min(1),
      conversation_id: z.string(),
      include_feedback: z.boolean().default(false),
      limit: Limit(50, 50),
      offset: Offset,
    }),
    output: ConversationChat,
  }),
  'chat.trace': op({
    method: 'POST',
    path: '/agents/traces/chat',
    auth: 'none',
    summary: "Chat view of one trace: the agent's trajectory as one ordered list of messages.",
    input: z.strictObject({
      project_id: z.string().min(1),
      trace_id: z.string(),
      include_feedback: z.boolean().default(false),
    }),
    output: Turn,
  }),
  'chat.tracePage': op({
    method: 'POST',
    path: '/app/traces/chat-page',
    auth: 'none',
    summary:
      'Extension (issue 12): the chat view of one trace a page of messages at a time, for traces of thousands of spans. ' +
      'The header is the Turn of chat.trace without its messages; messages[offset..offset+limit) are the same messages chat.trace ' +
      'gives at those positions. has_more says whether more follow; total_messages is known (else null) once the whole trace was walked.',
    input: z.strictObject({
      project_id: z.string().min(1),
      trace_id: z.string(),
      include_feedback: z.boolean().default(false),
      offset: Offset,
      limit: Limit(5000, 100),
    }),
    output: z.object({
      turn: Turn.omit({ messages: true }),
      messages: z.array(ChatMessage),
      offset: Int,
      has_more: z.boolean(),
      total_messages: Int.nullable(),
    }),
  }),
} as const satisfies Record<string, ReturnType<typeof op>>;
