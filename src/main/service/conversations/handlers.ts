/** conversations.list (contract/conversations.ts): the request parsed into a ConversationsPlan, read from the summaries. */
import type { Handlers } from '../handler-types.js';
import type { OpParsedInput } from '../../../shared/contract/index.js';
import type { ConversationsPlan } from '../../domain/plans.js';
import { nsFromIso } from '../../domain/time.js';

export function conversationsPlan(input: OpParsedInput<'conversations.list'>): ConversationsPlan {
  const f = input.filters;
  const search = input.search?.trim() || null;
  return {
    project_id: input.project_id,
    active_after_ns: f?.active_after ? nsFromIso(f.active_after) : null,
    active_before_ns: f?.active_before ? nsFromIso(f.active_before) : null,
    agent_names: f?.agent_names ?? null,
    models: f?.models ?? null,
    status: f?.status ?? 'all',
    search,
    sort: input.sort_by?.length ? input.sort_by.map((s) => ({ field: s.field, direction: s.direction })) : [{ field: 'last_activity', direction: 'desc' }],
    limit: input.limit,
    offset: input.offset,
  };
}

export const conversationHandlers = {
  'conversations.list': (input, ctx, call) => ctx.traces.conversations(conversationsPlan(input), call),
  'conversations.facets': (input, ctx, call) => ctx.traces.conversationFacets(input.project_id, call),
} satisfies Partial<Handlers>;
