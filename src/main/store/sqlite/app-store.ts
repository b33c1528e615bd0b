/**
 * The AppStore on SQLite (ports.ts): feedback, settings and training records in the data folder's
 * database file. Writes run on the calling thread through the writer connection, each port call in
 * one statement or one transaction; the multi-table writes (`applySettings`, `recordRollouts`) are
 * composed here from the synchronous repositories so they stay one transaction.
 */
import type { Db } from './open.js';
import type { AppStore, FeedbackStore, SettingsStore, TrainingStore } from '../ports.js';
import { asyncify } from './sync.js';
import { createFeedbackRepo } from './feedback.js';
import { createSettingsRepo } from './meta.js';
import { createTrainingRepo } from './training.js';

/** `close` closes the connection unless the trace store shares it (then the trace store does). */
export function createSqliteAppStore(db: Db, file: string, opts: { ownsConnection: boolean }): AppStore {
  const feedback = createFeedbackRepo(db);
  const settings = createSettingsRepo(db);
  const training = createTrainingRepo(db);
  const ping = db.prepare('SELECT 1 AS ok').pluck();
  return {
    feedback: asyncify<FeedbackStore>(feedback),
    settings: asyncify<SettingsStore>(settings),
    training: asyncify<TrainingStore>({
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
    }),
    file,
    ping: async () => ping.get() === 1,
    close: async () => {
      if (opts.ownsConnection && db.open) db.close();
    },
  };
}
