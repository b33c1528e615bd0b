// The Node entry points of Loupe's main-process code: the CLI and every worker thread. One list for
// both builds: electron-vite's main bundle (electron.vite.config.ts, the desktop app) and the CLI
// bundle (scripts/build-cli.mjs, what bin/loupe.js runs). worker-launch.ts finds a worker by the
// file name given here (`<name>.js` next to the entries, or one folder up from a shared chunk).
import { resolve } from 'node:path';

export function nodeEntries(root) {
  return {
    cli: resolve(root, 'src/main/cli.ts'),
    // The trainer worker thread (src/main/training/client.ts).
    'trainer-worker': resolve(root, 'src/main/training/worker.ts'),
    // The ingest parse/normalize thread (src/main/service/ingest/pipeline.ts).
    'ingest-worker': resolve(root, 'src/main/service/ingest/ingest-worker.ts'),
    // Parses and checks large training request bodies (src/main/service/training/intake.ts).
    'training-intake-worker': resolve(root, 'src/main/service/training/intake-worker.ts'),
    // The SQLite read pool's worker threads (src/main/store/sqlite/read-pool.ts).
    'sqlite-read-worker': resolve(root, 'src/main/store/sqlite/read-worker.ts'),
    // The SQLite writer thread (src/main/store/sqlite/writer.ts).
    'sqlite-write-worker': resolve(root, 'src/main/store/sqlite/write-worker.ts'),
  };
}
