/** Scoring as turns arrive (issue 20 item 2 "on new data", item 4 "at ingest"): signatures, then `auto` scorers. */
import type { ServiceContext } from '../context.js';
import { listScorers, startRun, stopRuns } from './scorers.js';
import { computeSignatures, signingOn } from './clusters.js';

/**
 * Scores new turns as they arrive: after spans of a project are written, each of its `auto` scorers
 * runs (debounced) over the conversations active since its previous automatic run, and, once the
 * project's failure signatures were computed (the Clusters view's Compute, `clusters.compute`), its
 * new turns are signed too. Projects that never asked for either pay nothing at ingest. Returns the stop.
 */
export function startAutoScoring(ctx: ServiceContext, debounceMs = 3000): () => Promise<void> {
  const timers = new Map<string, NodeJS.Timeout>();
  const since = new Map<string, number>();
  let stopped = false;
  const run = async (projectId: string) => {
    const scorers = (await listScorers(ctx, projectId)).filter((x) => x.auto);
    const from = since.get(projectId) ?? 0;
    since.set(projectId, Date.now());
    const active_after = new Date(Math.max(0, from - 60_000)).toISOString();
    // Failure signatures of the new turns (the Clusters view), then the project's automatic scorers.
    if (await signingOn(ctx, projectId)) await computeSignatures(ctx, projectId, { filters: { status: 'all', active_after } }, true).catch(() => {});
    for (const s of scorers) {
      if (stopped) return;
      await startRun(ctx, projectId, s.scorer_id, { filters: { status: 'all', active_after } }, true).catch(() => {});
    }
  };
  const off = ctx.events.on((e) => {
    if (stopped || e.type !== 'data.changed' || !e.project_id || !e.tables.includes('spans') || e.project_id.endsWith('-judge')) return;
    const p = e.project_id;
    clearTimeout(timers.get(p));
    const t = setTimeout(() => {
      timers.delete(p);
      void run(p).catch(() => {});
    }, debounceMs);
    t.unref();
    timers.set(p, t);
  });
  return async () => {
    stopped = true;
    off();
    for (const t of timers.values()) clearTimeout(t);
    await stopRuns();
  };
}
