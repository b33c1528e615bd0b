/**
 * list_clusters: the Clusters view (`clusters.list`, issue 20 item 4): turns grouped by a failure
 * signature (a failing tool and its error's shape, an error type and message shape, repeated
 * identical tool calls, length cut-offs, a user asking again, negative feedback) or by a low score,
 * largest first, with counts, time span, agents and example traces to open with get_trace.
 * A read: it never computes signatures (that writes scores); it says when none were computed.
 */
import { z } from 'zod';
import { Cluster } from '../../../shared/contract/clusters.js';
import { ScoreFilter } from '../../../shared/contract/scores.js';
import { KB, answerBytes, fitCount } from '../budget.js';
import { projectArg, sinceArg, untilArg } from '../args.js';
import { chooseProject } from '../projects.js';
import { tool } from '../tool.js';
import { quote } from '../text.js';

const EXAMPLES = 5;
const TREND_DAYS = 14;

const Row = z.object({
  cluster_id: z.string(),
  title: z.string(),
  signature: z.string(),
  kind: Cluster.shape.kind,
  count: z.number().int().describe('turns in the cluster'),
  first_seen: z.string(),
  last_seen: z.string(),
  agents: z.array(z.string()),
  trace_ids: z.array(z.string()).describe(`up to ${EXAMPLES} example traces (turns): open them with get_trace`),
  trend: z.array(z.object({ day: z.string(), count: z.number().int() })).describe(`turns per UTC day, the last ${TREND_DAYS} days with any`),
  filter: ScoreFilter.describe('the cluster as a score condition: search_conversations score, query_spans filter {"$expr":{"$score": filter}}'),
});
type RowOut = z.infer<typeof Row>;

const output = z.object({
  project: z.string(),
  other_projects: z.array(z.string()),
  signed: z.boolean().describe('false: failure signatures were never computed in this project (only low-score clusters can show)'),
  total_count: z.number().int(),
  clusters: z.array(Row),
});

const BUDGET = 16 * KB;
const input = z.object({
  project: projectArg,
  since: sinceArg,
  until: untilArg,
  limit: z.number().int().min(1).max(100).default(20).describe('clusters, 1–100 (default 20; fewer when the budget is reached)'),
});

const COMPUTE_HINT =
  'failure signatures were never computed in this project: the Clusters view in Loupe, or POST /app/clusters/compute {"project_id": …}, computes them ' +
  '(from then on new turns are signed as they arrive); meanwhile recent_errors groups failing spans';

function rowText(c: RowOut, i: number): string {
  const title = c.title !== c.signature ? `${quote(c.title, 120)} (${quote(c.signature, 200)})` : quote(c.signature, 240);
  return [
    `${i}. [${c.kind}] ${title}: ${c.count} turn${c.count === 1 ? '' : 's'} · agents ${c.agents.join(', ') || '–'} · ${c.first_seen} … ${c.last_seen}`,
    `   e.g. trace ${c.trace_ids.join(', ') || '–'} · cluster ${c.cluster_id} · filter ${JSON.stringify(c.filter)}`,
  ].join('\n');
}

export const listClusters = tool({
  name: 'list_clusters',
  title: 'List failure clusters',
  description:
    'Failure clusters of a project, largest first: turns grouped by a failure signature (a failing tool and its error, an error type and ' +
    'message shape, repeated identical tool calls, answers cut at the length limit, a user asking again, negative feedback) or by a low ' +
    'score. Each: title, kind, turns, agents, first/last seen, daily trend, example traces (open with get_trace) and the cluster as a score ' +
    'filter (search_conversations score, query_spans $score). since/until keep turns started in that window.',
  budget: BUDGET,
  input,
  output,
  async run(args, env) {
    const { project, others } = await chooseProject(env, args.project);
    const [list, signed] = await Promise.all([
      env.caller.call('clusters.list', { project_id: project, since: args.since, until: args.until }, env.signal),
      // Signed turns carry a `failures` score (value 0 when clean): one row says whether any pass ran.
      env.caller.call('scores.query', { project_id: project, name: 'failures', source: 'rule', limit: 1 }, env.signal),
    ]);
    const isSigned = signed.scores.length > 0;
    const rows: RowOut[] = list.clusters.slice(0, args.limit).map((c) => ({
      cluster_id: c.cluster_id, title: c.title, signature: c.signature, kind: c.kind, count: c.count, first_seen: c.first_seen, last_seen: c.last_seen,
      agents: c.agent_names.slice(0, 10),
      // One turn scored by several people is one example, not several.
      trace_ids: [...new Set(c.trace_ids)].slice(0, EXAMPLES), trend: c.trend.slice(-TREND_DAYS), filter: c.filter,
    }));
    const total = list.clusters.length;
    const window = args.since || args.until ? ` (turns started ${args.since ?? '…'} to ${args.until ?? 'now'})` : '';
    const build = (k: number) => {
      const shown = rows.slice(0, k);
      const structured = { project, other_projects: others, signed: isSigned, total_count: total, clusters: shown };
      const note = isSigned ? '' : `\nNote: ${COMPUTE_HINT}.`;
      if (!total) return { structured, text: `No failure clusters in project ${project}${window}.${note}` };
      const more = total > k ? `\n(${total - k} more clusters not shown${k < rows.length ? ` to stay within ${BUDGET / KB} KB` : '; raise limit to see them'})` : '';
      return { structured, text: `${total} failure cluster${total === 1 ? '' : 's'} in project ${project}${window}, largest first:\n${shown.map((c, i) => rowText(c, i + 1)).join('\n')}${more}${note}` };
    };
    return build(fitCount(rows.length, (k) => answerBytes(build(k)), BUDGET));
  },
});
