import type { Handlers } from '../handler-types.js';
import type { OpOutput } from '../../../shared/contract/index.js';
import { isoFromUs } from '../../domain/time.js';

type Output = OpOutput<'traces.timeline'>;

/**
 * Times re-based on the trace's earliest start, so each is a few digits of JSON rather than sixteen
 * (or a 27-character ISO string).
 */
export function rebase(projectId: string, traceId: string, c: Output['columns']): Output {
  let origin: number | null = null;
  for (const s of c.start_us) if (s != null && (origin == null || s < origin)) origin = s;
  const o = origin ?? 0;
  const shift = (xs: (number | null)[]) => xs.map((x) => (x == null ? null : x - o));
  return {
    project_id: projectId,
    trace_id: traceId,
    count: c.span_id.length,
    origin_us: origin,
    origin: origin == null ? null : isoFromUs(origin),
    columns: { ...c, start_us: shift(c.start_us), end_us: shift(c.end_us) },
  };
}

/** Handler of the waterfall's read (contract/timeline.ts). */
export const timelineHandlers = {
  'traces.timeline': async (input, ctx, call) => rebase(input.project_id, input.trace_id, await ctx.traces.timeline(input.project_id, input.trace_id, call)),
} satisfies Partial<Handlers>;
