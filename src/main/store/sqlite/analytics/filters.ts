/** The WHERE clause every spans query shares: project scope, time window, `$expr` (semantics §7). */
import type { SpanScope } from '../../../domain/plans.js';
import { compileBool, type Sql } from './expr.js';

export function whereOf(f: SpanScope): Sql {
  const parts = ['s.project_id = ?'];
  const params: unknown[] = [f.project_id];
  if (f.started_after_ns !== null) {
    parts.push('s.start_ns >= ?');
    params.push(f.started_after_ns);
  }
  if (f.started_before_ns !== null) {
    parts.push('s.start_ns < ?');
    params.push(f.started_before_ns);
  }
  if (f.where) {
    const e = compileBool(f.where);
    parts.push(e.sql);
    params.push(...e.params);
  }
  return { sql: parts.join(' AND '), params };
}
