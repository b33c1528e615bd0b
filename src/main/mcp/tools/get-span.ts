/**
 * get_span: one span whole, as the trace page's span panel reads it (`spans.query` for the span with
 * its details and costs; events and attributes from the span as received). Long values are cut with
 * a marker; `field` + `offset` read any value on from where it was cut.
 */
import { z } from 'zod';
import type { OpResult } from '../caller.js';
import { otlpAttributes, spanEvents } from '../../../shared/otlp-span.js';
import { nsFromIso } from '../../domain/time.js';
import { KB, answerBytes, cutText, fitCount } from '../budget.js';
import { projectArg } from '../args.js';
import { findInProjects } from '../projects.js';
import { ToolError, tool } from '../tool.js';
import { fmtCost, fmtMs, fmtTokens } from '../text.js';

type SpanRow = OpResult<'spans.query'>['spans'][number];

const Header = z.object({
  span_id: z.string(),
  trace_id: z.string(),
  parent_span_id: z.string().nullable(),
  conversation_id: z.string().nullable(),
  name: z.string().nullable(),
  operation: z.string().nullable(),
  span_kind: z.string(),
  status: z.enum(['UNSET', 'OK', 'ERROR']),
  status_message: z.string().nullable(),
  error_type: z.string().nullable(),
  agent: z.string().nullable(),
  model: z.string().nullable(),
  tool: z.string().nullable(),
  started_at: z.string().nullable(),
  ended_at: z.string().nullable(),
  duration_ms: z.number().nullable(),
  input_tokens: z.number().int().nullable(),
  output_tokens: z.number().int().nullable(),
  cost_usd: z.number().nullable(),
});
const Item = z.object({
  section: z.enum(['exception', 'tool', 'message', 'reasoning', 'event', 'attribute']),
  field: z.string().describe('pass as `field` to read this value whole'),
  label: z.string(),
  text: z.string(),
  total_chars: z.number().int(),
});
type ItemOut = z.infer<typeof Item>;
type FullItem = Omit<ItemOut, 'text' | 'total_chars'> & { full: string };

const output = z.object({
  project: z.string(),
  span: Header,
  items: z.array(Item).describe('exceptions first, then the tool call, messages, reasoning, events and attributes'),
  items_total: z.number().int(),
  read: z
    .object({ field: z.string(), offset: z.number().int(), text: z.string(), total_chars: z.number().int(), next_offset: z.number().int().nullable() })
    .nullable()
    .describe('with `field`: that value from `offset`'),
});

const BUDGET = 24 * KB;
/** Characters of one value shown in the overview, and read per call with `field`. */
const CAP = { exception: 1500, tool: 1500, message: 1500, reasoning: 1000, event: 400, attribute: 300 } as const;
const READ_CHUNK = 16_000;

const input = z.object({
  trace_id: z.string().min(1),
  span_id: z.string().min(1),
  project: projectArg,
  field: z.string().min(1).optional().describe('read one value whole (a `field` named in a previous answer, e.g. "tool.result", "message.2", "attribute.gen_ai.input.messages", "raw_span")'),
  offset: z.number().int().min(0).default(0).describe('with field: first character to read (the cut marker says where the overview stopped)'),
});

/** Every value of the span an agent may read, in the order shown. */
function itemsOf(span: SpanRow): FullItem[] {
  const out: FullItem[] = [];
  const push = (section: ItemOut['section'], field: string, label: string, full: string | null | undefined) => {
    if (full != null && full !== '') out.push({ section, field, label, full });
  };
  let raw: { attributes?: unknown; events?: unknown } | null;
  try {
    raw = span.raw_span_dump ? (JSON.parse(span.raw_span_dump) as { attributes?: unknown; events?: unknown }) : null;
  } catch {
    raw = null;
  }
  const startNs = span.started_at ? nsFromIso(span.started_at) : null;
  const events = spanEvents(raw?.events, startNs === null ? null : Number(startNs / 1000n));
  events.forEach((e, i) => {
    const a = Object.fromEntries(e.attrs);
    const when = e.offsetUs != null ? ` at +${fmtMs(e.offsetUs / 1000)}` : '';
    if (e.name === 'exception') {
      const text = [`${a['exception.type'] ?? 'Exception'}: ${a['exception.message'] ?? ''}`, a['exception.stacktrace']].filter(Boolean).join('\n');
      push('exception', `event.${i}`, `exception${when}`, text);
    } else push('event', `event.${i}`, `event ${e.name}${when}`, e.attrs.map(([k, v]) => `${k}=${v}`).join('; ') || '(no attributes)');
  });
  push('tool', 'tool.arguments', `${span.tool_name ?? 'tool'} arguments`, span.tool_call_arguments);
  push('tool', 'tool.result', `${span.tool_name ?? 'tool'} result`, span.tool_call_result);
  const msgs = [...span.input_messages.map((m) => ({ ...m, dir: 'input' })), ...span.output_messages.map((m) => ({ ...m, dir: 'output' }))];
  msgs.forEach((m, i) => push('message', `message.${i}`, `${m.dir} ${m.role}${m.finish_reason ? ` (${m.finish_reason})` : ''}`, m.content));
  push('reasoning', 'reasoning', 'reasoning', span.reasoning_content);
  push('message', 'system_instructions', 'system instructions', span.system_instructions.join('\n'));
  for (const [k, v] of otlpAttributes(raw?.attributes)) push('attribute', `attribute.${k}`, k, v);
  push('attribute', 'raw_span', 'the span as received (OTLP JSON)', span.raw_span_dump);
  return out;
}

const header = (s: SpanRow): z.infer<typeof Header> => {
  const start = s.started_at ? nsFromIso(s.started_at) : null;
  const end = s.ended_at ? nsFromIso(s.ended_at) : null;
  return {
    span_id: s.span_id!, trace_id: s.trace_id!, parent_span_id: s.parent_span_id, conversation_id: s.conversation_id, name: s.span_name,
    operation: s.operation_name, span_kind: s.span_kind, status: s.status_code, status_message: s.status_message, error_type: s.error_type,
    agent: s.agent_name, model: s.response_model ?? s.request_model, tool: s.tool_name, started_at: s.started_at, ended_at: s.ended_at,
    duration_ms: start !== null && end !== null ? Number(end - start) / 1e6 : null, input_tokens: s.input_tokens, output_tokens: s.output_tokens, cost_usd: s.total_cost_usd,
  };
};

function headerText(project: string, h: z.infer<typeof Header>): string {
  return [
    `Span ${h.span_id} of trace ${h.trace_id} (project ${project}): ${h.name ?? '?'}${h.operation ? ` [${h.operation}]` : ''} · ${h.status}${h.error_type ? ` ${h.error_type}` : ''}${h.status_message ? `: ${h.status_message}` : ''}`,
    `  parent ${h.parent_span_id ?? '–'} · conversation ${h.conversation_id ?? '–'} · agent ${h.agent ?? '–'} · model ${h.model ?? '–'} · tool ${h.tool ?? '–'}`,
    `  ${h.started_at ?? 'no start'} · ${fmtMs(h.duration_ms)} · ${fmtTokens(h.input_tokens)}→${fmtTokens(h.output_tokens)} tokens · ${fmtCost(h.cost_usd)}`,
  ].join('\n');
}

export const getSpan = tool({
  name: 'get_span',
  title: 'Read a span',
  description:
    'One span whole: status and error, exceptions with stack traces, the tool call\'s arguments and result, input and output messages, ' +
    'reasoning, events and every attribute. Long values are cut with a marker; call again with `field` (and `offset`) to read one value on.',
  budget: BUDGET,
  input,
  output,
  async run(args, env) {
    const { project, value: span } = await findInProjects(env, args.project, `span "${args.span_id}" of trace "${args.trace_id}"`, async (p) => {
      const r = await env.caller.call(
        'spans.query',
        {
          project_id: p,
          query: { $expr: { $and: [{ $eq: [{ $getField: 'trace_id' }, { $literal: args.trace_id }] }, { $eq: [{ $getField: 'span_id' }, { $literal: args.span_id }] }] } },
          include_details: true,
          include_costs: true,
          limit: 1,
        },
        env.signal,
      );
      return r.spans[0] ?? null;
    });
    const h = header(span);
    const all = itemsOf(span);
    if (args.field !== undefined) {
      const item = all.find((i) => i.field === args.field);
      if (!item) throw new ToolError(`argument "field": this span has no value "${args.field}"; its fields: ${all.map((i) => i.field).join(', ')}`);
      if (args.offset > item.full.length) throw new ToolError(`argument "offset": "${args.field}" has ${item.full.length} characters (offset 0–${item.full.length})`);
      const build = (n: number) => {
        const text = item.full.slice(args.offset, args.offset + n);
        const end = args.offset + text.length;
        const read = { field: item.field, offset: args.offset, text, total_chars: item.full.length, next_offset: end < item.full.length ? end : null };
        const more = read.next_offset !== null ? `\n…[${item.full.length - end} more characters: get_span with field="${item.field}" offset=${end}]` : '\n(end of the value)';
        return { structured: { project, span: h, items: [], items_total: all.length, read }, text: `${headerText(project, h)}\n${item.label}, characters ${args.offset}–${end} of ${item.full.length}:\n${text}${more}` };
      };
      return build(fitCount(Math.min(READ_CHUNK, item.full.length - args.offset), (n) => answerBytes(build(n)), BUDGET));
    }
    const items: ItemOut[] = all.map((i) => ({
      section: i.section, field: i.field, label: i.label, total_chars: i.full.length,
      text: cutText(i.full, CAP[i.section], `get_span with field="${i.field}" offset=${CAP[i.section]} reads on`).text,
    }));
    const build = (k: number) => {
      const shown = items.slice(0, k);
      const left = items.slice(k);
      const tail = left.length ? `\n(${left.length} more values left out to stay within ${BUDGET / KB} KB; read one with field=…: ${left.slice(0, 30).map((i) => i.field).join(', ')}${left.length > 30 ? ', …' : ''})` : '';
      const lines = shown.map((i) => `${i.section === 'attribute' ? '  ' : ''}${i.label}: ${i.text}`);
      return { structured: { project, span: h, items: shown, items_total: items.length, read: null }, text: `${headerText(project, h)}\n${lines.join('\n')}${tail}` };
    };
    return build(fitCount(items.length, (k) => answerBytes(build(k)), BUDGET));
  },
});
