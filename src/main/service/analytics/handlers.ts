import type { Handlers } from '../handler-types.js';
import { parseAgentsQuery, parseThreadsQuery } from './plan/lists.js';
import { parseSpansQuery } from './plan/spans.js';
import { usesSearch } from '../../domain/expr.js';
import { groupByScore, hasScoreKey } from './score-groups.js';

/**
 * Handlers of the analytics operations (contract/analytics.ts). Each request is parsed into a typed
 * plan first (./plan/; every 422 is raised there), then read from the TraceStore.
 */
export const analyticsHandlers = {
  // Parsed before the first line leaves: a 422 after a 200 header is impossible.
  'threads.query': (input, ctx, call) => ctx.traces.threads(parseThreadsQuery(input), call),
  'agents.query': (input, ctx, call) => ctx.traces.agents(parseAgentsQuery(input), call),
  'spans.query': async (input, ctx, call) => {
    if (hasScoreKey(input)) return groupByScore(input, ctx, call);
    const q = parseSpansQuery(input);
    // Labelled, never silently wider: the store declares how it matches `$search` in a condition.
    const search_matches = usesSearch(q.plan) ? ctx.traces.capabilities.searchConditions : null;
    if (q.mode === 'group') {
      const r = await ctx.traces.groupSpans(q.plan, call);
      return { groups: r.groups, spans: [], total_count: r.total_count, search_matches };
    }
    const r = await ctx.traces.listSpans(q.plan, call);
    return { groups: [], spans: r.spans, total_count: r.total_count, search_matches };
  },
} satisfies Partial<Handlers>;
