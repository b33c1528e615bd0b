/**
 * The turns of a selection (contract/scorers.ts Selection), read in batches so a rule scorer runs at
 * thousands of turns a second on either store: the conversations list gives the rows (conversations,
 * and traces without one) a keyset page at a time; for a batch of rows one read gives every
 * conversation's turn ids (`conversationsTurnIds`) and one read per chunk of turns their facts
 * (`turnsFacts`: the walk runs beside the read, the spans never reach this thread). AHEAD chunks are
 * read while the caller works on the one it has (the SQLite read pool's workers read in parallel).
 * A chunk of turns costs a handful of queries, none of which grows with the store.
 */
import type { z } from 'zod';
import type { ServiceContext } from '../context.js';
import type { Selection } from '../../../shared/contract/scorers.js';
import type { TurnFacts } from '../../domain/evals/turn-facts.js';
import type { TurnRef } from '../../store/ports.js';
import type { ConversationsPlan } from '../../domain/plans.js';
import { nsFromIso } from '../../domain/time.js';
import { parseScoreCond } from '../analytics/plan/expr.js';
import { invalid } from '../../../shared/errors.js';

export type SelectionIn = z.output<typeof Selection>;

export interface SelectedTurn {
  conversation_id: string | null;
  trace_id: string;
  /** The turn's facts; null for a turn the caller's `skip` named (not read). */
  facts: TurnFacts | null;
  /** Set by a reader that needs it: the last turn of its conversation in this selection. */
  isLast?: boolean;
}

const PAGE = 1000;
/** Rows whose turn ids are read at once. */
const ROW_BATCH = 250;
/** Turns whose facts are read at once (a ClickHouse read names each trace; a turn is a few spans). */
const TURN_CHUNK = 250;
/** Chunks read ahead of the one the caller has. */
const AHEAD = 2;

export interface TurnReadOptions {
  /** The cluster rows of a selection's cluster_id. */
  clusterRows?: (id: string) => Promise<string[]>;
  /** Turns of a chunk the caller needs no facts of (already scored): keys `trace|conversation`, asked before the read. */
  skip?: (turns: readonly TurnRef[]) => Promise<Set<string>>;
}

/** A turn's key in `skip`'s answer and the callers' sets. */
export const turnKey = (t: TurnRef) => `${t.trace_id}|${t.conversation_id ?? ''}`;

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
  // Keyset pages (the list's cursor): a deep page costs what the first does.
  for (let after = null as ConversationsPlan['after']; ; ) {
    const page = await ctx.traces.conversations({ ...plan, after });
    for (const r of page.conversations) yield { kind: r.kind, id: r.conversation_id };
    if (!page.next || page.conversations.length < PAGE) return;
    after = page.next;
  }
}

/**
 * Every turn of a selection in chunks, oldest conversation first, turns in order; at most `max_turns`.
 * A chunk's turns the caller's `skip` names come with facts null; a bare trace with no stored span
 * (deleted since the list was read) is no turn.
 */
export async function* selectedTurnChunks(ctx: ServiceContext, projectId: string, sel: SelectionIn, o: TurnReadOptions = {}): AsyncGenerator<SelectedTurn[]> {
  const max = sel.max_turns ?? Infinity;
  let out = 0;
  let queued = 0;
  const pending: { refs: number; turns: Promise<SelectedTurn[]> }[] = [];
  const read = async (chunk: TurnRef[]): Promise<SelectedTurn[]> => {
    const skipped = o.skip ? await o.skip(chunk) : new Set<string>();
    const wanted = chunk.filter((t) => !skipped.has(turnKey(t)));
    const facts = new Map((await ctx.traces.turnsFacts(projectId, wanted)).map((f, i) => [turnKey(wanted[i]!), f]));
    return chunk.flatMap((t): SelectedTurn[] => {
      if (skipped.has(turnKey(t))) return [{ ...t, facts: null }];
      const f = facts.get(turnKey(t));
      return f ? [{ ...t, facts: f }] : [];
    });
  };
  const next = async (): Promise<SelectedTurn[]> => {
    const p = pending.shift()!;
    queued -= p.refs;
    const turns = (await p.turns).slice(0, max - out);
    out += turns.length;
    return turns;
  };
  const queue = (chunk: TurnRef[]) => {
    const turns = read(chunk);
    // Awaited in order later; a failure meanwhile is not an unhandled rejection.
    turns.catch(() => {});
    pending.push({ refs: chunk.length, turns });
    queued += chunk.length;
  };
  let rows: Row[] = [];
  const turnRefs = async (batch: Row[]): Promise<TurnRef[]> => {
    const convIds = batch.filter((r) => r.kind === 'conversation').map((r) => r.id);
    const turnIds = new Map((await ctx.traces.conversationsTurnIds(projectId, convIds)).map((c) => [c.conversation_id, c.trace_ids]));
    return batch.flatMap((r): TurnRef[] => (r.kind === 'trace' ? [{ trace_id: r.id, conversation_id: null }] : (turnIds.get(r.id) ?? []).map((t) => ({ trace_id: t, conversation_id: r.id }))));
  };
  const rowsOf = selectedRows(ctx, projectId, sel, o.clusterRows);
  for (let done = false; !done; ) {
    const r = await rowsOf.next();
    if (!r.done) rows.push(r.value);
    done = r.done === true;
    if (!rows.length || (!done && rows.length < ROW_BATCH)) continue;
    const refs = await turnRefs(rows);
    rows = [];
    for (let i = 0; i < refs.length; ) {
      // Chunks in flight never ask for more turns than max_turns leaves.
      while (pending.length && out + queued >= max) {
        const turns = await next();
        if (turns.length) yield turns;
      }
      if (out >= max) return;
      const chunk = refs.slice(i, i + Math.min(TURN_CHUNK, max - out - queued));
      i += chunk.length;
      queue(chunk);
      while (pending.length > AHEAD) {
        const turns = await next();
        if (turns.length) yield turns;
      }
    }
    if (out + queued >= max) break;
  }
  while (pending.length && out < max) {
    const turns = await next();
    if (turns.length) yield turns;
  }
}
