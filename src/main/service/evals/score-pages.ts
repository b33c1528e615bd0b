/** Scores of a project read 1,000 at a time, and which turns of a chunk a scorer already scored. */
import type { ServiceContext } from '../context.js';
import type { ScoreRecord, ScoreSource } from '../../domain/scores.js';
import type { TurnRef } from '../../store/ports.js';

const PAGE = 1000;

/** Every score of a project (optionally of one name and source, of some conversations-list rows), newest first. */
export async function* allScores(
  ctx: ServiceContext, projectId: string, name: string | null, source: ScoreSource | null = null, convKeys: string[] | null = null, withCorrection = false,
): AsyncGenerator<ScoreRecord> {
  let after: { created_at_ns: bigint; score_id: string } | null = null;
  for (;;) {
    const page = await ctx.traces.queryScores({ project_id: projectId, name, trace_id: null, conversation_id: null, span_id: null, source, conv_keys: convKeys, limit: PAGE, after, with_correction: withCorrection });
    yield* page;
    if (page.length < PAGE) return;
    const last = page[page.length - 1]!;
    after = { created_at_ns: last.created_at_ns, score_id: last.score_id };
  }
}

/**
 * The turns of `turns` (keys `trace|conversation`) carrying a score of this name and source that `mine`
 * accepts (a scorer version's own): one indexed read of the chunk's conversations, so a run's check
 * costs what its chunk holds, never what the project holds.
 */
export async function scoredTurns(ctx: ServiceContext, projectId: string, name: string, source: ScoreSource, turns: readonly TurnRef[], mine: (r: ScoreRecord) => boolean): Promise<Set<string>> {
  const done = new Set<string>();
  if (!turns.length) return done;
  const convKeys = [...new Set(turns.map((t) => t.conversation_id ?? t.trace_id))];
  for await (const r of allScores(ctx, projectId, name, source, convKeys)) if (r.target === 'turn' && mine(r)) done.add(`${r.trace_id}|${r.conversation_id ?? ''}`);
  return done;
}

/**
 * The turns of `turns` that already carry the score whose id `idOf` gives (a scorer's one score per
 * turn) and that `mine` accepts (its version): read by key — what the chunk's turns hold besides is
 * never read (at 1M spans, reading the chunk's every score was a fifth of a run's reads).
 */
export async function scoredTurnsById(ctx: ServiceContext, projectId: string, turns: readonly TurnRef[], idOf: (t: TurnRef) => string, mine: (r: ScoreRecord) => boolean): Promise<Set<string>> {
  const done = new Set<string>();
  if (!turns.length) return done;
  const byId = new Map(turns.map((t) => [idOf(t), t]));
  const rows = await ctx.traces.queryScores({
    project_id: projectId, name: null, trace_id: null, conversation_id: null, span_id: null, source: null, conv_keys: null, limit: byId.size, after: null, score_ids: [...byId.keys()],
  });
  for (const r of rows) {
    const t = byId.get(r.score_id);
    if (t && mine(r)) done.add(`${t.trace_id}|${t.conversation_id ?? ''}`);
  }
  return done;
}
