/**
 * get_trace: a trace's span tree as compact rows, from the waterfall's own read (`traces.timeline`,
 * every span's light columns) and the trace header's totals (`chat.tracePage`'s turn, the one
 * counting rule). Rows are in tree order (depth first, children by start time), failed spans first
 * on request, and paged by cursor so a 20,000-span trace can be walked to its last span.
 */
import { z } from 'zod';
import type { OpResult } from '../caller.js';
import { KB, answerBytes, fitCount, guessRows } from '../budget.js';
import { cursorArg, projectArg } from '../args.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { findInProjects } from '../projects.js';
import { tool, type ToolEnv } from '../tool.js';
import { fmtCost, fmtMs, fmtTokens } from '../text.js';
import { listRowTitle } from '../../../shared/titles.js';

const SpanRowSchema = z.object({
  span_id: z.string(),
  parent_span_id: z.string().nullable(),
  depth: z.number().int(),
  name: z.string(),
  kind: z.string().nullable().describe('the GenAI operation (chat, execute_tool, invoke_agent, …) when known'),
  agent: z.string().nullable(),
  model: z.string().nullable(),
  tool: z.string().nullable(),
  status: z.enum(['UNSET', 'OK', 'ERROR']),
  start_ms: z.number().nullable().describe('start, in ms after the trace began'),
  duration_ms: z.number().nullable(),
  input_tokens: z.number().nullable(),
  output_tokens: z.number().nullable(),
  cost_usd: z.number().nullable(),
});
type SpanRowOut = z.infer<typeof SpanRowSchema>;

const output = z.object({
  project: z.string(),
  trace_id: z.string(),
  title: z.string().describe('the trace\'s title, by the rule of the conversations list (service: root operation, never unknown_service alone or a message template)'),
  root: z.string().nullable(),
  service: z.string().nullable(),
  started_at: z.string().nullable(),
  duration_ms: z.number().nullable(),
  span_count: z.number().int(),
  error_count: z.number().int(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  cost_usd: z.number().nullable(),
  rows_total: z.number().int().describe('rows of the walk with these arguments (depth may leave spans out)'),
  from: z.number().int().describe('position of the first row of this page in the walk'),
  spans: z.array(SpanRowSchema),
  next_cursor: z.string().nullable(),
});

const BUDGET = 24 * KB;
const input = z.object({
  trace_id: z.string().min(1),
  project: projectArg,
  depth: z.number().int().min(0).max(1000).optional().describe('deepest level to list: 0 = root spans only, 1 = their children, …; default every level'),
  errors_first: z.boolean().default(false).describe('true: failed spans first (in tree order), then the rest'),
  limit: z.number().int().min(1).max(500).default(200).describe('rows per page, 1–500 (default 200; fewer when the budget is reached)'),
  cursor: cursorArg,
});

type Timeline = OpResult<'traces.timeline'>;

/**
 * Walking a 20,000-span trace takes a few hundred pages, and each page needs the whole tree (its
 * order): the last few timelines read are kept for a short while, so a walk reads the trace once
 * instead of once per page. Short-lived on purpose: a trace still being written shows its new spans
 * within seconds.
 */
const KEEP_MS = 20_000;
const KEEP = 4;
type Header = OpResult<'chat.tracePage'>['turn'];
interface Read {
  timeline: Timeline;
  order: { index: number; depth: number }[];
  /** The trace header's totals (the Trace page's, by the one counting rule). */
  header: Header;
}
const recent = new Map<string, { at: number; read: Read }>();

/** The trace's timeline, tree order and header: read together (in parallel), kept a short while. */
async function readTrace(env: ToolEnv, project: string, traceId: string): Promise<Read | null> {
  const key = `${env.caller.scope}\u0000${project}\u0000${traceId}`;
  const hit = recent.get(key);
  if (hit && Date.now() - hit.at < KEEP_MS) return hit.read;
  const [timeline, page] = await Promise.all([
    env.caller.call('traces.timeline', { project_id: project, trace_id: traceId }, env.signal),
    env.caller.call('chat.tracePage', { project_id: project, trace_id: traceId, limit: 0 }, env.signal),
  ]);
  if (!timeline.count) return null;
  const read = { timeline, order: treeOrder(timeline.columns), header: page.turn };
  recent.delete(key);
  recent.set(key, { at: Date.now(), read });
  while (recent.size > KEEP) recent.delete(recent.keys().next().value!);
  return read;
}

/** Span indexes in tree order with their depth: roots are spans whose parent is not in the trace. */
export function treeOrder(c: Timeline['columns']): { index: number; depth: number }[] {
  const n = c.span_id.length;
  const byId = new Map<string, number>();
  for (let i = 0; i < n; i++) byId.set(c.span_id[i]!, i);
  const children = new Map<number, number[]>();
  const roots: number[] = [];
  for (let i = 0; i < n; i++) {
    const p = c.parent_span_id[i];
    const pi = p == null ? undefined : byId.get(p);
    if (pi === undefined || pi === i) roots.push(i);
    else (children.get(pi) ?? children.set(pi, []).get(pi)!).push(i);
  }
  // The timeline is ordered by start time, so each child list already is. Iterative: a chain of
  // thousands of spans must not overflow the stack. A parent cycle (broken data) is walked once.
  const out: { index: number; depth: number }[] = [];
  const seen = new Uint8Array(n);
  const stack: { index: number; depth: number }[] = roots.reverse().map((index) => ({ index, depth: 0 }));
  while (stack.length) {
    const top = stack.pop()!;
    if (seen[top.index]) continue;
    seen[top.index] = 1;
    out.push(top);
    const kids = children.get(top.index);
    if (kids) for (let k = kids.length - 1; k >= 0; k--) stack.push({ index: kids[k]!, depth: top.depth + 1 });
  }
  for (let i = 0; i < n; i++) if (!seen[i]) out.push({ index: i, depth: 0 });
  return out;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

function rowOf(c: Timeline['columns'], index: number, depth: number): SpanRowOut {
  const s = c.start_us[index] ?? null;
  const e = c.end_us[index] ?? null;
  return {
    span_id: c.span_id[index]!,
    parent_span_id: c.parent_span_id[index] ?? null,
    depth,
    name: c.span_name[index]!,
    kind: c.operation_name[index] ?? null,
    agent: c.agent_name[index] ?? null,
    model: c.response_model[index] ?? c.request_model[index] ?? null,
    tool: c.tool_name[index] ?? null,
    status: c.status_code[index]!,
    start_ms: s == null ? null : round(s / 1000),
    duration_ms: s == null || e == null ? null : round((e - s) / 1000),
    input_tokens: c.input_tokens[index] ?? null,
    output_tokens: c.output_tokens[index] ?? null,
    cost_usd: c.total_cost_usd[index] ?? null,
  };
}

function rowText(r: SpanRowOut): string {
  const facts = [
    r.kind, r.agent && `agent ${r.agent}`, r.model, r.tool && `tool ${r.tool}`,
    r.start_ms != null ? `@${fmtMs(r.start_ms)}` : null, fmtMs(r.duration_ms),
    r.input_tokens != null || r.output_tokens != null ? `${fmtTokens(r.input_tokens)}→${fmtTokens(r.output_tokens)} tok` : null,
    r.cost_usd != null ? fmtCost(r.cost_usd) : null,
  ].filter(Boolean);
  return `${'  '.repeat(Math.min(r.depth, 20))}${r.status === 'ERROR' ? '✗ ' : ''}${r.name} [${r.span_id}${r.parent_span_id ? ` ← ${r.parent_span_id}` : ''}] ${facts.join(' · ')}`;
}

export const getTrace = tool({
  name: 'get_trace',
  title: 'Read a trace (span tree)',
  description:
    'A trace (one turn of a conversation) as its span tree: one compact row per span (id, parent, depth, name, kind, agent, model, tool, ' +
    'status, start offset, duration, tokens, cost), failed spans marked ✗, with the trace totals. Use errors_first to see failures first, ' +
    'depth to see only the top levels, next_cursor to walk a large trace to its last span; get_span opens one span.',
  budget: BUDGET,
  input,
  output,
  async run(args, env) {
    const id = args.trace_id;
    const { project, value: read } = await findInProjects(env, args.project, `trace "${id}"`, (p) => readTrace(env, p, id));
    const { timeline, header } = read;
    const c = timeline.columns;
    let order = read.order;
    if (args.depth !== undefined) order = order.filter((o) => o.depth <= args.depth!);
    if (args.errors_first) order = [...order.filter((o) => c.status_code[o.index] === 'ERROR'), ...order.filter((o) => c.status_code[o.index] !== 'ERROR')];
    const scope = { project, id, d: args.depth ?? null, e: args.errors_first };
    const from = decodeCursor(args.cursor, 'get_trace', scope);
    const page = order.slice(from, from + args.limit).map((o) => rowOf(c, o.index, o.depth));
    let errors = 0;
    let last: number | null = null;
    for (let i = 0; i < timeline.count; i++) {
      if (c.status_code[i] === 'ERROR') errors++;
      const e = c.end_us[i];
      if (e != null && (last == null || e > last)) last = e;
    }
    const rootIdx = order.find((o) => o.depth === 0)?.index ?? 0;
    const agent = order.map((o) => c.agent_name[o.index]).find((a) => a) ?? null;
    const trace_root = { service_name: c.service_name[rootIdx] ?? null, span_name: c.span_name[rootIdx] ?? null };
    const facts = {
      project,
      trace_id: id,
      title: listRowTitle({ kind: 'trace', conversation_id: id, conversation_name: null, first_message: null, agent_names: agent ? [agent] : [], trace_root }),
      root: c.span_name[rootIdx] ?? null,
      service: c.service_name[rootIdx] ?? null,
      started_at: timeline.origin,
      duration_ms: last == null || timeline.origin_us == null ? null : round(last / 1000),
      span_count: timeline.count,
      error_count: errors,
      input_tokens: header.total_input_tokens,
      output_tokens: header.total_output_tokens,
      cost_usd: header.total_cost_usd,
      rows_total: order.length,
    };
    const build = (k: number) => {
      const end = from + k;
      const next = end < order.length && k > 0 ? encodeCursor('get_trace', scope, end) : null;
      const structured = { ...facts, from, spans: page.slice(0, k), next_cursor: next };
      const head =
        `Trace ${id} in project ${project}: ${facts.title} · ${facts.span_count.toLocaleString('en-US')} spans · ` +
        `${errors} failed · ${fmtMs(facts.duration_ms)} · ${fmtTokens(facts.input_tokens)}→${fmtTokens(facts.output_tokens)} tokens · ${fmtCost(facts.cost_usd)} · started ${facts.started_at ?? '–'}`;
      const range = k ? `Rows ${from + 1}–${end} of ${order.length}${args.errors_first ? ' (failed spans first)' : ''}:` : `No rows from position ${from} (the walk has ${order.length}).`;
      const tail = next ? `\nMore: get_trace with the same arguments and cursor "${next}".` : '\n(end of the trace)';
      return { structured, text: `${head}\n${range}\n${page.slice(0, k).map(rowText).join('\n')}${tail}` };
    };
    const guess = guessRows(page, answerBytes(build(0)), BUDGET, rowText);
    return build(fitCount(page.length, (k) => answerBytes(build(k)), BUDGET, guess));
  },
});
