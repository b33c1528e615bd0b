/**
 * The AppStore's synchronous repositories, run by the writer thread (write-side.ts) and, for reads,
 * on the calling thread's read connection (app-store.ts): feedback,
 * settings and training records. The multi-table writes (`applySettings`, `recordRollouts`) are
 * composed here so each stays one transaction. Kept apart from app-store.ts (the port's side, which
 * calls the writer) so the writer thread's code does not import the code that calls it.
 */
import type { Db } from './open.js';
import type { TrainingStore } from '../ports.js';
import type { Sync } from './sync.js';
import { createFeedbackRepo } from './feedback.js';
import { createSettingsRepo } from './meta.js';
import { createDatasetVersions, createTrainingRepo } from './training.js';

/** The synchronous AppStore over one connection (run by the write side). */
export function createAppRepos(db: Db) {
  const feedback = createFeedbackRepo(db);
  const settings = createSettingsRepo(db);
  const training = createTrainingRepo(db);
  const ping = db.prepare('SELECT 1 AS ok').pluck();
  const trainingStore: Sync<TrainingStore> = {
    ...training,
    applySettings: (change) =>
      db.transaction(() => {
        settings.set(change.settings);
        for (const name of change.remove) training.removeBackend(name);
        for (const b of change.put) training.putBackend(b);
      })(),
    recordRollouts: (r) =>
      db.transaction(() => {
        if (r.checkpoint) training.setCheckpointMetrics(r.checkpoint.id, r.checkpoint.metrics);
        return r.feedback.map((f) => feedback.insert(f));
      })(),
  };
  return { feedback, settings, training: trainingStore, datasetVersions: createDatasetVersions(db), ping: () => ping.get() === 1 };
}
