/**
 * Builds the 'spans.query' request behind the conversations list: spans grouped by conversation_id
 * (the group rows carry first/last message, counts, agents, models, cost, tokens, last_seen), a
 * `turns` measure (distinct traces), filters as a `$expr`, and the status filter as a group filter
 * on the number of error spans.
 */
import type { OpInput } from '../../../../shared/contract/index';

export interface ListFilters {
  search: string;
  agent: string;
  model: string;
  status: 'all' | 'error' | 'ok';
}

export type ListSort = { field: string; direction: 'asc' | 'desc' };

type Expr = Record<string, unknown>;

export function conversationsQuery(project: string, f: ListFilters, sort: ListSort, limit: number): OpInput<'spans.query'> {
  const and: Expr[] = [{ $not: { $eq: [{ $getField: 'conversation_id' }, { $literal: null }] } }];
  if (f.agent) and.push({ $eq: [{ $getField: 'agent_name' }, { $literal: f.agent }] });
  if (f.model) and.push({ $eq: [{ $getField: 'request_model' }, { $literal: f.model }] });
  const q = f.search.trim();
  if (q) {
    and.push({
      $or: ['conversation_id', 'conversation_name', 'agent_name', 'request_model'].map((field) => ({
        $contains: { input: { $getField: field }, substr: { $literal: q }, case_insensitive: true },
      })),
    });
  }
  const errors = { alias: 'errors', aggregation: 'count_true' as const, value: { key: 'is_error', source: 'derived' as const } };
  return {
    project_id: project,
    group_by: [{ key: 'conversation_id', source: 'field' }],
    measures: [{ alias: 'turns', aggregation: 'count_distinct', value: { key: 'trace_id', source: 'field' } }],
    group_filters: f.status === 'error' ? [{ measure: errors, min: 1 }] : f.status === 'ok' ? [{ measure: errors, max: 0 }] : undefined,
    query: { $expr: { $and: and } },
    include_costs: true,
    sort_by: [{ field: sort.field, direction: sort.direction }],
    limit,
    offset: 0,
  };
}
