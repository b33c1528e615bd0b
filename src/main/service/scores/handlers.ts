/** Handlers of the score operations (contract/scores.ts, issue 20): scores are kept in the trace store. */
import type { Handlers } from '../handler-types.js';
import type { ServiceContext } from '../context.js';
import type { OpParsedInput } from '../../../shared/contract/index.js';
import { invalid } from '../../../shared/errors.js';
import { isoFromNs, nsFromIso } from '../../domain/time.js';
import { decodeScoreCursor, encodeScoreCursor, scoreIdOf, type ScoreRecord, type ScoreStatsBy } from '../../domain/scores.js';
import type { ChatSpan } from '../../domain/chat/span.js';
import { compareSpans } from '../../domain/chat/span.js';

type NewScoreIn = OpParsedInput<'scores.create'>['scores'][number];

/** A stored score as the contract shows it (booleans back as booleans). */
export function scoreOut(s: ScoreRecord) {
  return {
    score_id: s.score_id,
    target: s.target,
    name: s.name,
    value: s.value_type === 'boolean' ? s.value === 1 : s.value,
    label: s.label,
    explanation: s.explanation,
    source: s.source,
    scorer: s.scorer,
    scorer_version: s.scorer_version,
    creator: s.creator,
    correction: s.correction,
    trace_id: s.trace_id,
    span_id: s.span_id,
    conversation_id: s.conversation_id,
    agent_name: s.agent_name,
    created_at: isoFromNs(s.created_at_ns),
  };
}

/** The trace's spans, read once per request. */
type SpanCache = Map<string, Promise<ChatSpan[]>>;

/**
 * A new score as stored: its target checked against the store (422 naming the score otherwise), its
 * conversation and agent taken from the spans when not given, its id from who scored what.
 */
export async function resolveScore(ctx: ServiceContext, projectId: string, s: NewScoreIn, loc: (string | number)[], cache: SpanCache, nowNs: bigint): Promise<ScoreRecord> {
  const hasValue = s.value !== undefined && s.value !== null;
  const hasLabel = s.label !== undefined && s.label !== null;
  if (!hasValue && !hasLabel && s.correction == null) throw invalid(loc, 'a score needs a value, a label or a correction');
  let conversation = s.conversation_id ?? null;
  let trace: string | null = null;
  let span: string | null = null;
  let agent = s.agent_name ?? null;
  const spansOf = (t: string) => {
    let p = cache.get(t);
    if (!p) cache.set(t, (p = ctx.traces.traceSpans(projectId, t)));
    return p;
  };
  if (s.target === 'conversation') {
    if (!conversation) throw invalid([...loc, 'conversation_id'], 'a conversation score names its conversation_id');
    const turns = await ctx.traces.conversationTurns({ project_id: projectId, conversation_id: conversation, limit: 1, offset: 0 });
    if (!turns.total_turns) throw invalid([...loc, 'conversation_id'], `project '${projectId}' has no conversation '${conversation}'`, conversation);
  } else {
    if (!s.trace_id) throw invalid([...loc, 'trace_id'], `a ${s.target} score names its trace_id`);
    trace = s.trace_id;
    const spans = await spansOf(trace);
    if (!spans.length) throw invalid([...loc, 'trace_id'], `project '${projectId}' has no trace '${trace}'`, trace);
    let about: ChatSpan | undefined;
    if (s.target === 'span') {
      if (!s.span_id) throw invalid([...loc, 'span_id'], 'a span score names its span_id');
      span = s.span_id;
      about = spans.find((x) => x.span_id === span);
      if (!about) throw invalid([...loc, 'span_id'], `trace '${trace}' has no span '${span}'`, span);
    } else {
      const inConversation = conversation ? spans.filter((x) => x.conversation_id === conversation) : spans;
      if (conversation && !inConversation.length) throw invalid([...loc, 'conversation_id'], `trace '${trace}' is not a turn of conversation '${conversation}'`, conversation);
      about = [...inConversation].sort(compareSpans).find((x) => x.agent_name) ?? inConversation[0];
      conversation ??= spans.find((x) => x.conversation_id)?.conversation_id ?? null;
    }
    if (s.target === 'span') conversation ??= about?.conversation_id ?? null;
    agent ??= about?.agent_name ?? null;
  }
  const value_type = typeof s.value === 'boolean' ? 'boolean' : hasValue ? 'number' : 'label';
  const base = {
    project_id: projectId,
    target: s.target,
    trace_id: trace,
    span_id: span,
    conversation_id: conversation,
    conv_key: conversation ?? trace!,
    agent_name: agent,
    name: s.name,
    value: typeof s.value === 'boolean' ? (s.value ? 1 : 0) : (s.value ?? null),
    label: s.label ?? null,
    value_type,
    explanation: s.explanation ?? null,
    source: s.source,
    scorer: s.scorer ?? null,
    scorer_version: s.scorer_version ?? null,
    creator: s.creator ?? null,
    correction: s.correction ?? null,
    created_at_ns: s.created_at ? nsFromIso(s.created_at)! : nowNs,
  } as const;
  return { ...base, score_id: scoreIdOf(base) };
}

const BY: Record<'agent' | 'conversation' | 'trace', ScoreStatsBy> = { agent: 'agent_name', conversation: 'conv_key', trace: 'trace_id' };

export const scoreHandlers = {
  'scores.create': async (input, ctx) => {
    const cache: SpanCache = new Map();
    const now = BigInt(Date.now()) * 1_000_000n;
    const rows: ScoreRecord[] = [];
    // One after another: a batch of scores on one trace reads its spans once (the cache).
    for (const [i, s] of input.scores.entries()) rows.push(await resolveScore(ctx, input.project_id, s, ['body', 'scores', i], cache, now));
    await ctx.traces.writeScores(rows);
    ctx.events.emit({ type: 'data.changed', project_id: input.project_id, tables: ['scores'] });
    return { scores: rows.map(scoreOut) };
  },
  'scores.query': async (input, ctx, call) => {
    const after = input.cursor != null ? decodeScoreCursor(input.cursor) : null;
    if (input.cursor != null && !after) throw invalid(['body', 'cursor'], 'cursor is not a next_cursor of this operation', input.cursor);
    const rows = await ctx.traces.queryScores(
      {
        project_id: input.project_id,
        name: input.name ?? null,
        trace_id: input.trace_id ?? null,
        conversation_id: input.conversation_id ?? null,
        span_id: input.span_id ?? null,
        source: input.source ?? null,
        conv_keys: null,
        limit: input.limit + 1,
        after,
      },
      call,
    );
    const page = rows.slice(0, input.limit);
    const last = page[page.length - 1];
    return { scores: page.map(scoreOut), next_cursor: rows.length > input.limit && last ? encodeScoreCursor(last) : null };
  },
  'scores.delete': async (input, ctx) => {
    const deleted = await ctx.traces.deleteScores(input.project_id, input.score_ids);
    if (deleted) ctx.events.emit({ type: 'data.changed', project_id: input.project_id, tables: ['scores'] });
    return { deleted };
  },
  'scores.summary': async (input, ctx, call) => ({
    summaries: await ctx.traces.scoreStats({ project_id: input.project_id, by: BY[input.by], keys: input.keys ?? null, names: input.names ?? null }, call),
  }),
} satisfies Partial<Handlers>;
