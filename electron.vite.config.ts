import { resolve } from 'node:path';
import { defineConfig, externalizeDepsPlugin } from 'electron-vite';
import react from '@vitejs/plugin-react';
import { nodeEntries } from './scripts/node-entries.mjs';

// main: Electron entry plus the headless CLI and the trainer worker, all as Node bundles.
// preload: CommonJS, because sandboxed preloads cannot be ES modules.
// renderer: the React app; the same build is served by `loupe serve` to a browser.
export default defineConfig({
  main: {
    plugins: [externalizeDepsPlugin()],
    build: {
      rollupOptions: {
        // The desktop app's entry plus the CLI and every worker thread (one list: scripts/node-entries.mjs).
        input: { index: resolve(__dirname, 'src/main/index.ts'), ...nodeEntries(__dirname) },
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
