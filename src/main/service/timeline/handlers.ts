import type { Handlers } from '../handlers.js';
import type { OpOutput } from '../../../shared/contract/index.js';
import type { TimelineRow } from '../../store/sqlite/timeline.js';
import { isoFromUs } from '../../domain/time.js';

type Output = OpOutput<'traces.timeline'>;

/**
 * Rows → one array per field. Times become µs after the trace's earliest start, so each is a few
 * digits of JSON rather than sixteen (or a 27-character ISO string).
 */
export function toColumns(projectId: string, traceId: string, rows: TimelineRow[]): Output {
  let origin: number | null = null;
  for (const r of rows) if (r[9] != null && (origin == null || r[9] < origin)) origin = r[9];
  const o = origin ?? 0;
  const n = rows.length;
  const c: Output['columns'] = {
    span_id: new Array(n), parent_span_id: new Array(n), span_name: new Array(n), operation_name: new Array(n),
    agent_name: new Array(n), tool_name: new Array(n), request_model: new Array(n), response_model: new Array(n),
    status_code: new Array(n), start_us: new Array(n), end_us: new Array(n), input_tokens: new Array(n),
    output_tokens: new Array(n), total_cost_usd: new Array(n),
  };
  for (let i = 0; i < n; i++) {
    const r = rows[i]!;
    c.span_id[i] = r[0]; c.parent_span_id[i] = r[1]; c.span_name[i] = r[2]; c.operation_name[i] = r[3];
    c.agent_name[i] = r[4]; c.tool_name[i] = r[5]; c.request_model[i] = r[6]; c.response_model[i] = r[7];
    c.status_code[i] = r[8];
    c.start_us[i] = r[9] == null ? null : r[9] - o;
    c.end_us[i] = r[10] == null ? null : r[10] - o;
    c.input_tokens[i] = r[11]; c.output_tokens[i] = r[12]; c.total_cost_usd[i] = r[13];
  }
  return { project_id: projectId, trace_id: traceId, count: n, origin_us: origin, origin: origin == null ? null : isoFromUs(origin), columns: c };
}

/** Handler of the waterfall's read (contract/timeline.ts). */
export const timelineHandlers = {
  'traces.timeline': (input, ctx) => toColumns(input.project_id, input.trace_id, ctx.store.timeline.traceRows(input.project_id, input.trace_id)),
} satisfies Partial<Handlers>;
