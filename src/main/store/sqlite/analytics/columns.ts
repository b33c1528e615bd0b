/**
 * The column catalog of the spans query (semantics §7): which names exist, what type they have and
 * the fixed SQL text that reads them. Every identifier that reaches SQL comes from these tables;
 * user input only selects an entry, so nothing a client sends is ever pasted into SQL text.
 */
import { dict } from '../../../../shared/dict.js';
export type ValType = 'string' | 'int' | 'float' | 'bool' | 'time';

export interface ColumnDef {
  sql: string;
  type: ValType;
}

const STRING_COLS = [
  'project_id', 'span_id', 'trace_id', 'parent_span_id', 'span_name', 'span_kind', 'status_code', 'status_message',
  'operation_name', 'provider_name', 'agent_id', 'agent_name', 'agent_version', 'agent_description', 'conversation_id',
  'conversation_name', 'request_model', 'response_model', 'response_id', 'output_type', 'error_type', 'server_address',
  'tool_name', 'tool_type', 'tool_call_id', 'tool_description', 'reasoning_content', 'compaction_summary', 'svc_user_id',
  'svc_run_id', 'service_name', 'scope_name',
];
const INT_COLS = [
  'server_port', 'compaction_items_before', 'compaction_items_after', 'svc_run_step', 'svc_run_step_end', 'request_max_tokens',
  'request_seed', 'request_choice_count', 'input_tokens', 'output_tokens', 'reasoning_tokens', 'cache_creation_input_tokens',
  'cache_read_input_tokens',
];
const FLOAT_COLS = [
  'request_temperature', 'request_top_p', 'request_frequency_penalty', 'request_presence_penalty', 'input_cost_usd',
  'output_cost_usd', 'cache_creation_cost_usd', 'cache_read_cost_usd', 'total_cost_usd',
];
/** Heavy text kept in span_details; filterable through a correlated lookup (never read by list pages). */
const DETAIL_COLS = ['tool_call_arguments', 'tool_call_result', 'tool_definitions'];

export const DIRECT_COLUMNS: Record<string, ColumnDef> = dict(Object.fromEntries([
  ...STRING_COLS.map((c) => [c, { sql: `s.${c}`, type: 'string' as ValType }]),
  ...INT_COLS.map((c) => [c, { sql: `s.${c}`, type: 'int' as ValType }]),
  ...FLOAT_COLS.map((c) => [c, { sql: `s.${c}`, type: 'float' as ValType }]),
  ...DETAIL_COLS.map((c) => [c, { sql: `(SELECT d.${c} FROM span_details d WHERE d.span_rowid = s.id)`, type: 'string' as ValType }]),
  ['started_at', { sql: 's.start_ns', type: 'time' }],
  ['ended_at', { sql: 's.end_ns', type: 'time' }],
]));

export const DERIVED: Record<string, ColumnDef> = dict({
  duration_ms: { sql: '(CASE WHEN s.end_ns >= s.start_ns THEN (s.end_ns - s.start_ns) / 1000000 END)', type: 'int' },
  // What the span adds to totals (the one counting rule, spans.counted bit 1 / bit 2): null for a span
  // whose usage or cost repeats its descendants' (a mirrored invoke_agent span), so a sum of these
  // equals the chat header, agents and conversations list for the same spans. docs/analytics.md.
  total_tokens: {
    sql: '(CASE WHEN s.counted & 1 THEN IFNULL(s.input_tokens, 0) + IFNULL(s.output_tokens, 0) END)',
    type: 'int',
  },
  is_error: { sql: "(s.status_code = 'ERROR')", type: 'bool' },
  is_invocation: { sql: "(s.operation_name IS 'invoke_agent')", type: 'bool' },
  total_cost_usd: { sql: '(CASE WHEN s.counted & 2 THEN s.total_cost_usd END)', type: 'float' },
});

/** OpenTelemetry GenAI (and common) attribute names → columns, so filters can use the names users know. */
export const SEMANTIC: Record<string, string> = dict({
  'gen_ai.agent.name': 'agent_name', 'agent.name': 'agent_name', 'gen_ai.agent.id': 'agent_id', 'gen_ai.agent.version': 'agent_version',
  'gen_ai.agent.description': 'agent_description', 'gen_ai.operation.name': 'operation_name', 'gen_ai.provider.name': 'provider_name',
  'gen_ai.system': 'provider_name', 'gen_ai.request.model': 'request_model', 'gen_ai.response.model': 'response_model',
  'gen_ai.response.id': 'response_id', 'gen_ai.conversation.id': 'conversation_id', 'session.id': 'conversation_id',
  'gen_ai.output.type': 'output_type', 'gen_ai.tool.name': 'tool_name', 'gen_ai.tool.type': 'tool_type',
  'gen_ai.tool.call.id': 'tool_call_id', 'gen_ai.tool.description': 'tool_description', 'error.type': 'error_type',
  'server.address': 'server_address', 'server.port': 'server_port', 'gen_ai.usage.input_tokens': 'input_tokens',
  'gen_ai.usage.output_tokens': 'output_tokens', 'gen_ai.usage.reasoning_tokens': 'reasoning_tokens',
  'gen_ai.request.temperature': 'request_temperature', 'gen_ai.request.top_p': 'request_top_p',
  'gen_ai.request.max_tokens': 'request_max_tokens', 'gen_ai.request.seed': 'request_seed', 'svc.user_id': 'svc_user_id',
  'svc.run_id': 'svc_run_id', 'svc.run_step': 'svc_run_step', name: 'span_name', 'status.code': 'status_code',
  start_time: 'started_at', end_time: 'ended_at',
});

export const CUSTOM_SOURCES = ['custom_attrs_string', 'custom_attrs_int', 'custom_attrs_float', 'custom_attrs_bool'] as const;
export type CustomSource = (typeof CUSTOM_SOURCES)[number];
export const CUSTOM_TYPE: Record<CustomSource, ValType> = {
  custom_attrs_string: 'string', custom_attrs_int: 'int', custom_attrs_float: 'float', custom_attrs_bool: 'bool',
};
export const isCustomSource = (s: string): s is CustomSource => (CUSTOM_SOURCES as readonly string[]).includes(s);

/**
 * JSON path of a custom attribute key, bound as a parameter. The key is quoted so dots inside it
 * stay part of the name; a key holding `"` or `\` cannot be expressed in an SQLite JSON path and is
 * refused (the caller turns `null` into a 422).
 */
export function jsonPathOf(key: string): string | null {
  if (!key || /["\\\u0000-\u001f]/.test(key)) return null;
  return `$."${key}"`;
}

/** Group-by / sort keys of §7: the filterable columns (+ a few identity columns for grouping). */
export const FILTERABLE = [
  'operation_name', 'provider_name', 'agent_name', 'agent_version', 'request_model', 'response_model', 'tool_name', 'tool_type',
  'conversation_id', 'status_code', 'error_type', 'span_kind', 'trace_id', 'span_id', 'svc_run_id',
];
export const GROUPABLE = [...FILTERABLE, 'agent_id', 'tool_call_id', 'svc_user_id', 'conversation_name', 'span_name'];
export const SORTABLE_LIST = [
  ...FILTERABLE, 'span_name', 'started_at', 'ended_at', 'input_tokens', 'output_tokens', 'reasoning_tokens',
  'cache_creation_input_tokens', 'cache_read_input_tokens', 'input_cost_usd', 'output_cost_usd', 'cache_creation_cost_usd',
  'cache_read_cost_usd', 'total_cost_usd', 'output_type', 'request_temperature', 'request_max_tokens', 'request_top_p',
  'svc_run_step', 'server_address',
];
