/**
 * recent_errors: failing spans grouped by error type and tool (`spans.query` group-by over spans with
 * status ERROR, as the Spans page would), each group with its newest examples (`spans.query` rows,
 * newest first) so an agent can go straight to get_span or get_conversation.
 */
import { z } from 'zod';
import { KB, answerBytes, cutOrNull, fitCount } from '../budget.js';
import { projectArg, sinceArg } from '../args.js';
import { chooseProject } from '../projects.js';
import { tool } from '../tool.js';

const Example = z.object({ trace_id: z.string().nullable(), span_id: z.string().nullable(), conversation_id: z.string().nullable(), started_at: z.string().nullable(), message: z.string().nullable() });
const Group = z.object({
  error_type: z.string().nullable(),
  tool: z.string().nullable(),
  span_name: z.string().nullable().describe('the failing spans\' name when they are not tool calls'),
  count: z.number().int(),
  last_seen: z.string().nullable(),
  examples: z.array(Example),
});
type GroupOut = z.infer<typeof Group>;

const output = z.object({ project: z.string(), other_projects: z.array(z.string()), total_errors: z.number().int(), groups: z.array(Group) });

const BUDGET = 12 * KB;
/** Newest failing spans read for examples. */
const EXAMPLE_ROWS = 300;
const EXAMPLES_PER_GROUP = 3;
const IS_ERROR = { $expr: { $eq: [{ $getField: 'status_code' }, { $literal: 'ERROR' }] } };

export const recentErrors = tool({
  name: 'recent_errors',
  title: 'Recent errors',
  description:
    'Failing spans grouped by error type and tool, most frequent first, each with its count, last time seen and newest examples ' +
    '(trace, span and conversation ids and the error message) to open with get_span or get_conversation.',
  budget: BUDGET,
  input: z.object({ project: projectArg, since: sinceArg, limit: z.number().int().min(1).max(50).default(10).describe('groups, 1–50 (default 10)') }),
  output,
  async run(args, env) {
    const { project, others } = await chooseProject(env, args.project);
    const [grouped, rows] = await Promise.all([
      env.caller.call(
        'spans.query',
        {
          project_id: project, query: IS_ERROR, started_after: args.since, limit: args.limit,
          group_by: [{ key: 'error_type', source: 'field' }, { key: 'tool_name', source: 'field' }, { key: 'span_name', source: 'field' }],
          sort_by: [{ field: 'span_count', direction: 'desc' }],
        },
        env.signal,
      ),
      env.caller.call('spans.query', { project_id: project, query: IS_ERROR, started_after: args.since, limit: EXAMPLE_ROWS, sort_by: [{ field: 'started_at', direction: 'desc' }] }, env.signal),
    ]);
    const keyOf = (e: unknown, t: unknown, n: unknown) => JSON.stringify([e ?? null, t ?? null, n ?? null]);
    const examples = new Map<string, z.infer<typeof Example>[]>();
    for (const s of rows.spans) {
      const k = keyOf(s.error_type, s.tool_name, s.span_name);
      const list = examples.get(k) ?? examples.set(k, []).get(k)!;
      if (list.length < EXAMPLES_PER_GROUP) list.push({ trace_id: s.trace_id, span_id: s.span_id, conversation_id: s.conversation_id, started_at: s.started_at, message: cutOrNull(s.status_message, 300) });
    }
    const groups: GroupOut[] = grouped.groups.map((g) => {
      const k = g.group_keys;
      return {
        error_type: (k.error_type as string | null) ?? null, tool: (k.tool_name as string | null) ?? null, span_name: (k.span_name as string | null) ?? null,
        count: g.span_count, last_seen: g.last_seen, examples: examples.get(keyOf(k.error_type, k.tool_name, k.span_name)) ?? [],
      };
    });
    const total = rows.total_count;
    const build = (n: number) => {
      const shown = groups.slice(0, n);
      const lines = shown.map((g) => [
        `- ${g.error_type ?? '(no error type)'} in ${g.tool ? `tool ${g.tool}` : `span ${g.span_name ?? '?'}`}: ${g.count}× · last ${g.last_seen ?? '–'}`,
        ...g.examples.map((e) => `    e.g. trace ${e.trace_id} span ${e.span_id}${e.conversation_id ? ` (conversation ${e.conversation_id})` : ''}${e.message ? `: ${e.message}` : ''}`),
      ].join('\n'));
      const more = grouped.total_count > n ? `\n(${grouped.total_count - n} more groups; raise limit to see them)` : '';
      return { structured: { project, other_projects: others, total_errors: total, groups: shown }, text: `${total} failing spans in project ${project}${args.since ? ` since ${args.since}` : ''}, by error type and tool:\n${lines.join('\n')}${more}` };
    };
    return build(fitCount(groups.length, (n) => answerBytes(build(n)), BUDGET));
  },
});
