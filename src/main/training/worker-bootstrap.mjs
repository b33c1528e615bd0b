// Starts the TypeScript trainer worker when Loupe runs from sources (vitest, `tsx src/main/cli.ts`):
// registers tsx's ESM loader in this worker thread, then imports the .ts entry passed in workerData.
// The electron-vite build does not use this file: there the worker is the bundled trainer-worker.js.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
