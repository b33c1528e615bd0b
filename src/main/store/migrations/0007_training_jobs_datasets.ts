// Migration 0007: training — cancelled jobs, payloads out of the database, the model Loupe actually
// runs, and versioned datasets (issue 11). Never edit once applied; add a new migration instead.
export default /* sql */ `
-- The base model Loupe runs for a model: the requested name when the built-in trainer has it, the
-- built-in default otherwise ("OpenPipe/Qwen3-14B-Instruct" is accepted and served by it). NULL on
-- rows made before this migration: their base_model was always a built-in name.
ALTER TABLE training_models ADD COLUMN runtime_model TEXT;

-- Jobs, rebuilt for the CANCELLED status (a CHECK cannot be altered in place). The request body no
-- longer lives in the row: payload_file (relative to the data directory) holds it until the job
-- ends, then it is deleted; summary keeps what the job view shows (counts, rates, data URL).
-- payload is kept for rows written before this migration (queued or running ones still need it).
CREATE TABLE training_jobs_v2 (
  id TEXT PRIMARY KEY,
  model_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('rl', 'sft')),
  status TEXT NOT NULL CHECK (status IN ('QUEUED', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED')),
  payload TEXT,
  payload_file TEXT,
  summary TEXT NOT NULL DEFAULT '{}',
  created_at_us INTEGER NOT NULL,
  training_start_us INTEGER,
  training_end_us INTEGER,
  error_message TEXT,
  step INTEGER,
  remote_job_id TEXT
);
-- rowid order is submission order (the job list's cursor): copy in that order.
INSERT INTO training_jobs_v2 (id, model_id, kind, status, payload, payload_file, summary, created_at_us,
                              training_start_us, training_end_us, error_message, step, remote_job_id)
  SELECT id, model_id, kind, status, CASE WHEN status IN ('QUEUED', 'RUNNING') THEN payload END, NULL, '{}',
         created_at_us, training_start_us, training_end_us, error_message, step, remote_job_id
  FROM training_jobs ORDER BY rowid;
DROP TABLE training_jobs;
ALTER TABLE training_jobs_v2 RENAME TO training_jobs;
CREATE INDEX training_jobs_model_status ON training_jobs (model_id, status);
CREATE INDEX training_jobs_status ON training_jobs (status);

-- Datasets (SFT training data) as versioned artifacts: wandb-artifact:///<entity>/<project>/<name>:v<N>
-- resolves to the row of that version; the JSONL lives in file (relative to the data directory).
-- Uploads of identical content (same sha256) to one name answer the existing version, as W&B does.
CREATE TABLE training_datasets (
  id TEXT PRIMARY KEY,
  entity TEXT NOT NULL,
  project TEXT NOT NULL,
  name TEXT NOT NULL,
  version INTEGER NOT NULL,
  file TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  lines INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  source TEXT NOT NULL CHECK (source IN ('upload', 'conversations')),
  created_at_us INTEGER NOT NULL
);
CREATE UNIQUE INDEX training_datasets_version ON training_datasets (entity, project, name, version);
`;
