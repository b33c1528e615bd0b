/** Every score of a project (optionally of one name and source), newest first, read 1,000 at a time. */
import type { ServiceContext } from '../context.js';
import type { ScoreRecord, ScoreSource } from '../../domain/scores.js';

const PAGE = 1000;

export async function* allScores(ctx: ServiceContext, projectId: string, name: string | null, source: ScoreSource | null = null): AsyncGenerator<ScoreRecord> {
  let after: { created_at_ns: bigint; score_id: string } | null = null;
  for (;;) {
    const page = await ctx.traces.queryScores({ project_id: projectId, name, trace_id: null, conversation_id: null, span_id: null, source, conv_keys: null, limit: PAGE, after });
    yield* page;
    if (page.length < PAGE) return;
    const last = page[page.length - 1]!;
    after = { created_at_ns: last.created_at_ns, score_id: last.score_id };
  }
}
