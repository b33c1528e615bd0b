/**
 * Retention (issue 8 item 5): delete whole traces — of a project, by id, older than an instant, or the
 * oldest until the file fits a size cap — keeping every summary exact, then give the freed pages back
 * (incremental vacuum; stores created before it was enabled reuse them instead). Also the store's
 * size per project for Settings.
 *
 * Whole traces only: a summary is a function of all spans of a trace, so deleting traces and
 * recomputing each one's summaries (now from no spans) keeps agents, conversations, turns and trace
 * headers equal to a full recomputation (test/unit/retention.test.ts checks exactly that).
 */
import fs from 'node:fs';
import type { Db } from './open.js';
import type { DeleteResult, DeleteSelection, StorageStats } from '../ports.js';
import type { SummaryMaintainer } from './summaries/index.js';
import { createSearchIndex, type SearchIndex } from './fts.js';

/** Traces deleted per transaction: whole traces, so each transaction leaves the summaries exact. */
const CHUNK = 500;

export const RETENTION_SQL = {
  projectTraces: `SELECT project_id, trace_id, span_count FROM trace_summaries WHERE project_id = ?`,
  trace: `SELECT project_id, trace_id, span_count FROM trace_summaries WHERE project_id = ? AND trace_id = ?`,
  // "Older than": the trace's last activity (latest end, else first start) is before the instant.
  olderThan: `SELECT project_id, trace_id, span_count FROM trace_summaries
    WHERE (@project_id IS NULL OR project_id = @project_id) AND COALESCE(last_end_ns, first_start_ns) < @before_ns`,
  oldestFirst: `SELECT project_id, trace_id, span_count FROM trace_summaries ORDER BY COALESCE(last_end_ns, first_start_ns), project_id, trace_id`,
  deleteSpans: `DELETE FROM spans WHERE project_id = ? AND trace_id = ?`,
  // A deleted turn's scores go with it (conversation scores stay while the conversation has turns). INDEXED BY:
  // left to itself SQLite 3.53 searched the primary key by project_id alone — every score of the project read for
  // each deleted trace (500 traces a transaction) — where scores_trace finds the trace's own rows.
  deleteScores: `DELETE FROM scores INDEXED BY scores_trace WHERE project_id = ? AND trace_id = ?`,
  deleteProjectScores: `DELETE FROM scores WHERE project_id = ?`,
  totalSpans: `SELECT COUNT(*) FROM spans`,
  // Spans per project from the project rows (migration 0009, kept at ingest and after deletes): the Settings
  // page asks on every open, and summing trace_summaries read a row per trace (0.5 s at 5M spans).
  perProject: `SELECT project_id, span_count AS spans FROM project_summaries WHERE span_count > 0 ORDER BY project_id`,
  // Filter choices of a project that lost traces: rebuilt from its conversation rows (migration 0008).
  clearValues: `DELETE FROM project_values WHERE project_id = ? AND field = 'request_model'`,
  // The project row (migration 0009) of a project that lost traces.
  projectRow: `INSERT OR REPLACE INTO project_summaries (project_id, span_count, last_start_ns)
    SELECT @project_id, (SELECT COUNT(*) FROM spans WHERE project_id = @project_id), (SELECT MAX(start_ns) FROM spans WHERE project_id = @project_id)`,
  refillValues: `INSERT OR IGNORE INTO project_values (project_id, field, value)
    SELECT DISTINCT c.project_id, 'request_model', j.value FROM conversation_summaries c, json_each(c.request_models) j WHERE c.project_id = ?`,
} as const;

interface TraceRef {
  project_id: string;
  trace_id: string;
  span_count: number;
}

export interface RetentionRepo {
  deleteSpans(sel: DeleteSelection): DeleteResult;
  storageStats(): StorageStats;
}

export function createRetentionRepo(db: Db, file: string, summaries: SummaryMaintainer, search: SearchIndex = createSearchIndex(db)): RetentionRepo {
  const bytes = () => [file, `${file}-wal`].reduce((n, f) => n + (fs.existsSync(f) ? fs.statSync(f).size : 0), 0);
  const used = () => {
    db.pragma('wal_checkpoint(PASSIVE)');
    const pages = (db.pragma('page_count', { simple: true }) as number) - (db.pragma('freelist_count', { simple: true }) as number);
    return pages * (db.pragma('page_size', { simple: true }) as number);
  };
  const del = db.prepare(RETENTION_SQL.deleteSpans);
  const delScores = db.prepare(RETENTION_SQL.deleteScores);
  const remove = db.transaction((traces: TraceRef[]) => {
    let spans = 0;
    search.drop(traces);
    for (const t of traces) {
      spans += del.run(t.project_id, t.trace_id).changes;
      delScores.run(t.project_id, t.trace_id);
    }
    summaries.refresh(traces);
    return spans;
  });
  const compact = () => {
    if (db.pragma('auto_vacuum', { simple: true }) === 2) db.pragma('incremental_vacuum');
    db.pragma('wal_checkpoint(TRUNCATE)');
  };
  const deleteTraces = (traces: TraceRef[]) => {
    let spans = 0;
    for (let i = 0; i < traces.length; i += CHUNK) spans += remove(traces.slice(i, i + CHUNK));
    return spans;
  };

  const selected = (sel: Exclude<DeleteSelection, { kind: 'size_cap' }>): TraceRef[] => {
    switch (sel.kind) {
      case 'project':
        return db.prepare(RETENTION_SQL.projectTraces).all(sel.project_id) as TraceRef[];
      case 'traces': {
        const one = db.prepare(RETENTION_SQL.trace);
        return [...new Set(sel.trace_ids)].map((id) => one.get(sel.project_id, id) as TraceRef | undefined).filter((t): t is TraceRef => !!t);
      }
      case 'older_than':
        return db.prepare(RETENTION_SQL.olderThan).all({ project_id: sel.project_id, before_ns: sel.before_ns }) as TraceRef[];
    }
  };

  return {
    deleteSpans(sel) {
      let traces: TraceRef[] = [];
      let spans = 0;
      if (sel.kind === 'size_cap') {
        // The oldest traces first, in rounds: the spans to drop are estimated from the bytes per span,
        // then the freed pages are given back and the size measured again. "Size" is the pages in use,
        // so a store made before incremental vacuum (whose file does not shrink) is not emptied.
        // Bytes freed per span deleted, measured by the rounds so far: a store's fixed part (one
        // page at least per table and index, dictionaries) does not shrink with its spans.
        // A round never takes more than half the spans left: the first deletions free fewer bytes per
        // span than the average (index pages keyed by random ids thin out before they come free), so
        // an estimate from them overshoots — measured: a cap meant to keep half a store emptied it.
        let freedPerSpan: number | null = null;
        for (let round = 0; round < 8 && used() > sel.max_bytes; round++) {
          const total = db.prepare(RETENTION_SQL.totalSpans).pluck().get() as number;
          if (!total) break;
          const before = used();
          const estimate =
            freedPerSpan && freedPerSpan > 0
              ? Math.ceil((before - sel.max_bytes) / freedPerSpan) + 1
              : Math.ceil(total * (1 - sel.max_bytes / before)) + 1;
          const goal = round === 0 ? estimate : Math.min(estimate, Math.ceil(total / 2));
          const batch: TraceRef[] = [];
          let n = 0;
          for (const t of db.prepare(RETENTION_SQL.oldestFirst).iterate() as IterableIterator<TraceRef>) {
            batch.push(t);
            if ((n += t.span_count) >= goal) break;
          }
          if (!batch.length) break;
          const gone = deleteTraces(batch);
          spans += gone;
          traces.push(...batch);
          compact();
          if (gone) freedPerSpan = (before - used()) / gone;
        }
      } else {
        traces = selected(sel);
        spans = deleteTraces(traces);
        // A deleted project's conversation scores too (its turns' went with their traces).
        if (sel.kind === 'project') db.prepare(RETENTION_SQL.deleteProjectScores).run(sel.project_id);
        compact();
      }
      const projects = [...new Set(traces.map((t) => t.project_id))].sort();
      // Filter choices and project rows of the projects that lost traces.
      db.transaction(() => {
        for (const p of projects) {
          db.prepare(RETENTION_SQL.clearValues).run(p);
          db.prepare(RETENTION_SQL.refillValues).run(p);
          db.prepare(RETENTION_SQL.projectRow).run({ project_id: p });
        }
      })();
      return {
        deleted_spans: spans,
        deleted_traces: traces.length,
        projects,
        store_bytes: bytes(),
      };
    },
    storageStats() {
      const total = bytes();
      const rows = db.prepare(RETENTION_SQL.perProject).all() as { project_id: string; spans: number }[];
      const all = rows.reduce((n, r) => n + r.spans, 0);
      return {
        total_bytes: total,
        projects: rows.map((r) => ({ project_id: r.project_id, span_count: r.spans, bytes: all ? Math.round((total * r.spans) / all) : 0 })),
      };
    },
  };
}
