import { op } from './define.js';
import { z } from 'zod';
import { DateTimeIn, DateTimeOut, Limit, Offset, SortBy, StatusCode } from './common.js';

// Operations of this domain (threads, agents, spans query; semantics §5–§7). Owned by the analytics
// work stream; see contract/index.ts. Rules the schema cannot see (sort fields, `$expr`, aliases,
// the validation order of §7) are checked by the service and answered with a 422 naming the field.

const ProjectId = z.string().min(1);

/** `{ "$expr": { ... } }`: the operator tree is validated by the expression compiler (depth/size limits). */
export const Expression = z.strictObject({ $expr: z.record(z.string(), z.unknown()) });

const CustomSource = z.enum(['custom_attrs_string', 'custom_attrs_int', 'custom_attrs_float', 'custom_attrs_bool']);
const ValueSource = z.enum(['field', 'derived', 'custom_attrs_string', 'custom_attrs_int', 'custom_attrs_float', 'custom_attrs_bool']);
const ValueRef = z.strictObject({ key: z.string().min(1).max(256), source: ValueSource.default('field') });
const GroupRef = z.strictObject({
  key: z.string().min(1).max(256),
  /** 'score': group by the value of a score of that name (issue 20; key = the score's name). */
  source: z.enum(['field', 'score', ...CustomSource.options]).default('field'),
  alias: z.string().max(64).optional(),
});
export const Aggregation = z.enum(['sum', 'avg', 'min', 'max', 'count', 'count_distinct', 'count_true', 'count_false']);
const Measure = z.strictObject({
  alias: z.string().max(64),
  /** Default: `sum` when a value is given, `count` otherwise. */
  aggregation: Aggregation.optional(),
  value: ValueRef.optional(),
  filter: Expression.optional(),
});
const GroupFilter = z.strictObject({
  measure: Measure.partial({ alias: true }),
  group_by: z.array(GroupRef).optional(),
  min: z.number().optional(),
  max: z.number().optional(),
});
const Distribution = z.strictObject({
  alias: z.string().max(64),
  value: z.strictObject({ key: z.string().min(1).max(256), source: ValueSource.default('field') }),
  bins: z.number().int().min(1).max(50).default(12),
  top_n: z.number().int().min(1).max(20).default(5),
});

const Message = z.object({ content: z.string(), finish_reason: z.string(), role: z.string() });
const Preview = z.object({ role: z.string(), text: z.string() });
const str = z.string().nullable();
/** `{ key: schema }` for each key, typed by key (Object.fromEntries would lose the names). */
const fields = <K extends string, T extends z.ZodType>(keys: readonly K[], t: T) => Object.fromEntries(keys.map((k) => [k, t])) as Record<K, T>;
const num = z.number().nullable();
const int = z.number().int().nullable();

export const SpanRow = z.object({
  ...fields(
    ['project_id', 'span_id', 'trace_id', 'agent_description', 'agent_id', 'agent_name', 'agent_version', 'compaction_summary',
      'conversation_id', 'conversation_name', 'error_type', 'operation_name', 'output_type', 'parent_span_id', 'provider_name',
      'raw_span_dump', 'reasoning_content', 'request_model', 'response_id', 'response_model', 'server_address', 'status_message',
      'tool_call_arguments', 'tool_call_id', 'tool_call_result', 'tool_definitions', 'tool_description', 'tool_name', 'tool_type',
      'svc_run_id', 'svc_user_id', 'span_name'] as const,
    str,
  ),
  ...fields(['artifact_refs', 'content_refs', 'object_refs', 'finish_reasons', 'request_stop_sequences', 'system_instructions'] as const, z.array(z.string())),
  ...fields(
    ['cache_creation_cost_usd', 'cache_read_cost_usd', 'input_cost_usd', 'output_cost_usd', 'total_cost_usd',
      'request_frequency_penalty', 'request_presence_penalty', 'request_temperature', 'request_top_p'] as const,
    num,
  ),
  ...fields(
    ['cache_creation_input_tokens', 'cache_read_input_tokens', 'compaction_items_after', 'compaction_items_before', 'input_tokens',
      'output_tokens', 'reasoning_tokens', 'request_choice_count', 'request_max_tokens', 'request_seed', 'server_port', 'svc_run_step',
      'svc_run_step_end'] as const,
    int,
  ),
  started_at: DateTimeOut.nullable(),
  ended_at: DateTimeOut.nullable(),
  status_code: StatusCode,
  span_kind: z.enum(['UNSPECIFIED', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER']),
  custom_attrs_bool: z.record(z.string(), z.boolean()),
  custom_attrs_float: z.record(z.string(), z.number()),
  custom_attrs_int: z.record(z.string(), z.number()),
  custom_attrs_string: z.record(z.string(), z.string()),
  input_messages: z.array(Message),
  output_messages: z.array(Message),
});

export const GroupRow = z.object({
  agent_names: z.array(z.string()),
  agent_versions: z.array(z.string()),
  conversation_count: z.number().int(),
  conversation_names: z.array(z.string()),
  distributions: z.record(z.string(), z.unknown()),
  error_count: z.number().int(),
  first_message: Preview.nullable(),
  first_seen: DateTimeOut.nullable(),
  group_keys: z.record(z.string(), z.unknown()),
  invocation_count: z.number().int(),
  last_message: Preview.nullable(),
  last_seen: DateTimeOut.nullable(),
  metrics: z.record(z.string(), z.number().nullable()),
  provider_names: z.array(z.string()),
  request_models: z.array(z.string()),
  span_count: z.number().int(),
  total_cache_creation_input_tokens: z.number().int(),
  total_cache_read_input_tokens: z.number().int(),
  total_cost_usd: z.number().nullable(),
  total_duration_ms: z.number().int(),
  total_input_cost_usd: z.number().nullable(),
  total_input_tokens: z.number().int(),
  total_output_cost_usd: z.number().nullable(),
  total_output_tokens: z.number().int(),
  total_reasoning_tokens: z.number().int(),
  /** Extension (issue 18, decision 0022): false when no span of the group reported token usage (token totals unknown, shown "–"). */
  usage_known: z.boolean(),
  /** Extension (issue 18): wall time of the group's spans, earliest start to latest end (a conversation's duration); null without times. */
  wall_duration_ms: z.number().int().nullable(),
});

export const AgentSummary = z.object({
  agent_name: z.string(),
  error_count: z.number().int(),
  first_seen: DateTimeOut.nullable(),
  invocation_count: z.number().int(),
  last_seen: DateTimeOut.nullable(),
  project_id: z.string(),
  span_count: z.number().int(),
  total_duration_ms: z.number().int(),
  total_input_tokens: z.number().int(),
  total_output_tokens: z.number().int(),
  total_cost_usd: z.number().nullable(),
  /** Extension (issue 18, decision 0022): false when no span credited to the agent reported token usage. */
  usage_known: z.boolean(),
});

export const Thread = z.object({
  thread_id: z.string(),
  turn_count: z.number().int(),
  start_time: DateTimeOut.nullable(),
  last_updated: DateTimeOut.nullable(),
  first_turn_id: z.string().nullable(),
  last_turn_id: z.string().nullable(),
  p50_turn_duration_ms: z.number().nullable(),
  p99_turn_duration_ms: z.number().nullable(),
});

export const analyticsOps = {
  'threads.query': op({
    method: 'POST',
    path: '/threads/stream_query',
    auth: 'none',
    summary: 'Threads (conversations) with statistics over their turn calls, one JSON object per line',
    stream: 'jsonl',
    input: z.strictObject({
      project_id: ProjectId,
      filter: z
        .strictObject({ after_datetime: DateTimeIn.optional(), before_datetime: DateTimeIn.optional(), thread_ids: z.array(z.string()).max(10_000).optional() })
        .optional(),
      limit: Limit(10000, 100),
      offset: Offset,
      sort_by: SortBy.optional(),
    }),
    output: Thread,
  }),
  'agents.query': op({
    method: 'POST',
    path: '/agents/query',
    auth: 'none',
    summary: 'Agents of a project with aggregate statistics',
    input: z.strictObject({
      project_id: ProjectId,
      filters: z.strictObject({ agent_name: z.string().optional() }).optional(),
      include_costs: z.boolean().default(false),
      limit: Limit(10000, 100),
      offset: Offset,
      sort_by: SortBy.optional(),
    }),
    output: z.object({ agents: z.array(AgentSummary), total_count: z.number().int().default(0) }),
  }),
  'spans.query': op({
    method: 'POST',
    path: '/agents/spans/query',
    auth: 'none',
    summary: 'Agent spans as raw rows (no group_by) or grouped aggregates',
    input: z.strictObject({
      project_id: ProjectId,
      custom_attr_columns: z.array(z.strictObject({ key: z.string().min(1).max(256), source: z.string().optional() })).max(100).optional(),
      group_by: z.array(GroupRef).max(10).optional(),
      group_distributions: z.array(Distribution).optional(),
      group_filters: z.array(GroupFilter).max(20).optional(),
      measures: z.array(Measure).max(50).optional(),
      query: Expression.optional(),
      include_costs: z.boolean().default(false),
      include_details: z.boolean().default(false),
      limit: Limit(10000, 100),
      offset: Offset,
      sort_by: SortBy.optional(),
      started_after: DateTimeIn.optional(),
      started_before: DateTimeIn.optional(),
    }),
    output: z.object({
      groups: z.array(GroupRow),
      spans: z.array(SpanRow),
      total_count: z.number().int().default(0),
      /**
       * With a `$search` in the request: 'exact' when every span counted matches the search rule, or
       * 'superset' when the store matched messages as their stored JSON text (a team store on
       * ClickHouse), so a word of that structure (a role, a key) also matched; null without `$search`.
       */
      search_matches: z.enum(['exact', 'superset']).nullable().default(null),
    }),
  }),
} as const satisfies Record<string, ReturnType<typeof op>>;
