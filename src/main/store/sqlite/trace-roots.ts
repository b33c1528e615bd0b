/**
 * The root spans of the traces a conversations page lists on their own (kind 'trace'), read for the
 * whole page at once (issue 19 item 5: the list used to ask one query per row). The root is the chat
 * header's (domain/conversation-row.ts traceRoot): a trace's one span without a parent is read
 * through the trace's key; only a trace with none or several reads its other spans to choose.
 */
import type { Db } from './open.js';
import { traceRoot, type RootCandidate, type TraceRoot } from '../../domain/conversation-row.js';

const COLUMNS = 'trace_id, span_id, parent_span_id, span_name, service_name, start_ns, end_ns';

export const TRACE_ROOTS_SQL = {
  parentless: (n: number) => `SELECT ${COLUMNS} FROM spans WHERE project_id = ? AND trace_id IN (${Array(n).fill('?').join(', ')}) AND parent_span_id IS NULL`,
  all: (n: number) => `SELECT ${COLUMNS} FROM spans WHERE project_id = ? AND trace_id IN (${Array(n).fill('?').join(', ')})`,
};

type Row = RootCandidate & { trace_id: string };

export function createTraceRoots(db: Db) {
  const read = (sql: string, projectId: string, ids: string[]) => db.prepare(sql).safeIntegers(true).all(projectId, ...ids) as Row[];
  const byTrace = (rows: Row[]) => {
    const m = new Map<string, Row[]>();
    for (const r of rows) m.set(r.trace_id, [...(m.get(r.trace_id) ?? []), r]);
    return m;
  };
  return {
    /** Trace id → its root, for traces of the project that have spans. */
    of(projectId: string, traceIds: string[]): Map<string, TraceRoot> {
      const out = new Map<string, TraceRoot>();
      if (!traceIds.length) return out;
      const parentless = byTrace(read(TRACE_ROOTS_SQL.parentless(traceIds.length), projectId, traceIds));
      const undecided: string[] = [];
      for (const id of traceIds) {
        const p = parentless.get(id);
        if (p?.length === 1) out.set(id, traceRoot(p)!);
        else undecided.push(id);
      }
      if (undecided.length) {
        for (const [id, spans] of byTrace(read(TRACE_ROOTS_SQL.all(undecided.length), projectId, undecided))) {
          const root = traceRoot(spans);
          if (root) out.set(id, root);
        }
      }
      return out;
    },
  };
}
