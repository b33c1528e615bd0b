/**
 * The AppStore on SQLite (ports.ts): feedback, settings and training records in the data folder's
 * database file. Writes run on the writer connection, on the writer thread (writer.ts; decision
 * 0016): SQLite has one writer per file, and a second writer connection on the server thread would
 * wait there, holding every request, whenever an ingest transaction holds the lock. Reads run on a
 * read-only connection of the calling thread: WAL readers never wait for the writer, and a read
 * through the writer thread waited behind a whole ingest transaction (1.3–1.9 s at load 18). Each
 * port call is one statement or one transaction of the synchronous repositories (app-repos.ts).
 */
import type { Db } from './open.js';
import type { AppStore, FeedbackStore, SettingsStore, TrainingStore } from '../ports.js';
import type { Writer } from './writer.js';
import { createAppRepos } from './app-repos.js';
import { portErrors } from './failures.js';

/**
 * The methods that only read (`<group>.<method>`): they run on the read connection. Any other method
 * goes to the writer, so one left off this list is only slower; a write listed here would fail
 * loudly (the read connection is `query_only`).
 */
const READS = new Set([
  'feedback.forTargets', 'feedback.query', 'settings.get',
  'training.getModel', 'training.findModel', 'training.pageModels', 'training.modelIds',
  'training.latestCheckpoint', 'training.checkpointByStep', 'training.checkpointById', 'training.listCheckpoints', 'training.pageCheckpoints',
  'training.getJob', 'training.pageJobs', 'training.jobsWithStatus', 'training.endedJobsWithPayload', 'training.pageEvents', 'training.eventsOfType',
  'training.getDataset', 'training.datasetBySha', 'training.pageDatasets', 'training.getBackend', 'training.listBackends',
]);

/**
 * The port's AppStore: reads on `readDb` (opened on first use), every other method a call to the
 * writer (`app.<group>.<method>`). `close` closes the read connection it opened, and the writer when
 * the AppStore owns it (the TraceStore is another adapter), else the TraceStore closes the writer.
 */
export function createSqliteAppStore(writer: Writer, file: string, opts: { ownsWriter: () => boolean; readDb: () => Db; closeReadDb: boolean }): AppStore {
  let reads: ReturnType<typeof createAppRepos> | null = null;
  let readDb: Db | null = null;
  const readRepos = () => (reads ??= createAppRepos((readDb = opts.readDb())));
  const group = <T>(name: string): T => {
    const out: Record<string, unknown> = {};
    const prefix = `app.${name}.`;
    for (const m of writer.methods) {
      if (!m.startsWith(prefix)) continue;
      const method = m.slice(prefix.length);
      out[method] = READS.has(`${name}.${method}`)
        ? (...args: unknown[]) => portErrors(() => ((readRepos() as unknown as Record<string, Record<string, (...a: unknown[]) => unknown>>)[name]![method]!)(...args))
        : (...args: unknown[]) => writer.call(m, args);
    }
    return out as T;
  };
  // addDatasetVersion takes a callback, which cannot cross to the writer thread: the number is
  // chosen, the file placed and the row inserted in three steps, one dataset version at a time
  // (a throw from `place` stores nothing, as in one transaction).
  let datasets: Promise<unknown> = Promise.resolve();
  const addDatasetVersion: TrainingStore['addDatasetVersion'] = (d, place) => {
    const run = datasets.then(async () => {
      const version = await writer.call<number>('app.datasetVersions.next', [d.entity, d.project, d.name]);
      const row = { ...d, version, file: place(version) };
      await writer.call('app.datasetVersions.insert', [row]);
      return row;
    });
    datasets = run.catch(() => undefined);
    return run;
  };
  return {
    feedback: group<FeedbackStore>('feedback'),
    settings: group<SettingsStore>('settings'),
    training: { ...group<TrainingStore>('training'), addDatasetVersion },
    file,
    ping: () => writer.call<boolean>('app.ping', []),
    close: async () => {
      if (opts.closeReadDb && readDb?.open) readDb.close();
      if (opts.ownsWriter()) await writer.close();
    },
  };
}
