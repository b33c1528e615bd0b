import type { Db } from './open.js';
import type { SettingsStore } from '../ports.js';
import type { Sync } from './sync.js';

/** Store-wide reads of the trace side: projects, the health ping, writes by other processes. */
export interface MetaRepo {
  /** A trivial query proving the database answers (system-check). */
  ping(): boolean;
  /**
   * Refuses every write on this connection from now on (SQLITE_READONLY), reads unaffected: the
   * server's read-only mode when the database was found damaged (issue 13.10).
   */
  setQueryOnly(on: boolean): void;
  /** Projects found in the store, with span counts, most recently active first. */
  listProjects(): { project_id: string; span_count: number; last_start_ns: bigint | null }[];
  /**
   * SQLite's `PRAGMA data_version` on this connection: it changes when ANOTHER connection (the CLI, a
   * second app on the same data folder) commits, never for this connection's own writes.
   */
  dataVersion(): number;
  /** The largest span rowid (new and replaced spans get larger ones); 0 when empty. */
  lastSpanRowid(): number;
  /** Projects of the spans stored after rowid `after` (a rowid range scan: only the new rows are read). */
  projectsWrittenAfter(after: number): string[];
}

export const META_SQL = {
  /**
   * Projects of the spans stored after a rowid, in project order. NOT INDEXED: left to itself the planner walked the
   * whole covering index spans_project_start (every span, for DISTINCT in index order) — 25–33 ms of CPU at 1M
   * spans, ~10× at 10M, on the writer thread every second while another process (a `loupe import` beside the
   * server) commits; the rowid range reads the new rows only (0.4 ms for 1,024 of them at 1M).
   */
  writtenAfter: 'SELECT DISTINCT project_id FROM spans NOT INDEXED WHERE id > ? ORDER BY project_id',
} as const;

export function createMetaRepo(db: Db): MetaRepo {
  const ping = db.prepare('SELECT 1 AS ok');
  const projects = db
    // project_summaries (migration 0009), kept at ingest: no pass over the spans.
    .prepare('SELECT project_id, span_count, last_start_ns FROM project_summaries WHERE span_count > 0 ORDER BY last_start_ns DESC, project_id')
    .safeIntegers(true);
  const lastRowid = db.prepare('SELECT COALESCE(MAX(id), 0) AS id FROM spans').pluck();
  const writtenAfter = db.prepare(META_SQL.writtenAfter).pluck();
  return {
    ping: () => (ping.get() as { ok: number }).ok === 1,
    setQueryOnly: (on) => void db.pragma(`query_only = ${on ? 'ON' : 'OFF'}`),
    listProjects: () =>
      (projects.all() as { project_id: string; span_count: bigint; last_start_ns: bigint | null }[]).map((r) => ({
        project_id: r.project_id,
        span_count: Number(r.span_count),
        last_start_ns: r.last_start_ns,
      })),
    dataVersion: () => db.pragma('data_version', { simple: true }) as number,
    lastSpanRowid: () => lastRowid.get() as number,
    projectsWrittenAfter: (after) => writtenAfter.all(after) as string[],
  };
}

/** Small key/value settings of the app (table `settings`). */
export function createSettingsRepo(db: Db): Sync<SettingsStore> {
  const get = db.prepare('SELECT value FROM settings WHERE key = ?').pluck();
  const put = db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value');
  const del = db.prepare('DELETE FROM settings WHERE key = ?');
  const setMany = db.transaction((values: Record<string, string | null>) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === null) del.run(k);
      else put.run(k, v);
    }
  });
  return {
    get: (key) => (get.get(key) as string | undefined) ?? null,
    set: (values) => setMany(values),
  };
}
