import { z } from 'zod';
import { op } from './define.js';

/**
 * Extension operation behind the trace waterfall (issue 5: a 20,000-span trace opens in under 2 s).
 * `spans.query` list rows are ~1.7 KB of JSON each; the waterfall draws ~12 fields, so this answers
 * every span of one trace in a columnar shape: one array per field, index i of every array is span i.
 * Key names are written once instead of once per span, and times are integer microseconds from the
 * trace's first start (a few digits) instead of ISO strings.
 */

const col = <T extends z.ZodType>(t: T) => z.array(t);
const str = col(z.string().nullable());
const num = col(z.number().nullable());

export const TimelineColumns = z.object({
  span_id: col(z.string()),
  /** As stored; a parent that is not in the trace (or null) makes the span a root in the waterfall. */
  parent_span_id: str,
  span_name: col(z.string()),
  operation_name: str,
  agent_name: str,
  tool_name: str,
  request_model: str,
  response_model: str,
  status_code: col(z.enum(['UNSET', 'OK', 'ERROR'])),
  /** Microseconds after `origin_us` (after the epoch when that is null); null when the span has no start (or end) time. */
  start_us: num,
  end_us: num,
  input_tokens: num,
  output_tokens: num,
  total_cost_usd: num,
  /** The OTLP resource's service.name (extension, issue 12: the trace header and non-GenAI rows name the service). */
  service_name: str,
});
export type TimelineColumns = z.infer<typeof TimelineColumns>;

export const timelineOps = {
  'traces.timeline': op({
    method: 'POST',
    path: '/app/traces/timeline',
    auth: 'none',
    summary:
      'Every span of one trace, light columns only, in columnar form (one array per field), ordered by start time ' +
      '(spans without a start last), then span_id. Times are µs after origin_us. An unknown trace gives count 0.',
    input: z.strictObject({
      project_id: z.string().min(1),
      trace_id: z.string().min(1),
    }),
    output: z.object({
      project_id: z.string(),
      trace_id: z.string(),
      count: z.number().int(),
      /** Earliest start of the trace in µs since the epoch (exact in a double until year 2255); null when no span has a start. */
      origin_us: z.number().int().nullable(),
      /** The same instant as ISO 8601 UTC with microseconds. */
      origin: z.string().nullable(),
      columns: TimelineColumns,
    }),
  }),
} as const satisfies Record<string, ReturnType<typeof op>>;
