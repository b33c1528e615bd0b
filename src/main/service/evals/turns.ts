/**
 * The turns of a selection (contract/scorers.ts Selection), read in batches so a rule scorer runs at
 * thousands of turns a second: the conversations list gives the rows (conversations, and traces
 * without one), then each conversation's turns are read in one call per chunk of traces
 * (`conversationTurnSpans`), a bare trace with `traceSpans`.
 */
import type { z } from 'zod';
import type { ServiceContext } from '../context.js';
import type { Selection } from '../../../shared/contract/scorers.js';
import type { ChatSpan } from '../../domain/chat/span.js';
import type { ConversationsPlan } from '../../domain/plans.js';
import { nsFromIso } from '../../domain/time.js';
import { parseScoreCond } from '../analytics/plan/expr.js';
import { invalid } from '../../../shared/errors.js';

export type SelectionIn = z.output<typeof Selection>;

export interface SelectedTurn {
  conversation_id: string | null;
  trace_id: string;
  spans: ChatSpan[];
  /** Set by a reader that needs it: the last turn of its conversation in this selection. */
  isLast?: boolean;
}

const PAGE = 1000;
const TURN_CHUNK = 64;

/** The list rows of a selection: [kind, id] pairs. */
export async function* selectedRows(ctx: ServiceContext, projectId: string, sel: SelectionIn, clusterRows?: (id: string) => Promise<string[]>): AsyncGenerator<{ kind: 'conversation' | 'trace'; id: string }> {
  if (sel.cluster_id) {
    if (!clusterRows) throw invalid(['body', 'selection', 'cluster_id'], 'clusters are not available here');
    const ids = new Set(await clusterRows(sel.cluster_id));
    sel = { ...sel, conversation_ids: sel.conversation_ids ? sel.conversation_ids.filter((c) => ids.has(c)) : [...ids] };
  }
  if (sel.conversation_ids) {
    // A conversation id, or a trace without a conversation (the list's 'trace' rows use the trace id).
    for (const id of sel.conversation_ids) {
      const t = await ctx.traces.conversationTurns({ project_id: projectId, conversation_id: id, limit: 0, offset: 0 });
      yield { kind: t.total_turns ? 'conversation' : 'trace', id };
    }
    return;
  }
  const f = sel.filters;
  const time = (v: string | undefined, at: string) => {
    if (v === undefined) return null;
    const ns = nsFromIso(v);
    if (ns === null) throw invalid(['body', 'selection', 'filters', at], 'Input should be a valid datetime', v);
    return ns;
  };
  const plan: ConversationsPlan = {
    project_id: projectId,
    active_after_ns: time(f?.active_after, 'active_after'),
    active_before_ns: time(f?.active_before, 'active_before'),
    agent_names: f?.agent_names ?? null,
    models: f?.models ?? null,
    status: f?.status ?? 'all',
    search: sel.search?.trim() || null,
    scores: f?.scores?.map((c, i) => parseScoreCond(c, ['body', 'selection', 'filters', 'scores', i])) ?? null,
    sort: [{ field: 'first_activity', direction: 'asc' }],
    limit: PAGE,
    offset: 0,
    after: null,
  };
  for (let offset = 0; ; offset += PAGE) {
    const page = await ctx.traces.conversations({ ...plan, offset });
    for (const r of page.conversations) yield { kind: r.kind, id: r.conversation_id };
    if (page.conversations.length < PAGE) return;
  }
}

/** Every turn of a selection, oldest conversation first, turns in order; at most `max_turns`. */
export async function* selectedTurns(ctx: ServiceContext, projectId: string, sel: SelectionIn, clusterRows?: (id: string) => Promise<string[]>): AsyncGenerator<SelectedTurn> {
  let n = 0;
  const max = sel.max_turns ?? Infinity;
  for await (const row of selectedRows(ctx, projectId, sel, clusterRows)) {
    if (row.kind === 'trace') {
      const spans = await ctx.traces.traceSpans(projectId, row.id);
      if (spans.length) {
        yield { conversation_id: null, trace_id: row.id, spans };
        if (++n >= max) return;
      }
      continue;
    }
    const ids: string[] = [];
    for (let offset = 0; ; offset += PAGE) {
      const page = await ctx.traces.conversationTurns({ project_id: projectId, conversation_id: row.id, limit: PAGE, offset });
      ids.push(...page.trace_ids);
      if (page.trace_ids.length < PAGE) break;
    }
    ids.reverse(); // the turns page is newest first
    for (let i = 0; i < ids.length; i += TURN_CHUNK) {
      const chunk = ids.slice(i, i + TURN_CHUNK);
      const spans = await ctx.traces.conversationTurnSpans(projectId, row.id, chunk);
      for (const [j, s] of spans.entries()) {
        yield { conversation_id: row.id, trace_id: chunk[j]!, spans: s };
        if (++n >= max) return;
      }
    }
  }
}
