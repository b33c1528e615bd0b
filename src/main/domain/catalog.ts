/**
 * The column catalog of the span queries (semantics §7), backend-neutral: which names a request may
 * use, what each one is (a stored column, a derived value, a heavy column, a custom attribute) and
 * its type. The service resolves every field a request names against this catalog while parsing it
 * into a plan (domain/plans.ts); each store adapter owns the text that reads an entry (the SQLite
 * adapter's SQL lives in store/sqlite/analytics/columns.ts), so no client input ever becomes query
 * text.
 */
import { dict } from '../../shared/dict.js';

/** Value types of the query language. `time` is nanoseconds since the epoch (bigint in plans). */
export type ValType = 'string' | 'int' | 'float' | 'bool' | 'time';

export const STRING_COLUMNS = [
  'project_id', 'span_id', 'trace_id', 'parent_span_id', 'span_name', 'span_kind', 'status_code', 'status_message',
  'operation_name', 'provider_name', 'agent_id', 'agent_name', 'agent_version', 'agent_description', 'conversation_id',
  'conversation_name', 'request_model', 'response_model', 'response_id', 'output_type', 'error_type', 'server_address',
  'tool_name', 'tool_type', 'tool_call_id', 'tool_description', 'reasoning_content', 'compaction_summary', 'svc_user_id',
  'svc_run_id', 'service_name', 'scope_name',
] as const;
export const INT_COLUMNS = [
  'server_port', 'compaction_items_before', 'compaction_items_after', 'svc_run_step', 'svc_run_step_end', 'request_max_tokens',
  'request_seed', 'request_choice_count', 'input_tokens', 'output_tokens', 'reasoning_tokens', 'cache_creation_input_tokens',
  'cache_read_input_tokens',
] as const;
export const FLOAT_COLUMNS = [
  'request_temperature', 'request_top_p', 'request_frequency_penalty', 'request_presence_penalty', 'input_cost_usd',
  'output_cost_usd', 'cache_creation_cost_usd', 'cache_read_cost_usd', 'total_cost_usd',
] as const;
/** Start and end of the span; values are nanoseconds, literals compared with them are ISO date-times. */
export const TIME_COLUMNS = ['started_at', 'ended_at'] as const;
/**
 * Heavy text kept apart from the light columns (the SQLite adapter keeps it in span_details):
 * filterable and measurable, never read by list pages unless details are asked for.
 */
export const HEAVY_COLUMNS = ['tool_call_arguments', 'tool_call_result', 'tool_definitions'] as const;

export type StringColumn = (typeof STRING_COLUMNS)[number];
export type IntColumn = (typeof INT_COLUMNS)[number];
export type FloatColumn = (typeof FLOAT_COLUMNS)[number];
export type TimeColumn = (typeof TIME_COLUMNS)[number];
export type HeavyColumn = (typeof HEAVY_COLUMNS)[number];
/** Every column a filter, measure or sort may read directly. */
export type Column = StringColumn | IntColumn | FloatColumn | TimeColumn | HeavyColumn;

export const COLUMN_TYPES: Readonly<Record<Column, ValType>> = Object.fromEntries([
  ...STRING_COLUMNS.map((c) => [c, 'string']),
  ...INT_COLUMNS.map((c) => [c, 'int']),
  ...FLOAT_COLUMNS.map((c) => [c, 'float']),
  ...TIME_COLUMNS.map((c) => [c, 'time']),
  ...HEAVY_COLUMNS.map((c) => [c, 'string']),
]) as Record<Column, ValType>;

export const isColumn = (name: string): name is Column => Object.prototype.hasOwnProperty.call(COLUMN_TYPES, name);
export const isHeavy = (c: Column): c is HeavyColumn => (HEAVY_COLUMNS as readonly string[]).includes(c);

/**
 * Values computed from columns (semantics §7):
 * - duration_ms: floor((end - start) / 1e6) when end >= start, else null;
 * - total_tokens: input + output tokens the span adds to totals by the one counting rule (null for a
 *   span whose usage repeats its descendants', and for a span without usage);
 * - is_error: status_code = 'ERROR'; is_invocation: operation_name = 'invoke_agent' (null-safe: false);
 * - total_cost_usd: the cost the span adds to totals by the same rule (the column of that name is the
 *   span's own cost; `$expr` reads the column).
 */
export const DERIVED_TYPES = {
  duration_ms: 'int',
  total_tokens: 'int',
  is_error: 'bool',
  is_invocation: 'bool',
  total_cost_usd: 'float',
} as const satisfies Record<string, ValType>;
export type Derived = keyof typeof DERIVED_TYPES;
export const isDerived = (name: string): name is Derived => Object.prototype.hasOwnProperty.call(DERIVED_TYPES, name);

/** OpenTelemetry GenAI (and common) attribute names → columns, so filters can use the names users know. */
export const SEMANTIC: Readonly<Record<string, Column>> = dict({
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

/** The four maps of custom (non-semantic) attributes, one per value type. */
export const CUSTOM_SOURCES = ['custom_attrs_string', 'custom_attrs_int', 'custom_attrs_float', 'custom_attrs_bool'] as const;
export type CustomSource = (typeof CUSTOM_SOURCES)[number];
export const CUSTOM_TYPE: Readonly<Record<CustomSource, ValType>> = {
  custom_attrs_string: 'string', custom_attrs_int: 'int', custom_attrs_float: 'float', custom_attrs_bool: 'bool',
};
export const isCustomSource = (s: string): s is CustomSource => (CUSTOM_SOURCES as readonly string[]).includes(s);

/**
 * Whether a custom attribute key can be addressed. A key holding `"`, `\` or a control character
 * cannot be written as an SQLite JSON path; it is refused for every backend so a request means the
 * same thing everywhere (the parser answers 422).
 */
export const isAddressableKey = (key: string): boolean => key.length > 0 && ![...key].some((c) => c === '"' || c === '\\' || c < ' ');

/** Columns a filter of the conversations list and the group-by keys of §7 may name. */
export const FILTERABLE = [
  'operation_name', 'provider_name', 'agent_name', 'agent_version', 'request_model', 'response_model', 'tool_name', 'tool_type',
  'conversation_id', 'status_code', 'error_type', 'span_kind', 'trace_id', 'span_id', 'svc_run_id',
] as const satisfies readonly Column[];
/** Group-by keys (`source: 'field'`) of the spans query. */
export const GROUPABLE = [...FILTERABLE, 'agent_id', 'tool_call_id', 'svc_user_id', 'conversation_name', 'span_name', 'service_name'] as const satisfies readonly Column[];
export type GroupableColumn = (typeof GROUPABLE)[number];
/** Sort fields of the spans list (besides custom_attrs_<type>.<key> of a requested custom column). */
export const SORTABLE_LIST = [
  ...FILTERABLE, 'span_name', 'started_at', 'ended_at', 'input_tokens', 'output_tokens', 'reasoning_tokens',
  'cache_creation_input_tokens', 'cache_read_input_tokens', 'input_cost_usd', 'output_cost_usd', 'cache_creation_cost_usd',
  'cache_read_cost_usd', 'total_cost_usd', 'output_type', 'request_temperature', 'request_max_tokens', 'request_top_p',
  'svc_run_step', 'server_address',
] as const satisfies readonly Column[];
export type SortableListColumn = (typeof SORTABLE_LIST)[number];
