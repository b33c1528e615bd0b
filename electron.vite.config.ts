import { resolve } from 'node:path';
import { defineConfig, externalizeDepsPlugin } from 'electron-vite';
import react from '@vitejs/plugin-react';

// main: Electron entry plus the headless CLI and the trainer worker, all as Node bundles.
// preload: CommonJS, because sandboxed preloads cannot be ES modules.
// renderer: the React app; the same build is served by `loupe serve` to a browser.
export default defineConfig({
  main: {
    plugins: [externalizeDepsPlugin()],
    build: {
      rollupOptions: {
        input: {
          index: resolve(__dirname, 'src/main/index.ts'),
          cli: resolve(__dirname, 'src/main/cli.ts'),
          // The trainer worker thread (src/main/training/client.ts looks for out/main/trainer-worker.js).
          'trainer-worker': resolve(__dirname, 'src/main/training/worker.ts'),
          // The ingest parse/normalize thread (src/main/service/ingest/pipeline.ts looks for ingest-worker.js).
          'ingest-worker': resolve(__dirname, 'src/main/service/ingest/ingest-worker.ts'),
          // Parses and checks large training request bodies (src/main/service/training/intake.ts).
          'training-intake-worker': resolve(__dirname, 'src/main/service/training/intake-worker.ts'),
          // The SQLite read pool's worker threads (src/main/store/sqlite/read-pool.ts looks for sqlite-read-worker.js).
          'sqlite-read-worker': resolve(__dirname, 'src/main/store/sqlite/read-worker.ts'),
        },
      },
    },
  },
  preload: {
    plugins: [externalizeDepsPlugin()],
    build: {
      rollupOptions: {
        input: { index: resolve(__dirname, 'src/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(__dirname, 'src/renderer'),
    plugins: [react()],
    build: {
      outDir: resolve(__dirname, 'out/renderer'),
      rollupOptions: { input: resolve(__dirname, 'src/renderer/index.html') },
    },
  },
});
