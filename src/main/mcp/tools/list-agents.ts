/**
 * list_agents: the Agents page (`agents.query` with costs); with a time window, the Spans page's
 * group-by agent_name over that window (`spans.query`), since the Agents page has no window.
 */
import { z } from 'zod';
import { KB, answerBytes, fitCount } from '../budget.js';
import { projectArg, sinceArg, untilArg } from '../args.js';
import { chooseProject } from '../projects.js';
import { tool } from '../tool.js';
import { fmtCost, fmtMs, fmtTokens } from '../text.js';

const Agent = z.object({
  agent: z.string().nullable(),
  spans: z.number().int(),
  invocations: z.number().int(),
  errors: z.number().int(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  cost_usd: z.number().nullable(),
  duration_ms: z.number(),
  first_seen: z.string().nullable(),
  last_seen: z.string().nullable(),
});
type AgentOut = z.infer<typeof Agent>;

const output = z.object({
  project: z.string(),
  other_projects: z.array(z.string()),
  source: z.enum(['agents', 'spans_group_by']).describe('agents: the Agents page; spans_group_by: group-by agent_name over the window'),
  total_count: z.number().int(),
  agents: z.array(Agent),
});

const BUDGET = 12 * KB;
const MAX_AGENTS = 200;

export const listAgents = tool({
  name: 'list_agents',
  title: 'List agents',
  description: 'The agents of a project with their spans, invocations, errors, tokens, cost, total duration and first/last activity, most spans first (the Agents page; with since/until, over that window).',
  budget: BUDGET,
  input: z.object({ project: projectArg, since: sinceArg, until: untilArg }),
  output,
  async run(args, env) {
    const { project, others } = await chooseProject(env, args.project);
    let agents: AgentOut[];
    let total: number;
    const windowed = args.since !== undefined || args.until !== undefined;
    if (!windowed) {
      const r = await env.caller.call('agents.query', { project_id: project, include_costs: true, limit: MAX_AGENTS, sort_by: [{ field: 'span_count', direction: 'desc' }] }, env.signal);
      total = r.total_count;
      agents = r.agents.map((a) => ({
        agent: a.agent_name, spans: a.span_count, invocations: a.invocation_count, errors: a.error_count, input_tokens: a.total_input_tokens,
        output_tokens: a.total_output_tokens, cost_usd: a.total_cost_usd, duration_ms: a.total_duration_ms, first_seen: a.first_seen, last_seen: a.last_seen,
      }));
    } else {
      const r = await env.caller.call(
        'spans.query',
        { project_id: project, group_by: [{ key: 'agent_name', source: 'field' }], started_after: args.since, started_before: args.until, include_costs: true, limit: MAX_AGENTS, sort_by: [{ field: 'span_count', direction: 'desc' }] },
        env.signal,
      );
      total = r.total_count;
      agents = r.groups.map((g) => ({
        agent: (g.group_keys.agent_name as string | null | undefined) ?? null, spans: g.span_count, invocations: g.invocation_count, errors: g.error_count,
        input_tokens: g.total_input_tokens, output_tokens: g.total_output_tokens, cost_usd: g.total_cost_usd, duration_ms: g.total_duration_ms, first_seen: g.first_seen, last_seen: g.last_seen,
      }));
    }
    const build = (k: number) => {
      const shown = agents.slice(0, k);
      const structured = { project, other_projects: others, source: windowed ? ('spans_group_by' as const) : ('agents' as const), total_count: total, agents: shown };
      const lines = shown.map((a) => `- ${a.agent ?? '(no agent)'}: ${a.spans} spans · ${a.invocations} invocations · ${a.errors} errors · ${fmtTokens(a.input_tokens)}→${fmtTokens(a.output_tokens)} tokens · ${fmtCost(a.cost_usd)} · ${fmtMs(a.duration_ms)} · last ${a.last_seen ?? '–'}`);
      const more = total > k ? `\n(${total - k} more agents not shown)` : '';
      return { structured, text: `${total} agents in project ${project}${windowed ? ` (${args.since ?? '…'} to ${args.until ?? 'now'})` : ''}:\n${lines.join('\n')}${more}` };
    };
    return build(fitCount(agents.length, (k) => answerBytes(build(k)), BUDGET));
  },
});
