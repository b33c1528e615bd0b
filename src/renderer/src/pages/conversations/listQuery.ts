/**
 * Builds the 'spans.query' requests behind the conversations list and merges their answers.
 *
 * 1. Spans grouped by conversation_id (group rows carry first/last message, counts, agents, models,
 *    cost, tokens, last_seen) with a `turns` measure (distinct traces).
 * 2. Traces in which no span carries a conversation id, grouped by trace_id: a careful user expects
 *    an imported single exchange (none of the OTLP samples sets gen_ai.conversation.id) to show up as
 *    a one-turn conversation rather than vanish. A group filter keeps only traces with zero spans
 *    that have a conversation id.
 * Filters become one `$expr`; the status filter is a group filter on the number of error spans.
 * Both requests use the same sort and limit; the merge re-sorts and cuts to the limit.
 */
import type { OpInput } from '../../../../shared/contract/index';
import type { GroupRow } from '../../api/views';

export interface ListFilters {
  search: string;
  agent: string;
  model: string;
  status: 'all' | 'error' | 'ok';
}

export type ListSort = { field: string; direction: 'asc' | 'desc' };
export type ListRow = GroupRow & { kind: 'conversation' | 'trace'; id: string };

type Expr = Record<string, unknown>;
const hasConversation: Expr = { $not: { $eq: [{ $getField: 'conversation_id' }, { $literal: null }] } };

function filterExpr(f: ListFilters): Expr[] {
  const and: Expr[] = [];
  if (f.agent) and.push({ $eq: [{ $getField: 'agent_name' }, { $literal: f.agent }] });
  if (f.model) and.push({ $eq: [{ $getField: 'request_model' }, { $literal: f.model }] });
  const q = f.search.trim();
  if (q) {
    and.push({
      $or: ['conversation_id', 'conversation_name', 'trace_id', 'agent_name', 'request_model'].map((field) => ({
        $contains: { input: { $getField: field }, substr: { $literal: q }, case_insensitive: true },
      })),
    });
  }
  return and;
}

export function listQueries(project: string, f: ListFilters, sort: ListSort, limit: number): { conversations: OpInput<'spans.query'>; traces: OpInput<'spans.query'> } {
  const errors = { alias: 'errors', aggregation: 'count_true' as const, value: { key: 'is_error', source: 'derived' as const } };
  const statusFilter = f.status === 'error' ? [{ measure: errors, min: 1 }] : f.status === 'ok' ? [{ measure: errors, max: 0 }] : [];
  const common = {
    project_id: project,
    measures: [{ alias: 'turns', aggregation: 'count_distinct' as const, value: { key: 'trace_id', source: 'field' as const } }],
    include_costs: true,
    sort_by: [{ field: sort.field, direction: sort.direction }],
    limit,
    offset: 0,
  };
  const and = filterExpr(f);
  return {
    conversations: {
      ...common,
      group_by: [{ key: 'conversation_id', source: 'field' }],
      group_filters: statusFilter.length ? statusFilter : undefined,
      query: { $expr: { $and: [hasConversation, ...and] } },
    },
    traces: {
      ...common,
      group_by: [{ key: 'trace_id', source: 'field' }],
      group_filters: [...statusFilter, { measure: { aggregation: 'count', filter: { $expr: hasConversation } }, max: 0 }],
      query: and.length ? { $expr: { $and: and } } : undefined,
    },
  };
}

function sortValue(r: GroupRow, field: string): number | string | null {
  if (field === 'turns') return r.metrics.turns ?? null;
  const v = (r as unknown as Record<string, unknown>)[field];
  return typeof v === 'number' || typeof v === 'string' ? v : null;
}

/** Merges both answers in the requested order (nulls last), cut to `limit`. */
export function mergeRows(conversations: GroupRow[], traces: GroupRow[], sort: ListSort, limit: number): ListRow[] {
  const rows: ListRow[] = [
    ...conversations.map((g) => ({ ...g, kind: 'conversation' as const, id: String(g.group_keys.conversation_id) })),
    ...traces.map((g) => ({ ...g, kind: 'trace' as const, id: String(g.group_keys.trace_id) })),
  ];
  const dir = sort.direction === 'asc' ? 1 : -1;
  rows.sort((a, b) => {
    const x = sortValue(a, sort.field);
    const y = sortValue(b, sort.field);
    if (x === y) return a.id < b.id ? -1 : 1;
    if (x === null) return 1;
    if (y === null) return -1;
    return (x < y ? -1 : 1) * dir;
  });
  return rows.slice(0, limit);
}
