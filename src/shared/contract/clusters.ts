import { z } from 'zod';
import { op } from './define.js';
import { DateTimeIn, DateTimeOut } from './common.js';
import { ScoreFilter } from './scores.js';
import { ScorerRun, Selection } from './scorers.js';

/**
 * Failure clusters (issue 20 item 4): turns grouped by a deterministic failure signature (a failed
 * tool and its error's shape, an error type and message shape, repeated identical tool calls, length
 * cut-offs, a user repeating the question, negative feedback) or by a low score. Signatures are
 * computed as turns arrive and on demand (`clusters.compute`) and kept as `failures` scores, so a
 * cluster is a score filter (`filter`) that every other view takes: conversations, spans, review
 * queue, dataset.
 */
export const Cluster = z.object({
  cluster_id: z.string(),
  /** The signature, or the name a judge gave the cluster. */
  title: z.string(),
  signature: z.string(),
  kind: z.enum(['tool_error', 'error', 'repeated_tool_call', 'length_cutoff', 'rephrased', 'negative_feedback', 'low_score']),
  /** Turns in the cluster. */
  count: z.number().int(),
  first_seen: DateTimeOut,
  last_seen: DateTimeOut,
  agent_names: z.array(z.string()),
  /** Up to 20 example traces. */
  trace_ids: z.array(z.string()),
  /** Turns per UTC day. */
  trend: z.array(z.object({ day: z.string(), count: z.number().int() })),
  /** The cluster as a score condition: conversations.list `filters.scores`, spans `$score`, a run's selection. */
  filter: ScoreFilter,
});

export const clusterOps = {
  'clusters.list': op({
    method: 'POST', path: '/app/clusters', auth: 'none',
    summary: "A project's failure clusters, largest first, with counts, time span, agents and example traces (turns started in [since, until))",
    input: z.strictObject({ project_id: z.string().min(1), since: DateTimeIn.optional(), until: DateTimeIn.optional() }),
    output: z.object({ clusters: z.array(Cluster) }),
  }),
  'clusters.compute': op({
    method: 'POST', path: '/app/clusters/compute', auth: 'none',
    summary: 'Computes the failure signatures of a selection of turns (all by default); turns already signed are skipped, so it resumes. `wait: true` answers once done.',
    input: z.strictObject({ project_id: z.string().min(1), selection: Selection.default({}), wait: z.boolean().default(false) }),
    output: ScorerRun,
  }),
  'clusters.name': op({
    method: 'POST', path: '/app/clusters/name', auth: 'none',
    summary: "Asks a judge scorer's endpoint for a short name of a cluster from its examples (nothing leaves the machine unless that endpoint is remote); `name` sets it by hand",
    input: z.strictObject({ project_id: z.string().min(1), cluster_id: z.string().min(1), scorer_id: z.string().min(1).optional(), name: z.string().min(1).max(120).optional() }),
    output: z.object({ cluster_id: z.string(), title: z.string() }),
  }),
} as const;
