/**
 * compare: two traces (turns) aligned step by step, as the Compare page aligns them (shared/compare.ts
 * over each trace's chat, `chat.tracePage`), with token, cost and latency deltas per step and in total.
 */
import { z } from 'zod';
import { alignSteps, toSteps, totals, type Pair, type Step } from '../../../shared/compare.js';
import { KB, answerBytes, cutText, fitCount } from '../budget.js';
import { projectArg } from '../args.js';
import { findInProjects } from '../projects.js';
import { ToolError, tool, type ToolEnv } from '../tool.js';
import { fmtCost, fmtMs, fmtTokens, signed } from '../text.js';

/** Steps read per trace, as the Compare page reads them. */
const MAX_MESSAGES = 2000;
const BUDGET = 24 * KB;

const Side = z.object({
  trace_id: z.string(),
  steps: z.number().int(),
  failed_steps: z.number().int(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  cost_usd: z.number().nullable(),
  duration_ms: z.number().nullable(),
  truncated: z.boolean().describe(`true when the trace has more than ${MAX_MESSAGES} steps and only the first were compared`),
});
const StepBrief = z.object({ step: z.number().int(), label: z.string(), text: z.string(), input_tokens: z.number().nullable(), output_tokens: z.number().nullable(), cost_usd: z.number().nullable(), latency_ms: z.number().nullable(), failed: z.boolean(), span_id: z.string().nullable() });
const PairOut = z.object({
  kind: z.enum(['same', 'changed', 'only-a', 'only-b']),
  a: StepBrief.nullable(),
  b: StepBrief.nullable(),
  delta: z.object({ tokens: z.number().nullable(), cost_usd: z.number().nullable(), latency_ms: z.number().nullable() }).nullable().describe('b − a, for steps both runs took'),
});
type PairOutT = z.infer<typeof PairOut>;

const output = z.object({
  project: z.string(),
  a: Side,
  b: Side,
  delta: z.object({ steps: z.number().int(), input_tokens: z.number().int(), output_tokens: z.number().int(), cost_usd: z.number().nullable(), duration_ms: z.number().nullable() }),
  pairs_total: z.number().int(),
  differing_pairs: z.number().int(),
  from: z.number().int(),
  pairs: z.array(PairOut),
  next_from: z.number().int().nullable(),
});

const input = z.object({
  a: z.string().min(1).describe('trace id of the first run (a turn; get_conversation gives each turn\'s trace_id)'),
  b: z.string().min(1).describe('trace id of the second run'),
  project: projectArg,
  only_differences: z.boolean().default(false).describe('true: list only steps that differ'),
  from: z.number().int().min(0).default(0).describe('first aligned step to list (next_from of the previous answer)'),
});

async function chatOf(env: ToolEnv, asked: string | undefined, traceId: string, arg: string) {
  try {
    return await findInProjects(env, asked, `trace "${traceId}"`, async (p) => {
      const page = await env.caller.call('chat.tracePage', { project_id: p, trace_id: traceId, limit: MAX_MESSAGES }, env.signal);
      return page.messages.length || page.turn.started_at ? page : null;
    });
  } catch (e) {
    if (e instanceof ToolError) throw new ToolError(`argument "${arg}": ${e.message}`);
    throw e;
  }
}

const brief = (s: Step): z.infer<typeof StepBrief> => ({
  step: s.index, label: s.label, text: cutText(s.text, 200).text, input_tokens: s.tokensIn, output_tokens: s.tokensOut, cost_usd: s.cost, latency_ms: s.latencyMs, failed: s.failed,
  span_id: s.message.span_id,
});
const diff = (a: number | null, b: number | null) => (a == null || b == null ? null : b - a);
const sum = (x: number | null, y: number | null) => (x == null && y == null ? null : (x ?? 0) + (y ?? 0));

function pairOut(p: Pair): PairOutT {
  const both = p.a && p.b;
  return {
    kind: p.kind,
    a: p.a ? brief(p.a) : null,
    b: p.b ? brief(p.b) : null,
    delta: both ? { tokens: diff(sum(p.a!.tokensIn, p.a!.tokensOut), sum(p.b!.tokensIn, p.b!.tokensOut)), cost_usd: diff(p.a!.cost, p.b!.cost), latency_ms: diff(p.a!.latencyMs, p.b!.latencyMs) } : null,
  };
}

function pairText(p: PairOutT): string {
  const side = (s: z.infer<typeof StepBrief> | null) => (s ? `${s.failed ? '✗ ' : ''}${s.label}: ${s.text.replace(/\s+/g, ' ')}` : '—');
  const parts = p.delta
    ? [p.delta.tokens ? `${signed(p.delta.tokens)} tok` : null, p.delta.cost_usd ? signed(p.delta.cost_usd, (x) => fmtCost(x)) : null, p.delta.latency_ms ? signed(p.delta.latency_ms, fmtMs) : null].filter(Boolean)
    : [];
  const d = parts.length ? ` [Δ ${parts.join(', ')}]` : '';
  if (p.kind === 'same') return `= ${side(p.a)}${d}`;
  if (p.kind === 'only-a') return `- a only: ${side(p.a)}`;
  if (p.kind === 'only-b') return `+ b only: ${side(p.b)}`;
  return `~ a: ${side(p.a)}\n  b: ${side(p.b)}${d}`;
}

export const compare = tool({
  name: 'compare',
  title: 'Compare two runs',
  description:
    'Two traces (two turns, e.g. a run that failed and one that worked) aligned step by step as the Compare page aligns them: ' +
    'same, changed, or only in one run, with token, cost and latency deltas per step and in total.',
  budget: BUDGET,
  input,
  output,
  async run(args, env) {
    const A = await chatOf(env, args.project, args.a, 'a');
    const B = await chatOf(env, args.project ?? A.project, args.b, 'b');
    const sa = toSteps(A.value.messages);
    const sb = toSteps(B.value.messages);
    const ta = totals(sa);
    const tb = totals(sb);
    const side = (id: string, t: ReturnType<typeof totals>, page: typeof A.value) => ({
      trace_id: id, steps: t.steps, failed_steps: t.failed, input_tokens: t.tokensIn, output_tokens: t.tokensOut, cost_usd: t.cost, duration_ms: page.turn.total_duration_ms, truncated: page.has_more,
    });
    const all = alignSteps(sa, sb).map(pairOut);
    const differing = all.filter((p) => p.kind !== 'same').length;
    const list = args.only_differences ? all.filter((p) => p.kind !== 'same') : all;
    const rest = list.slice(args.from);
    const a = side(args.a, ta, A.value);
    const b = side(args.b, tb, B.value);
    const delta = { steps: tb.steps - ta.steps, input_tokens: tb.tokensIn - ta.tokensIn, output_tokens: tb.tokensOut - ta.tokensOut, cost_usd: diff(ta.cost, tb.cost), duration_ms: diff(a.duration_ms, b.duration_ms) };
    const build = (k: number) => {
      const next = args.from + k < list.length ? args.from + k : null;
      const structured = { project: A.project, a, b, delta, pairs_total: all.length, differing_pairs: differing, from: args.from, pairs: rest.slice(0, k), next_from: next };
      const head = [
        `a ${a.trace_id}: ${a.steps} steps (${a.failed_steps} failed) · ${fmtTokens(a.input_tokens)}→${fmtTokens(a.output_tokens)} tokens · ${fmtCost(a.cost_usd)} · ${fmtMs(a.duration_ms)}`,
        `b ${b.trace_id}: ${b.steps} steps (${b.failed_steps} failed) · ${fmtTokens(b.input_tokens)}→${fmtTokens(b.output_tokens)} tokens · ${fmtCost(b.cost_usd)} · ${fmtMs(b.duration_ms)}`,
        `b − a: ${signed(delta.steps)} steps, ${signed(delta.input_tokens)}→${signed(delta.output_tokens)} tokens${delta.cost_usd != null ? `, ${signed(delta.cost_usd, (x) => fmtCost(x))}` : ''}${delta.duration_ms != null ? `, ${signed(delta.duration_ms, fmtMs)}` : ''}; ${differing} of ${all.length} aligned steps differ`,
      ].join('\n');
      const tail = next !== null ? `\nMore: compare with the same arguments and from=${next}.` : '';
      return { structured, text: `${head}\n${rest.slice(0, k).map(pairText).join('\n')}${tail}` };
    };
    return build(fitCount(rest.length, (k) => answerBytes(build(k)), BUDGET));
  },
});
