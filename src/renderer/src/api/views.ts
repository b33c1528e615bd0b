/**
 * Renderer-side names for the contract's view types (interface.md "Turn", "Chat message",
 * "Conversation chat view", span and group rows). Derived from the contract so they never drift.
 */
import type { OpOutput } from '../../../shared/contract/index';

export type { FeedbackRecord } from '../../../shared/contract/common';
export type ConversationView = OpOutput<'chat.conversation'>;
export type Turn = OpOutput<'chat.trace'>;
export type ChatMessage = Turn['messages'][number];
/** The contract builds span-row keys with Object.fromEntries, which loses their names in the type; they are restated here (interface.md "Span row"). */
type StrKey = 'project_id' | 'span_id' | 'trace_id' | 'agent_description' | 'agent_id' | 'agent_name' | 'agent_version' | 'compaction_summary'
  | 'conversation_id' | 'conversation_name' | 'error_type' | 'operation_name' | 'output_type' | 'parent_span_id' | 'provider_name'
  | 'raw_span_dump' | 'reasoning_content' | 'request_model' | 'response_id' | 'response_model' | 'server_address' | 'status_message'
  | 'tool_call_arguments' | 'tool_call_id' | 'tool_call_result' | 'tool_definitions' | 'tool_description' | 'tool_name' | 'tool_type'
  | 'svc_run_id' | 'svc_user_id' | 'span_name';
type NumKey = 'cache_creation_cost_usd' | 'cache_read_cost_usd' | 'input_cost_usd' | 'output_cost_usd' | 'total_cost_usd'
  | 'cache_creation_input_tokens' | 'cache_read_input_tokens' | 'input_tokens' | 'output_tokens' | 'reasoning_tokens';
type ArrKey = 'artifact_refs' | 'content_refs' | 'object_refs' | 'finish_reasons' | 'request_stop_sequences' | 'system_instructions';
export type SpanRow = OpOutput<'spans.query'>['spans'][number] & { [K in StrKey]: string | null } & { [K in NumKey]: number | null } & { [K in ArrKey]: string[] };
export type GroupRow = OpOutput<'spans.query'>['groups'][number];
