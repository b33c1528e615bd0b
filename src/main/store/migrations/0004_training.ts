// Migration 0004: training API (semantics §9). Never edit once applied; add a new migration instead.
export default /* sql */ `
-- Models of the training API. backend/remote_model_id are set when the model lives on a remote
-- trainer backend (the rows here then mirror the remote one).
CREATE TABLE training_models (
  id TEXT PRIMARY KEY,
  entity TEXT NOT NULL,
  project TEXT NOT NULL,
  name TEXT NOT NULL,
  base_model TEXT NOT NULL,
  run_id TEXT NOT NULL,
  backend TEXT,
  remote_model_id TEXT,
  created_at_us INTEGER NOT NULL
);
CREATE UNIQUE INDEX training_models_key ON training_models (entity, project, name);

-- Checkpoints: one per (model, step); weights live in <dataDir>/models/<model_id>/step<N>/.
CREATE TABLE training_checkpoints (
  id TEXT PRIMARY KEY,
  model_id TEXT NOT NULL REFERENCES training_models(id) ON DELETE CASCADE,
  step INTEGER NOT NULL,
  metrics TEXT NOT NULL DEFAULT '{}',
  created_at_us INTEGER NOT NULL
);
CREATE UNIQUE INDEX training_checkpoints_step ON training_checkpoints (model_id, step);

-- Jobs outlive their model (a deleted model's jobs stay readable as FAILED), so no foreign key.
-- rowid order is submission order; payload is the request as received (JSON).
CREATE TABLE training_jobs (
  id TEXT PRIMARY KEY,
  model_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('rl', 'sft')),
  status TEXT NOT NULL CHECK (status IN ('QUEUED', 'RUNNING', 'COMPLETED', 'FAILED')),
  payload TEXT NOT NULL,
  created_at_us INTEGER NOT NULL,
  training_start_us INTEGER,
  training_end_us INTEGER,
  error_message TEXT,
  step INTEGER,
  remote_job_id TEXT
);
CREATE INDEX training_jobs_model_status ON training_jobs (model_id, status);
CREATE INDEX training_jobs_status ON training_jobs (status);

-- Job events in emission order; seq is the page order, id the public cursor.
CREATE TABLE training_job_events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  job_id TEXT NOT NULL,
  type TEXT NOT NULL,
  data TEXT NOT NULL DEFAULT '{}',
  created_at_us INTEGER NOT NULL
);
CREATE INDEX training_job_events_job ON training_job_events (job_id, seq);

-- Remote trainer backends (another server speaking this training API).
CREATE TABLE training_backends (
  name TEXT PRIMARY KEY,
  base_url TEXT NOT NULL,
  api_key TEXT NOT NULL,
  created_at_us INTEGER NOT NULL
);
`;
