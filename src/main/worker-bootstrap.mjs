// Starts a TypeScript worker thread when Loupe runs from sources (`tsx src/main/cli.ts`; vitest
// starts the built out/cli workers instead, see worker-launch.ts):
// registers tsx's ESM loader in this worker thread, then imports the .ts entry passed as
// workerData.entry. The electron-vite build does not use this file: there each worker is its own
// bundled entry (see worker-launch.ts).
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
