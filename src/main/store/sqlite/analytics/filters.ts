/** The WHERE clause every spans query shares: project scope, time window, `$expr` (semantics §7). */
import { invalid } from '../../../../shared/errors.js';
import { nsFromIso } from '../../../domain/time.js';
import { compileExpr, type Sql } from './expr.js';

export interface SpanFilter {
  project_id: string;
  query?: { $expr: Record<string, unknown> };
  started_after?: string;
  started_before?: string;
}

export function whereOf(f: SpanFilter): Sql {
  const parts = ['s.project_id = ?'];
  const params: unknown[] = [f.project_id];
  if (f.started_after !== undefined) {
    const ns = nsFromIso(f.started_after);
    if (ns === null) throw invalid('started_after', 'Input should be a valid datetime', f.started_after);
    parts.push('s.start_ns >= ?');
    params.push(ns);
  }
  if (f.started_before !== undefined) {
    const ns = nsFromIso(f.started_before);
    if (ns === null) throw invalid('started_before', 'Input should be a valid datetime', f.started_before);
    parts.push('s.start_ns < ?');
    params.push(ns);
  }
  if (f.query) {
    const e = compileExpr(f.query, ['query']);
    parts.push(e.sql);
    params.push(...e.params);
  }
  return { sql: parts.join(' AND '), params };
}
