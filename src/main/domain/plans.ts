/**
 * Typed plans of the analytics reads. The service parses and validates each request (spans list,
 * spans group, threads, agents, conversations list) into one of these (service/analytics/plan/);
 * every 422 is raised while parsing, with the loc/msg/type the operation has always answered. A
 * store adapter only compiles a plan into its query language: every name in a plan comes from the
 * column catalog (domain/catalog.ts), every value is typed, every order is complete (tie-breakers
 * included), so two adapters given the same plan return the same rows in the same order.
 */
import type { Column, CustomSource, GroupableColumn, SortableListColumn, ValType } from './catalog.js';
import type { BoolExpr, FieldRef } from './expr.js';
import type { ScoreCond } from './scores.js';
import type { z } from 'zod';
import { CONVERSATION_SORT_FIELDS, type ConversationRow as ConversationRowSchema } from '../../shared/contract/conversations.js';


/** A value of a conversations-list sort column. */
export type KeyValue = string | number | bigint | null;
/** A row's values of the complete order's columns, in order (domain/conversation-order.ts). */
export type ConversationKey = KeyValue[];

export type Direction = 'asc' | 'desc';

/** Which spans a spans-query plan reads: one project, a start-time window, an optional condition. */
export interface SpanScope {
  project_id: string;
  /** Spans starting at or after this instant (ns since the epoch). */
  started_after_ns: bigint | null;
  /** Spans starting strictly before this instant. */
  started_before_ns: bigint | null;
  where: BoolExpr | null;
}

// ---------------------------------------------------------------- spans list (semantics §7, no group_by)

export type ListSortRef =
  | { kind: 'column'; column: SortableListColumn }
  /** A custom attribute the request also asked as a column (custom_attr_columns). */
  | { kind: 'custom'; source: CustomSource; key: string };

export interface SpansListPlan extends SpanScope {
  /** Keys each custom map of a row carries (a column without a source is listed under all four). */
  custom_columns: { source: CustomSource; keys: string[] }[];
  include_costs: boolean;
  /** Heavy columns (messages, tool text, instructions, raw span) in the rows. */
  include_details: boolean;
  /**
   * Complete order. Default started_at desc. After the last entry an adapter appends its own stable
   * tie-breaker in the last entry's direction (SQLite: insertion order); rows equal on every entry
   * may therefore come in different orders from different adapters.
   */
  sort: { ref: ListSortRef; direction: Direction }[];
  limit: number;
  offset: number;
}

// ---------------------------------------------------------------- spans group (semantics §7, group_by)

export type GroupKeyRef =
  | { kind: 'column'; column: GroupableColumn }
  | { kind: 'custom'; source: CustomSource; key: string };

export interface GroupKeyPlan {
  /** Name of the key in the row's group_keys. */
  alias: string;
  ref: GroupKeyRef;
  /** bool keys come back as true/false (not 1/0). */
  type: ValType;
}

export type Aggregation = 'sum' | 'avg' | 'min' | 'max' | 'count' | 'count_distinct' | 'count_true' | 'count_false';

/** `agg(value)` over the group's spans, or over those for which `filter` holds. */
export interface MeasurePlan {
  aggregation: Aggregation;
  /** null only for `count` (count of spans). */
  value: FieldRef | null;
  filter: BoolExpr | null;
}

/** The fixed totals of every group row a request may sort by (semantics §7). */
export const GROUP_TOTALS = [
  'span_count', 'invocation_count', 'conversation_count', 'error_count', 'first_seen', 'last_seen', 'total_duration_ms',
  'total_input_tokens', 'total_output_tokens', 'total_reasoning_tokens', 'total_cache_creation_input_tokens',
  'total_cache_read_input_tokens', 'total_cost_usd', 'total_input_cost_usd', 'total_output_cost_usd',
] as const;
export type GroupTotal = (typeof GROUP_TOTALS)[number];

export type GroupSortRef = { kind: 'key'; index: number } | { kind: 'measure'; index: number } | { kind: 'total'; total: GroupTotal };

export interface DistributionPlan {
  alias: string;
  source: CustomSource;
  key: string;
  /** int/float: `bins` equal-width bins over the group's min..max; string/bool: the `top_n` values by count. */
  type: ValType;
  bins: number;
  top_n: number;
}

export interface SpansGroupPlan extends SpanScope {
  keys: GroupKeyPlan[];
  measures: (MeasurePlan & { alias: string })[];
  /** Groups kept: every measure within its bounds (inclusive). */
  having: { measure: MeasurePlan; min: number | null; max: number | null }[];
  /** Only with exactly one key. */
  distributions: DistributionPlan[];
  /** Cost totals computed (else null in the rows). */
  include_costs: boolean;
  /** First/last message previews of each group: set when the only key is conversation_id. */
  previews: boolean;
  /** Complete order: the request's (default: first measure desc, else last_seen desc), then every key ascending. */
  sort: { ref: GroupSortRef; direction: Direction }[];
  limit: number;
  offset: number;
}

// ---------------------------------------------------------------- threads (semantics §5)

export const THREAD_SORT_FIELDS = ['thread_id', 'turn_count', 'start_time', 'last_updated', 'p50_turn_duration_ms', 'p99_turn_duration_ms'] as const;
export type ThreadSortField = (typeof THREAD_SORT_FIELDS)[number];

export interface ThreadsPlan {
  project_id: string;
  /** Turns starting strictly after / before these instants (ns). */
  after_ns: bigint | null;
  before_ns: bigint | null;
  /** Only these threads (an empty list selects none). */
  thread_ids: string[] | null;
  /** Complete order: the request's (default last_updated desc), ending with thread_id asc. */
  sort: { field: ThreadSortField; direction: Direction }[];
  limit: number;
  offset: number;
}

// ---------------------------------------------------------------- agents (semantics §6)

export const AGENT_SORT_FIELDS = [
  'last_seen', 'first_seen', 'invocation_count', 'span_count', 'total_input_tokens', 'total_output_tokens', 'error_count',
  'total_duration_ms', 'agent_name', 'total_cost_usd',
] as const;
export type AgentSortField = (typeof AGENT_SORT_FIELDS)[number];

export interface AgentsPlan {
  project_id: string;
  /** Only this agent. */
  agent_name: string | null;
  include_costs: boolean;
  /** Complete order: the request's (default last_seen desc), ending with agent_name asc. */
  sort: { field: AgentSortField; direction: Direction }[];
  limit: number;
  offset: number;
}

// ---------------------------------------------------------------- conversations list (issue 8 item 3)

/** Sort fields of the conversations list: every column of a row (the contract's list). */
export { CONVERSATION_SORT_FIELDS };
export type ConversationSortField = (typeof CONVERSATION_SORT_FIELDS)[number];

export interface ConversationsPlan {
  project_id: string;
  /** Conversations whose last activity is at/after, or before, these instants (ns). */
  active_after_ns: bigint | null;
  active_before_ns: bigint | null;
  /** Conversations in which one of these agents took part. */
  agent_names: string[] | null;
  /** Conversations that used one of these request models. */
  models: string[] | null;
  /** 'error': at least one span with status ERROR; 'ok': none. */
  status: 'all' | 'error' | 'ok';
  /** Case-insensitive substring search (same meaning as `$search`); matching rows carry a snippet. Trimmed, non-empty. */
  search: string | null;
  /** Rows with, for each condition, a score meeting it (on the conversation, a turn or a span of it). */
  scores?: ScoreCond[] | null;
  /** The request's order (domain/conversation-order.ts completes it with conversation_id asc then kind asc). */
  sort: { field: ConversationSortField; direction: Direction }[];
  limit: number;
  offset: number;
  /** Rows strictly after this key of the complete order (the cursor's; null: from the first row). */
  after: ConversationKey | null;
}

/** One row of the conversations list, read from a summary maintained at ingest (contract shape). */
export type ConversationRow = z.output<typeof ConversationRowSchema>;

/** Fields a column reference may have in a plan (re-exported for adapters' column tables). */
export type { Column, FieldRef };
