import type { Db } from './open.js';
import type { ExportSelection, ExportSpan } from '../ports.js';

/**
 * SQL of `POST /export` (system domain): the stored spans of a selection, as received. Read one
 * trace at a time (never one open iterator across the whole export: better-sqlite3 would keep the
 * connection busy and block every other request while the HTTP response streams).
 *
 * A trace's spans are found by the (project, trace) key, named (INDEXED BY): to skip sorting by
 * start, the planner took spans_project_start and walked every span of the project for each trace —
 * an export quadratic in the project's size (issue 23.4: ~40 min for 100k spans).
 */
export interface ExportRepo {
  traceIds(sel: ExportSelection): string[];
  traceSpans(projectId: string, traceId: string): ExportSpan[];
}

export const EXPORT_SQL = {
  projectTraces: `SELECT DISTINCT trace_id FROM spans WHERE project_id = @project_id ORDER BY trace_id`,
  selectedTraces: `SELECT value AS trace_id FROM json_each(@trace_ids)
    UNION SELECT trace_id FROM conversation_turns WHERE project_id = @project_id AND conversation_id IN (SELECT value FROM json_each(@conversation_ids))
    ORDER BY trace_id`,
  traceSpans: `SELECT s.scope_name, s.scope_version, d.resource_attributes, d.raw_span_dump AS raw_span
    FROM spans s INDEXED BY spans_key JOIN span_details d ON d.span_rowid = s.id
    WHERE s.project_id = @project_id AND s.trace_id = @trace_id ORDER BY s.start_ns, s.span_id`,
} as const;

export function createExportRepo(db: Db): ExportRepo {
  const projectTraces = db.prepare(EXPORT_SQL.projectTraces).pluck();
  const selectedTraces = db.prepare(EXPORT_SQL.selectedTraces).pluck();
  const traceSpans = db.prepare(EXPORT_SQL.traceSpans);
  return {
    traceIds(sel) {
      if (!sel.conversation_ids && !sel.trace_ids) return projectTraces.all({ project_id: sel.project_id }) as string[];
      return selectedTraces.all({
        project_id: sel.project_id,
        trace_ids: JSON.stringify(sel.trace_ids ?? []),
        conversation_ids: JSON.stringify(sel.conversation_ids ?? []),
      }) as string[];
    },
    traceSpans: (project_id, trace_id) => traceSpans.all({ project_id, trace_id }) as ExportSpan[],
  };
}
