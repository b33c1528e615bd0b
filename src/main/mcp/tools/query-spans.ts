/**
 * query_spans: the Spans page's query (`spans.query`): spans filtered with the `$expr` language, as
 * light rows, or grouped by keys with measures (a group-by on agent_name alone is answered from the
 * rollups kept at ingest). The same answers as the page, in a compact form.
 */
import { z } from 'zod';
import { Aggregation } from '../../../shared/contract/analytics.js';
import { KB, answerBytes, cutOrNull, fitCount } from '../budget.js';
import { cursorArg, projectArg, sinceArg, untilArg } from '../args.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { chooseProject } from '../projects.js';
import { tool, type ArgOf } from '../tool.js';
import { textOf } from '../../../shared/text.js';
import { fmtCost, fmtMs, fmtTokens } from '../text.js';

const Source = z.enum(['field', 'custom_attrs_string', 'custom_attrs_int', 'custom_attrs_float', 'custom_attrs_bool']);
const ValueSource = z.enum(['field', 'derived', 'custom_attrs_string', 'custom_attrs_int', 'custom_attrs_float', 'custom_attrs_bool']);
const Key = z.union([z.string().min(1), z.object({ key: z.string().min(1), source: Source.default('field') })]);
const Measure = z.object({
  alias: z.string().min(1).max(64),
  aggregation: Aggregation.optional().describe('sum (default with a value), avg, min, max, count (default without), count_distinct, count_true, count_false'),
  value: z.object({ key: z.string().min(1), source: ValueSource.default('field') }).optional(),
  filter: z.object({ $expr: z.record(z.string(), z.unknown()) }).optional(),
});

const GroupOut = z.object({
  keys: z.record(z.string(), z.unknown()),
  span_count: z.number().int(),
  error_count: z.number().int(),
  invocation_count: z.number().int(),
  conversation_count: z.number().int(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  cost_usd: z.number().nullable(),
  duration_ms: z.number(),
  first_seen: z.string().nullable(),
  last_seen: z.string().nullable(),
  measures: z.record(z.string(), z.number().nullable()),
});
const SpanOut = z.object({
  span_id: z.string().nullable(),
  trace_id: z.string().nullable(),
  conversation_id: z.string().nullable(),
  name: z.string().nullable(),
  operation: z.string().nullable(),
  agent: z.string().nullable(),
  model: z.string().nullable(),
  tool: z.string().nullable(),
  status: z.enum(['UNSET', 'OK', 'ERROR']),
  error_type: z.string().nullable(),
  status_message: z.string().nullable(),
  started_at: z.string().nullable(),
  input_tokens: z.number().int().nullable(),
  output_tokens: z.number().int().nullable(),
  cost_usd: z.number().nullable(),
});

const output = z.object({
  project: z.string(),
  mode: z.enum(['spans', 'groups']),
  total_count: z.number().int(),
  groups: z.array(GroupOut),
  spans: z.array(SpanOut),
  next_cursor: z.string().nullable(),
});

const BUDGET = 16 * KB;
const input = z.object({
  project: projectArg,
  filter: z
    .object({ $expr: z.record(z.string(), z.unknown()) })
    .optional()
    .describe(
      'The Spans page\'s $expr filter, e.g. {"$expr":{"$and":[{"$eq":[{"$getField":"status_code"},{"$literal":"ERROR"}]},{"$gt":[{"$getField":"duration_ms"},{"$literal":1000}]}]}}. ' +
        'Operators: $and $or $not $eq $gt $gte $lt $lte $in $contains $search, $score ({"$score":{"name":"failures","label":…}}: spans whose span, turn or conversation carries that score; list_clusters gives each cluster\'s); operands: $getField (a span field, a derived one such as duration_ms, or a custom attribute name), $literal, $convert',
    ),
  group_by: z.array(Key).max(10).optional().describe('keys to group by: span fields ("agent_name", "request_model", "tool_name", "error_type", …) or {key, source: "custom_attrs_string"|…}; without group_by, span rows'),
  measures: z.array(Measure).max(20).optional().describe('extra measures per group, e.g. {"alias":"p_tokens","aggregation":"avg","value":{"key":"total_tokens","source":"derived"}}'),
  since: sinceArg,
  until: untilArg,
  sort: z.object({ field: z.string().min(1), direction: z.enum(['asc', 'desc']).default('desc') }).optional().describe('span rows: a span field (default started_at desc); groups: span_count, total_cost_usd, a measure alias, …'),
  limit: z.number().int().min(1).max(200).default(50).describe('rows or groups per page, 1–200 (default 50)'),
  cursor: cursorArg,
});

/** The operation's 422 locations in this tool's argument names. */
const argOf: ArgOf = (loc) => {
  const [, top, ...rest] = loc;
  const name = top === 'query' ? 'filter' : top === 'started_after' ? 'since' : top === 'started_before' ? 'until' : top === 'sort_by' ? 'sort' : String(top ?? '');
  return [name, ...rest.filter((p) => p !== 0 || top !== 'sort_by')].join('.');
};

function groupText(g: z.infer<typeof GroupOut>): string {
  const keys = Object.entries(g.keys).map(([k, v]) => `${k}=${v === null ? '(none)' : textOf(v)}`).join(', ');
  const m = Object.entries(g.measures).map(([k, v]) => `${k}=${v ?? '–'}`).join(', ');
  return `- ${keys || '(all)'}: ${g.span_count} spans · ${g.error_count} errors · ${fmtTokens(g.input_tokens)}→${fmtTokens(g.output_tokens)} tokens · ${fmtCost(g.cost_usd)} · ${fmtMs(g.duration_ms)} total${m ? ` · ${m}` : ''}`;
}
function spanText(s: z.infer<typeof SpanOut>): string {
  return `- ${s.status === 'ERROR' ? '✗ ' : ''}${s.name ?? '?'} [trace ${s.trace_id} span ${s.span_id}] ${[s.agent && `agent ${s.agent}`, s.model, s.tool && `tool ${s.tool}`, s.error_type, s.started_at].filter(Boolean).join(' · ')}${s.status_message ? ` — ${s.status_message}` : ''}`;
}

export const querySpans = tool({
  name: 'query_spans',
  title: 'Query spans',
  description:
    'Spans filtered with the $expr language (the Spans page\'s filter), as compact rows, or grouped by keys with counts, errors, tokens, ' +
    'cost, duration and your measures (group_by). Same answers as the Spans page; group_by ["agent_name"] alone reads the per-agent rollups.',
  budget: BUDGET,
  input,
  output,
  argOf,
  async run(args, env) {
    const { project } = await chooseProject(env, args.project);
    const groupBy = args.group_by?.map((k) => (typeof k === 'string' ? { key: k, source: 'field' as const } : k));
    const scope = { project, f: args.filter ?? null, g: groupBy ?? null, m: args.measures ?? null, s: args.since ?? null, u: args.until ?? null, o: args.sort ?? null };
    const offset = decodeCursor(args.cursor, 'query_spans', scope);
    const grouped = !!groupBy?.length;
    const res = await env.caller.call(
      'spans.query',
      {
        project_id: project,
        query: args.filter,
        group_by: groupBy,
        measures: args.measures,
        started_after: args.since,
        started_before: args.until,
        include_costs: true,
        sort_by: args.sort ? [args.sort] : grouped ? undefined : [{ field: 'started_at', direction: 'desc' }],
        limit: args.limit,
        offset,
      },
      env.signal,
    );
    const groups = res.groups.map((g) => ({
      keys: g.group_keys, span_count: g.span_count, error_count: g.error_count, invocation_count: g.invocation_count, conversation_count: g.conversation_count,
      input_tokens: g.total_input_tokens, output_tokens: g.total_output_tokens, cost_usd: g.total_cost_usd, duration_ms: g.total_duration_ms,
      first_seen: g.first_seen, last_seen: g.last_seen, measures: g.metrics,
    }));
    const spans = res.spans.map((s) => ({
      span_id: s.span_id, trace_id: s.trace_id, conversation_id: s.conversation_id, name: s.span_name, operation: s.operation_name, agent: s.agent_name,
      model: s.response_model ?? s.request_model, tool: s.tool_name, status: s.status_code, error_type: s.error_type, status_message: cutOrNull(s.status_message, 300),
      started_at: s.started_at, input_tokens: s.input_tokens, output_tokens: s.output_tokens, cost_usd: s.total_cost_usd,
    }));
    const rows = grouped ? groups.length : spans.length;
    const build = (k: number) => {
      const end = offset + k;
      const next = end < res.total_count && k > 0 ? encodeCursor('query_spans', scope, end) : null;
      const structured = { project, mode: grouped ? ('groups' as const) : ('spans' as const), total_count: res.total_count, groups: grouped ? groups.slice(0, k) : [], spans: grouped ? [] : spans.slice(0, k), next_cursor: next };
      const head = `${res.total_count} ${grouped ? 'groups' : 'spans'} in project ${project}${k ? `; ${offset + 1}–${end}` : ''}:`;
      const lines = grouped ? structured.groups.map(groupText) : structured.spans.map(spanText);
      return { structured, text: `${head}\n${lines.join('\n')}${next ? `\nMore: same arguments with cursor "${next}".` : ''}` };
    };
    return build(fitCount(rows, (k) => answerBytes(build(k)), BUDGET));
  },
});
