/** conversations.list (contract/conversations.ts): the request parsed into a ConversationsPlan, read from the summaries. */
import type { Handlers } from '../handler-types.js';
import type { OpParsedInput } from '../../../shared/contract/index.js';
import { invalid } from '../../../shared/errors.js';
import type { ConversationsPlan } from '../../domain/plans.js';
import { nsFromIso } from '../../domain/time.js';
import { CursorError, decodeCursor, encodeCursor, orderOf } from '../../domain/conversation-order.js';
import { searchScope } from '../../domain/search-text.js';
import { parseScoreCond } from '../analytics/plan/expr.js';

export function conversationsPlan(input: OpParsedInput<'conversations.list'>): ConversationsPlan {
  const f = input.filters;
  const search = input.search?.trim() || null;
  const sort: ConversationsPlan['sort'] = input.sort_by?.length ? input.sort_by.map((s) => ({ field: s.field, direction: s.direction })) : [{ field: 'last_activity', direction: 'desc' }];
  if (input.cursor !== undefined && input.offset > 0) throw invalid('offset', 'send either a cursor or an offset, not both (the cursor already says where the page starts)', input.offset);
  let after: ConversationsPlan['after'] = null;
  if (input.cursor !== undefined) {
    try {
      after = decodeCursor(orderOf(sort), input.cursor);
    } catch (e) {
      if (!(e instanceof CursorError)) throw e;
      throw invalid('cursor', `the cursor ${e.message}`);
    }
  }
  return {
    project_id: input.project_id,
    active_after_ns: f?.active_after ? nsFromIso(f.active_after) : null,
    active_before_ns: f?.active_before ? nsFromIso(f.active_before) : null,
    agent_names: f?.agent_names ?? null,
    models: f?.models ?? null,
    status: f?.status ?? 'all',
    search,
    scores: f?.scores?.length ? f.scores.map((c, i) => parseScoreCond(c, ['body', 'filters', 'scores', i])) : null,
    sort,
    limit: input.limit,
    offset: input.offset,
    after,
  };
}

export const conversationHandlers = {
  'conversations.list': async (input, ctx, call) => {
    const plan = conversationsPlan(input);
    const page = await ctx.traces.conversations(plan, call);
    // The score column: each row's scores per name, one read for the page.
    const keys = page.conversations.map((r) => r.conversation_id);
    const stats = keys.length ? await ctx.traces.scoreStats({ project_id: input.project_id, by: 'conv_key', keys, names: null }, call) : [];
    const byKey = new Map<string, typeof stats>();
    for (const s of stats) byKey.set(s.key ?? '', [...(byKey.get(s.key ?? '') ?? []), s]);
    return {
      conversations: page.conversations.map((r) => ({ ...r, scores: byKey.get(r.conversation_id) ?? [] })),
      total_count: page.total_count,
      // Labelled, never silently a lower bound (the store declares when it may be: capabilities.searchCounts).
      total_count_exact: ctx.traces.capabilities.searchCounts === 'exact' || page.total_exact,
      search_scope: plan.search ? searchScope(plan.search) : null,
      next_cursor: page.next ? encodeCursor(orderOf(plan.sort), page.next) : null,
    };
  },
  'conversations.facets': (input, ctx, call) => ctx.traces.conversationFacets(input.project_id, call),
} satisfies Partial<Handlers>;
