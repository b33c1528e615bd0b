/**
 * The turns of a selection (contract/scorers.ts Selection), read in batches so a rule scorer runs at
 * thousands of turns a second on either store: the conversations list gives the rows (conversations,
 * and traces without one) a page at a time; for a batch of rows one read gives every conversation's
 * turn ids (`conversationsTurnIds`) and one read per chunk of turns their spans (`turnsSpans`). A
 * batch of ROW_BATCH conversations costs a handful of queries, never a few per conversation.
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
/** Rows whose turn ids are read at once. */
const ROW_BATCH = 250;
/** Turns whose spans are read at once (a ClickHouse read names each trace; a turn is a few spans). */
const TURN_CHUNK = 250;

type Row = { kind: 'conversation' | 'trace'; id: string };

/** The list rows of a selection: [kind, id] pairs. */
export async function* selectedRows(ctx: ServiceContext, projectId: string, sel: SelectionIn, clusterRows?: (id: string) => Promise<string[]>): AsyncGenerator<Row> {
  if (sel.cluster_id) {
    if (!clusterRows) throw invalid(['body', 'selection', 'cluster_id'], 'clusters are not available here');
    const ids = new Set(await clusterRows(sel.cluster_id));
    sel = { ...sel, conversation_ids: sel.conversation_ids ? sel.conversation_ids.filter((c) => ids.has(c)) : [...ids] };
  }
  if (sel.conversation_ids) {
    // A conversation id, or a trace without a conversation (the list's 'trace' rows use the trace id).
    for (let i = 0; i < sel.conversation_ids.length; i += ROW_BATCH) {
      const ids = sel.conversation_ids.slice(i, i + ROW_BATCH);
      const turns = new Set((await ctx.traces.conversationsTurnIds(projectId, ids)).map((c) => c.conversation_id));
      for (const id of ids) yield { kind: turns.has(id) ? 'conversation' : 'trace', id };
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
  let rows: Row[] = [];
  const turnsOf = async function* (batch: Row[]): AsyncGenerator<SelectedTurn> {
    const convIds = batch.filter((r) => r.kind === 'conversation').map((r) => r.id);
    const turnIds = new Map((await ctx.traces.conversationsTurnIds(projectId, convIds)).map((c) => [c.conversation_id, c.trace_ids]));
    const refs: { trace_id: string; conversation_id: string | null }[] = [];
    for (const r of batch) {
      if (r.kind === 'trace') refs.push({ trace_id: r.id, conversation_id: null });
      else for (const t of turnIds.get(r.id) ?? []) refs.push({ trace_id: t, conversation_id: r.id });
    }
    for (let i = 0; i < refs.length && n < max; ) {
      const chunk = refs.slice(i, i + Math.min(TURN_CHUNK, max - n));
      i += chunk.length;
      const spans = await ctx.traces.turnsSpans(projectId, chunk);
      for (const [j, ref] of chunk.entries()) {
        // A bare trace with no stored span (deleted since the list was read) is no turn.
        if (ref.conversation_id === null && !spans[j]!.length) continue;
        yield { conversation_id: ref.conversation_id, trace_id: ref.trace_id, spans: spans[j]! };
        n += 1;
      }
    }
  };
  for await (const row of selectedRows(ctx, projectId, sel, clusterRows)) {
    rows.push(row);
    if (rows.length < ROW_BATCH) continue;
    yield* turnsOf(rows);
    rows = [];
    if (n >= max) return;
  }
  if (rows.length && n < max) yield* turnsOf(rows);
}
