/**
 * SQL of the training domain (semantics §9): models, checkpoints, jobs, job events, remote backends.
 * Synchronous: the AppStore (app-store.ts) wraps these in the port's async methods and runs the
 * intention-named multi-row writes each in one transaction.
 */
import type Database from 'better-sqlite3';
import type { Db } from './open.js';
import type { BackendRow, CheckpointRow, DatasetRow, JobEventRow, JobPatch, JobRow, ListedModelRow, ModelRow, TrainingStore } from '../ports.js';
import type { Sync } from './sync.js';

/** The training store's methods, synchronous; `recordRollouts` needs the feedback table and lives in app-store.ts. */
export type TrainingRepo = Sync<Omit<TrainingStore, 'recordRollouts' | 'applySettings'>>;

type Raw = Record<string, unknown>;
const toCheckpoint = (r: Raw): CheckpointRow => ({ ...(r as unknown as CheckpointRow), metrics: JSON.parse(r.metrics as string) as Record<string, number> });
const toJob = (r: Raw): JobRow => ({
  ...(r as unknown as JobRow),
  payload: r.payload === null ? null : (JSON.parse(r.payload as string) as unknown),
  summary: JSON.parse(r.summary as string) as Record<string, unknown>,
});
const toEvent = (r: Raw): JobEventRow => ({ ...(r as unknown as JobEventRow), data: JSON.parse(r.data as string) as Record<string, unknown> });

/**
 * The two statements of `addDatasetVersion`, for a writer on another thread: the placement callback
 * cannot cross to it, so the AppStore (app-store.ts) chooses the number, places the file, then
 * inserts the row, one dataset version at a time (the unique index on the version still holds).
 */
export function createDatasetVersions(db: Db) {
  // Prepared on first use, like the repository's (a store not yet migrated still opens).
  const last = () => db.prepare('SELECT MAX(version) FROM training_datasets WHERE entity = ? AND project = ? AND name = ?').pluck();
  const insert = () =>
    db.prepare(`INSERT INTO training_datasets (id, entity, project, name, version, file, bytes, lines, sha256, source, created_at_us)
     VALUES (@id, @entity, @project, @name, @version, @file, @bytes, @lines, @sha256, @source, @created_at_us)`);
  let stmts: { last: Database.Statement; insert: Database.Statement } | null = null;
  const get = () => (stmts ??= { last: last(), insert: insert() });
  return {
    next: (entity: string, project: string, name: string): number => ((get().last.get(entity, project, name) as number | null) ?? -1) + 1,
    insert: (row: DatasetRow): void => void get().insert.run(row),
  };
}

export function createTrainingRepo(db: Db): TrainingRepo {
  // Statements are prepared lazily (first use) so opening a store never fails on a database that
  // has not been migrated to 0004 yet; each is then prepared exactly once.
  const cache = new Map<string, Database.Statement<unknown[], unknown>>();
  const q = (sql: string) => {
    let s = cache.get(sql);
    if (!s) cache.set(sql, (s = db.prepare<unknown[], unknown>(sql)));
    return s;
  };
  const CP_COLS = 'id, model_id, step, metrics, created_at_us';
  const JOB_COLS =
    'id, model_id, kind, status, payload, payload_file, summary, created_at_us, training_start_us, training_end_us, error_message, step, remote_job_id';
  const DS_COLS = 'id, entity, project, name, version, file, bytes, lines, sha256, source, created_at_us';
  const EV_COLS = 'id, job_id, type, data, created_at_us';
  const versions = createDatasetVersions(db);

  const insertModel = (m: ModelRow) =>
    void q(`INSERT INTO training_models (id, entity, project, name, base_model, run_id, backend, remote_model_id, runtime_model, created_at_us)
            VALUES (@id, @entity, @project, @name, @base_model, @run_id, @backend, @remote_model_id, @runtime_model, @created_at_us)`).run(m);
  const insertCheckpoint = (c: CheckpointRow) =>
    void q(`INSERT INTO training_checkpoints (${CP_COLS}) VALUES (@id, @model_id, @step, @metrics, @created_at_us)`).run({ ...c, metrics: JSON.stringify(c.metrics) });
  const checkpointByStep = (modelId: string, step: number) => {
    const r = q(`SELECT ${CP_COLS} FROM training_checkpoints WHERE model_id = ? AND step = ?`).get(modelId, step) as Raw | undefined;
    return r ? toCheckpoint(r) : null;
  };
  const listCheckpoints = (modelId: string) => (q(`SELECT ${CP_COLS} FROM training_checkpoints WHERE model_id = ? ORDER BY step`).all(modelId) as Raw[]).map(toCheckpoint);
  const setCheckpointMetrics = (id: string, metrics: Record<string, number>) =>
    void q('UPDATE training_checkpoints SET metrics = ? WHERE id = ?').run(JSON.stringify(metrics), id);
  const deleteSteps = (modelId: string, steps: number[]) =>
    steps.filter((s) => q('DELETE FROM training_checkpoints WHERE model_id = ? AND step = ?').run(modelId, s).changes > 0);
  const updateJob = (id: string, patch: JobPatch) => {
    // Each patchable column is either kept or set: one fixed statement for every patch.
    const cur = q(`SELECT ${JOB_COLS} FROM training_jobs WHERE id = ?`).get(id) as Raw | undefined;
    if (!cur) return;
    const next = { ...cur, ...patch, id };
    q(`UPDATE training_jobs SET status = @status, training_start_us = @training_start_us, training_end_us = @training_end_us,
         error_message = @error_message, step = @step, remote_job_id = @remote_job_id, payload_file = @payload_file,
         payload = @payload WHERE id = @id`).run({
      id,
      status: next.status,
      training_start_us: next.training_start_us,
      training_end_us: next.training_end_us,
      error_message: next.error_message,
      step: next.step,
      remote_job_id: next.remote_job_id,
      payload_file: next.payload_file,
      payload: next.payload, // the stored JSON text, or null once dropped
    });
  };
  const insertEvent = (e: JobEventRow) =>
    void q(`INSERT INTO training_job_events (${EV_COLS}) VALUES (@id, @job_id, @type, @data, @created_at_us)`).run({ ...e, data: JSON.stringify(e.data) });

  return {
    insertModel,
    createModel: (m, first) =>
      db.transaction(() => {
        insertModel(m);
        insertCheckpoint(first);
      })(),
    getModel: (id) => (q('SELECT * FROM training_models WHERE id = ?').get(id) as ModelRow | undefined) ?? null,
    findModel: (entity, project, name) =>
      (q('SELECT * FROM training_models WHERE entity = ? AND project = ? AND name = ?').get(entity, project, name) as ModelRow | undefined) ?? null,
    pageModels: (f) => {
      // rowid is creation order (rows are never updated in place). Filters are `@x IS NULL OR`
      // so one fixed statement per direction serves every combination.
      let cursor: number | null = null;
      if (f.after !== null) {
        cursor = (q('SELECT rowid FROM training_models WHERE id = ?').pluck().get(f.after) as number | undefined) ?? null;
        if (cursor === null) return null;
      }
      const where = `(@entity IS NULL OR entity = @entity) AND (@project IS NULL OR project = @project)`;
      const latest = '(SELECT MAX(step) FROM training_checkpoints c WHERE c.model_id = m.id) AS latest_step';
      const sql =
        f.order === 'asc'
          ? `SELECT m.*, ${latest} FROM training_models m WHERE ${where} AND m.rowid > @cursor ORDER BY m.rowid ASC LIMIT @n`
          : `SELECT m.*, ${latest} FROM training_models m WHERE ${where} AND m.rowid < @cursor ORDER BY m.rowid DESC LIMIT @n`;
      return q(sql).all({
        entity: f.entity,
        project: f.project,
        cursor: cursor ?? (f.order === 'asc' ? -1 : Number.MAX_SAFE_INTEGER),
        n: f.limit + 1,
      }) as ListedModelRow[];
    },
    deleteModel: (id) =>
      db.transaction(() => {
        const n = q('DELETE FROM training_checkpoints WHERE model_id = ?').run(id).changes;
        q('DELETE FROM training_models WHERE id = ?').run(id);
        return n;
      })(),

    insertCheckpoint,
    latestCheckpoint: (modelId) => {
      const r = q(`SELECT ${CP_COLS} FROM training_checkpoints WHERE model_id = ? ORDER BY step DESC LIMIT 1`).get(modelId) as Raw | undefined;
      return r ? toCheckpoint(r) : null;
    },
    checkpointByStep,
    checkpointById: (modelId, id) => {
      const r = q(`SELECT ${CP_COLS} FROM training_checkpoints WHERE model_id = ? AND id = ?`).get(modelId, id) as Raw | undefined;
      return r ? toCheckpoint(r) : null;
    },
    listCheckpoints,
    pageCheckpoints: (modelId, afterStep, limit, order) => {
      // Two statements rather than SQL built from `order`: text is fixed, values are parameters.
      const sql =
        order === 'asc'
          ? `SELECT ${CP_COLS} FROM training_checkpoints WHERE model_id = @m AND step > @after ORDER BY step ASC LIMIT @n`
          : `SELECT ${CP_COLS} FROM training_checkpoints WHERE model_id = @m AND step < @after ORDER BY step DESC LIMIT @n`;
      const after = afterStep ?? (order === 'asc' ? -1 : Number.MAX_SAFE_INTEGER);
      return (q(sql).all({ m: modelId, after, n: limit + 1 }) as Raw[]).map(toCheckpoint);
    },
    setCheckpointMetrics,
    deleteCheckpointSteps: (modelId, steps) => db.transaction(() => deleteSteps(modelId, steps))(),
    mirrorCheckpoints: (modelId, list, createdAtUs) =>
      db.transaction(() => {
        const steps = new Set(list.map((c) => c.step));
        deleteSteps(modelId, listCheckpoints(modelId).filter((c) => !steps.has(c.step)).map((c) => c.step));
        for (const c of list) {
          const local = checkpointByStep(modelId, c.step);
          if (!local) insertCheckpoint({ id: c.id, model_id: modelId, step: c.step, metrics: c.metrics, created_at_us: createdAtUs });
          else setCheckpointMetrics(local.id, c.metrics);
        }
      })(),

    modelIds: () => q('SELECT id FROM training_models ORDER BY rowid').pluck().all() as string[],

    insertJob: (j) =>
      void q(`INSERT INTO training_jobs (id, model_id, kind, status, payload_file, summary, created_at_us)
              VALUES (@id, @model_id, @kind, @status, @payload_file, @summary, @created_at_us)`).run({ ...j, summary: JSON.stringify(j.summary) }),
    getJob: (id) => {
      const r = q(`SELECT ${JOB_COLS} FROM training_jobs WHERE id = ?`).get(id) as Raw | undefined;
      return r ? toJob(r) : null;
    },
    updateJob,
    completeJob: (jobId, end) =>
      db.transaction(() => {
        if (end.checkpoint) insertCheckpoint(end.checkpoint);
        insertEvent(end.event);
        updateJob(jobId, { ...end.patch, status: 'COMPLETED' });
      })(),
    failJob: (jobId, end) =>
      db.transaction(() => {
        updateJob(jobId, { ...end.patch, status: end.status ?? 'FAILED' });
        insertEvent(end.event);
      })(),
    endedJobsWithPayload: () =>
      (
        q(`SELECT ${JOB_COLS} FROM training_jobs WHERE status NOT IN ('QUEUED', 'RUNNING')
           AND (payload_file IS NOT NULL OR payload IS NOT NULL) ORDER BY rowid`).all() as Raw[]
      ).map(toJob),
    pageJobs: (f) => {
      let cursor = Number.MAX_SAFE_INTEGER;
      if (f.after !== null) {
        const r = q('SELECT rowid FROM training_jobs WHERE id = ?').pluck().get(f.after) as number | undefined;
        if (r === undefined) return null;
        cursor = r;
      }
      const sql = `SELECT ${JOB_COLS} FROM training_jobs WHERE (@model IS NULL OR model_id = @model) AND (@status IS NULL OR status = @status)
                   AND rowid < @cursor ORDER BY rowid DESC LIMIT @n`;
      return (q(sql).all({ model: f.modelId, status: f.status, cursor, n: f.limit + 1 }) as Raw[]).map(toJob);
    },
    jobsWithStatus: (status, modelId) =>
      (modelId === undefined
        ? (q(`SELECT ${JOB_COLS} FROM training_jobs WHERE status = ? ORDER BY rowid`).all(status) as Raw[])
        : (q(`SELECT ${JOB_COLS} FROM training_jobs WHERE status = ? AND model_id = ? ORDER BY rowid`).all(status, modelId) as Raw[])
      ).map(toJob),

    insertEvent,
    pageEvents: (jobId, after, limit) => {
      let afterSeq = 0;
      if (after !== null) {
        const s = q('SELECT seq FROM training_job_events WHERE id = ? AND job_id = ?').pluck().get(after, jobId) as number | undefined;
        if (s === undefined) return null;
        afterSeq = s;
      }
      return (q(`SELECT ${EV_COLS} FROM training_job_events WHERE job_id = ? AND seq > ? ORDER BY seq LIMIT ?`).all(jobId, afterSeq, limit + 1) as Raw[]).map(toEvent);
    },
    eventsOfType: (jobId, type) => (q(`SELECT ${EV_COLS} FROM training_job_events WHERE job_id = ? AND type = ? ORDER BY seq`).all(jobId, type) as Raw[]).map(toEvent),

    addDatasetVersion: (d, place) =>
      db.transaction(() => {
        const version = versions.next(d.entity, d.project, d.name);
        const row: DatasetRow = { ...d, version, file: place(version) };
        versions.insert(row);
        return row;
      })(),
    getDataset: (entity, project, name, version) =>
      ((version === null
        ? q(`SELECT ${DS_COLS} FROM training_datasets WHERE entity = ? AND project = ? AND name = ? ORDER BY version DESC LIMIT 1`).get(entity, project, name)
        : q(`SELECT ${DS_COLS} FROM training_datasets WHERE entity = ? AND project = ? AND name = ? AND version = ?`).get(entity, project, name, version)) as
        | DatasetRow
        | undefined) ?? null,
    datasetBySha: (entity, project, name, sha256) =>
      (q(`SELECT ${DS_COLS} FROM training_datasets WHERE entity = ? AND project = ? AND name = ? AND sha256 = ? ORDER BY version LIMIT 1`).get(
        entity,
        project,
        name,
        sha256,
      ) as DatasetRow | undefined) ?? null,
    pageDatasets: (f) => {
      let cursor = Number.MAX_SAFE_INTEGER;
      if (f.after !== null) {
        const r = q('SELECT rowid FROM training_datasets WHERE id = ?').pluck().get(f.after) as number | undefined;
        if (r === undefined) return null;
        cursor = r;
      }
      return q(`SELECT ${DS_COLS} FROM training_datasets WHERE (@entity IS NULL OR entity = @entity) AND (@project IS NULL OR project = @project)
                AND (@name IS NULL OR name = @name) AND rowid < @cursor ORDER BY rowid DESC LIMIT @n`).all({
        entity: f.entity,
        project: f.project,
        name: f.name,
        cursor,
        n: f.limit + 1,
      }) as DatasetRow[];
    },

    putBackend: (b) =>
      void q(`INSERT INTO training_backends (name, base_url, api_key, created_at_us) VALUES (@name, @base_url, @api_key, @now)
              ON CONFLICT(name) DO UPDATE SET base_url = excluded.base_url, api_key = excluded.api_key`).run({ ...b, now: Date.now() * 1000 }),
    removeBackend: (name) => void q('DELETE FROM training_backends WHERE name = ?').run(name),
    getBackend: (name) => (q('SELECT name, base_url, api_key FROM training_backends WHERE name = ?').get(name) as BackendRow | undefined) ?? null,
    listBackends: () => q('SELECT name, base_url, api_key FROM training_backends ORDER BY name').all() as BackendRow[],
  };
}
