/** Handlers of the scorer operations (contract/scorers.ts, issue 20 item 2). */
import type { Handlers } from '../handler-types.js';
import { deleteScorer, estimateRun, listRuns, listScorers, saveScorer, startRun } from './scorers.js';
import { clusterConversations, computeSignatures, listClusters, nameCluster } from './clusters.js';
import { invalid } from '../../../shared/errors.js';

export const scorerHandlers = {
  'scorers.list': async (input, ctx) => ({ scorers: await listScorers(ctx, input.project_id) }),
  'scorers.save': (input, ctx) => saveScorer(ctx, input.project_id, input.scorer),
  'scorers.delete': async (input, ctx) => ({ deleted: await deleteScorer(ctx, input.project_id, input.scorer_id) }),
  'scorers.secret': (input, ctx) => {
    if (!ctx.secrets) throw invalid(['body', 'name'], 'this Loupe keeps no secrets file');
    if (input.value === null) ctx.secrets.delete(input.name);
    else ctx.secrets.set(input.name, input.value);
    return { name: input.name, stored: input.value !== null };
  },
  'scorers.estimate': (input, ctx) => estimateRun(ctx, input.project_id, input.scorer_id, input.selection, (id) => clusterConversations(ctx, input.project_id, id)),
  'scorers.run': (input, ctx) => startRun(ctx, input.project_id, input.scorer_id, input.selection, input.wait, (id) => clusterConversations(ctx, input.project_id, id)),
  'scorers.runs': (input) => ({ runs: listRuns(input.project_id) }),
  'clusters.list': async (input, ctx, call) => ({ clusters: await listClusters(ctx, input.project_id, input.since, input.until, call.signal) }),
  'clusters.compute': (input, ctx) => computeSignatures(ctx, input.project_id, input.selection, input.wait),
  'clusters.name': (input, ctx) => nameCluster(ctx, input.project_id, input.cluster_id, input.scorer_id, input.name),
} satisfies Partial<Handlers>;
