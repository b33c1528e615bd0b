/**
 * The one 'conversations.list' request behind the conversations list: conversations and traces
 * without a conversation id (kind 'trace'), read from summaries the store keeps at ingest, filtered,
 * searched and sorted server-side.
 */
import type { OpInput, OpOutput } from '../../../../shared/contract/index';

export interface ListFilters {
  search: string;
  agent: string;
  model: string;
  status: 'all' | 'error' | 'ok';
}

export type ListSort = { field: string; direction: 'asc' | 'desc' };
export type ListRow = OpOutput<'conversations.list'>['conversations'][number] & { id: string };

export function listInput(project: string, f: ListFilters, sort: ListSort, limit: number): OpInput<'conversations.list'> {
  const search = f.search.trim();
  return {
    project_id: project,
    filters: {
      ...(f.agent ? { agent_names: [f.agent] } : {}),
      ...(f.model ? { models: [f.model] } : {}),
      status: f.status,
    },
    ...(search ? { search } : {}),
    sort_by: [{ field: sort.field as NonNullable<OpInput<'conversations.list'>['sort_by']>[number]['field'], direction: sort.direction }],
    limit,
  };
}

export const rowsOf = (data: OpOutput<'conversations.list'> | undefined): ListRow[] =>
  (data?.conversations ?? []).map((c) => ({ ...c, id: c.conversation_id }));
