/**
 * Whether a store file is whole and its read summaries agree with its spans (fault suite, fuzz test).
 * Opened read-only beside the server. Summaries are maintained inside each write transaction
 * (store/sqlite/summaries/), so after any crash or any input they must equal what the spans say;
 * a half-written batch would show here as a count that disagrees.
 */
import Database from 'better-sqlite3';

/** Problems found (empty when consistent). */
export function storeConsistency(file: string): string[] {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const problems: string[] = [];
    const integrity = db.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') problems.push(`integrity_check: ${String(integrity)}`);
    const q = (sql: string) => db.prepare(sql).safeIntegers(true).all() as Record<string, unknown>[];
    const show = (rows: Record<string, unknown>[]) => JSON.stringify(rows.slice(0, 3), (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
    const check = (what: string, sql: string) => {
      const rows = q(sql);
      if (rows.length) problems.push(`${what}: ${rows.length} disagree, e.g. ${show(rows)}`);
    };
    check('spans without a body', 'SELECT s.id FROM spans s LEFT JOIN span_bodies b ON b.span_rowid = s.id WHERE b.span_rowid IS NULL');
    check('bodies without a span', 'SELECT b.span_rowid FROM span_bodies b LEFT JOIN spans s ON s.id = b.span_rowid WHERE s.id IS NULL');
    check('bodies without their dictionary', 'SELECT b.span_rowid FROM span_bodies b WHERE b.dict_id <> 0 AND NOT EXISTS (SELECT 1 FROM dictionaries x WHERE x.id = b.dict_id)');
    check('bodies without their resource', 'SELECT b.span_rowid FROM span_bodies b WHERE NOT EXISTS (SELECT 1 FROM resources r WHERE r.id = b.resource_id)');
    check(
      'trace summaries vs spans',
      `WITH t AS (SELECT project_id, trace_id, COUNT(*) AS n, MIN(start_ns) AS f, MAX(end_ns) AS l
                    FROM spans GROUP BY project_id, trace_id)
       SELECT t.project_id, t.trace_id, t.n, ts.span_count FROM t LEFT JOIN trace_summaries ts USING (project_id, trace_id)
        WHERE ts.span_count IS NOT t.n OR ts.first_start_ns IS NOT t.f OR ts.last_end_ns IS NOT t.l`,
    );
    check(
      'trace summaries without spans',
      'SELECT ts.project_id, ts.trace_id FROM trace_summaries ts WHERE NOT EXISTS (SELECT 1 FROM spans s WHERE s.project_id = ts.project_id AND s.trace_id = ts.trace_id)',
    );
    check(
      'agent summaries vs spans',
      `WITH a AS (SELECT project_id, agent_name, COUNT(*) AS n, SUM(status_code = 'ERROR') AS e FROM spans
                   WHERE agent_name IS NOT NULL AND agent_name <> '' GROUP BY project_id, agent_name)
       SELECT a.project_id, a.agent_name, a.n, x.span_count FROM a FULL JOIN agent_summaries x USING (project_id, agent_name)
        WHERE x.span_count IS NOT a.n OR x.error_count IS NOT a.e`,
    );
    // The full-text index (migrations 0010, 0015): a document for every trace (named by its first span
    // rowid), none for a trace that is gone.
    check(
      'traces without a search document',
      `SELECT t.project_id, t.trace_id FROM (SELECT project_id, trace_id, MIN(id) AS first FROM spans GROUP BY project_id, trace_id) t
        WHERE NOT EXISTS (SELECT 1 FROM search_doc_traces d WHERE d.trace_rowid = t.first)`,
    );
    check(
      'search documents without spans',
      'SELECT d.doc FROM search_doc_traces d WHERE NOT EXISTS (SELECT 1 FROM spans s WHERE s.id = d.trace_rowid)',
    );
    check('search documents without a trace', 'SELECT id FROM search_text_docsize WHERE NOT EXISTS (SELECT 1 FROM search_doc_traces d WHERE d.doc = id)');
    return problems;
  } finally {
    db.close();
  }
}

/** Spans stored per project (what was acknowledged must be here). */
export function spansPerProject(file: string): Map<string, number> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare('SELECT project_id, COUNT(*) AS n FROM spans GROUP BY project_id').all() as { project_id: string; n: number }[];
    return new Map(rows.map((r) => [r.project_id, r.n]));
  } finally {
    db.close();
  }
}

/**
 * Tables that are not summaries: the source data (its dictionaries and resources are numbered in
 * the order writes met them), the app's own records, the full-text index (a re-import adds a
 * document instead of rewriting the trace's: storeConsistency checks its coverage), and the name layer
 * (span_name_*, migration 0031: which days are stale, read from their spans, depends on when the writes
 * came; its rows are compared with their rebuild in rollups.test and rollup-days.test).
 */
const NOT_SUMMARIES = /^(spans|span_details|span_bodies|dictionaries|resources|feedback|settings|schema_migrations|sqlite_.*|training_.*|search_.*|span_name_.*)$/;

/**
 * Every summary table's rows (sorted, times of writing left out, REALs to 12 digits), to compare two stores that should
 * hold the same spans: one imported cleanly, one interrupted by crashes and finished by re-import.
 */
export function summaryTables(file: string): Record<string, unknown[]> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const names = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[]).filter((n) => !NOT_SUMMARIES.test(n));
    const out: Record<string, unknown[]> = {};
    for (const name of names) {
      const cols = (db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(name) as string[]).filter((c) => !/(^|_)(ingested|updated|written)_at/.test(c));
      const list = cols.map((c) => `"${c}"`).join(', ');
      // REAL sums kept incrementally (add the new contribution, subtract the replaced one) differ from a
      // one-pass sum in the last bits: compared to 12 significant digits, like the pipeline test.
      const rows = db.prepare(`SELECT ${list} FROM "${name}" ORDER BY ${list}`).raw().all() as unknown[][];
      out[name] = rows.map((r) => r.map((v) => (typeof v === 'number' && !Number.isInteger(v) ? Number(v.toPrecision(12)) : v)));
    }
    return out;
  } finally {
    db.close();
  }
}
