/**
 * list_projects: the projects Loupe holds (`system.projects`), most recently active first — what the
 * other tools' `project` argument takes.
 */
import { z } from 'zod';
import { KB, answerBytes, fitCount } from '../budget.js';
import { tool } from '../tool.js';

const BUDGET = 8 * KB;
const Project = z.object({ project: z.string(), spans: z.number().int(), last_activity: z.string().nullable() });

export const listProjects = tool({
  name: 'list_projects',
  title: 'List projects',
  description: 'The projects in Loupe with their span counts and last activity, most recent first (other tools default to the first).',
  budget: BUDGET,
  input: z.object({}),
  output: z.object({ projects: z.array(Project), total_count: z.number().int() }),
  async run(_args, env) {
    const { projects } = await env.caller.call('system.projects', {}, env.signal);
    const rows = projects.map((p) => ({ project: p.project_id, spans: p.span_count, last_activity: p.last_activity }));
    const build = (k: number) => ({
      structured: { projects: rows.slice(0, k), total_count: rows.length },
      text: `${rows.length} project${rows.length === 1 ? '' : 's'}:\n${rows.slice(0, k).map((p) => `- ${p.project}: ${p.spans.toLocaleString('en-US')} spans · last activity ${p.last_activity ?? '–'}`).join('\n')}${k < rows.length ? `\n(${rows.length - k} more)` : ''}`,
    });
    return build(fitCount(rows.length, (k) => answerBytes(build(k)), BUDGET));
  },
});
