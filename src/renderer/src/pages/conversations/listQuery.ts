/**
 * The one 'conversations.list' request behind the conversations list: conversations and traces
 * without a conversation id (kind 'trace'), read from summaries the store keeps at ingest, filtered,
 * searched and sorted server-side.
 */
import type { OpInput, OpOutput } from '../../../../shared/contract/index';

/** A score condition as the list takes it (`filters.scores`): a cluster's `filter` has this shape too. */
export type ScoreCond = NonNullable<NonNullable<OpInput<'conversations.list'>['filters']>['scores']>[number];

export interface ListFilters {
  search: string;
  agent: string;
  model: string;
  status: 'all' | 'error' | 'ok';
  /** Rows with a score meeting it (issue 20): built in the filter bar, or a cluster's filter from the link. */
  score?: ScoreCond | null;
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
      ...(f.score ? { scores: [f.score] } : {}),
    },
    ...(search ? { search } : {}),
    sort_by: [{ field: sort.field as NonNullable<OpInput<'conversations.list'>['sort_by']>[number]['field'], direction: sort.direction }],
    limit,
  };
}

export const rowsOf = (data: OpOutput<'conversations.list'> | undefined): ListRow[] =>
  (data?.conversations ?? []).map((c) => ({ ...c, id: c.conversation_id }));

/**
 * The score condition a link carries (`?score={"name":"failures","label":"…"}`: the Clusters view's
 * "show these conversations"), read leniently: anything without a string name is ignored.
 */
export function scoreCondFromParam(text: string | null): ScoreCond | null {
  if (!text) return null;
  try {
    const v = JSON.parse(text) as Record<string, unknown>;
    if (!v || typeof v !== 'object' || typeof v.name !== 'string' || !v.name) return null;
    const c: ScoreCond = { name: v.name };
    if (typeof v.min === 'number') c.min = v.min;
    if (typeof v.max === 'number') c.max = v.max;
    if (typeof v.label === 'string') c.label = v.label;
    if (Array.isArray(v.labels)) c.labels = v.labels.filter((l): l is string => typeof l === 'string');
    if (v.source === 'human' || v.source === 'rule' || v.source === 'judge') c.source = v.source;
    return c;
  } catch {
    return null;
  }
}
