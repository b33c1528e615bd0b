/** Reading known spans or traces by key, touching only the partitions (days) that hold them. */
import { inDays } from '../writer.js';
import { join, sql, str, type Sql } from '../sql.js';

export interface SpanKey {
  trace_id: string;
  span_id: string;
  day: string;
}

/** `project_id = … AND day IN (…) AND (trace_id, span_id) IN (…)` for a page of spans. */
export function keyFilter(projectId: string, keys: readonly SpanKey[]): Sql {
  const pairs = join(keys.map((k) => sql`(${str(k.trace_id)}, ${str(k.span_id)})`), ', ');
  return sql`project_id = ${str(projectId)} AND ${inDays(keys.map((k) => k.day))} AND (trace_id, span_id) IN (${pairs}) AND deleted = 0`;
}

/** `trace_id IN (…)` of a list of traces. */
export const traceIn = (traceIds: readonly string[]): Sql => sql`trace_id IN (${join(traceIds.map((t) => sql`${str(t)}`), ', ')})`;
