/**
 * Builds only the renderer with vite (the same settings as electron.vite.config.ts's renderer
 * section). `electron-vite build` also builds the Electron main bundle and needs the optional
 * `electron` package, which headless machines (CI, `loupe serve` only) do not install.
 */
import { build } from 'vite';
import react from '@vitejs/plugin-react';
import { resolve } from 'node:path';

export async function buildRenderer(outDir = resolve('out/renderer')): Promise<void> {
  // Vite and the React plugin pick development React when NODE_ENV is already set to something else
  // (vitest sets 'test'), which made the e2e timings measure React's dev checks. Build for production.
  const previous = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await doBuild(outDir);
  } finally {
    if (previous === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = previous;
  }
}

async function doBuild(outDir: string): Promise<void> {
  await build({
    mode: 'production',
    root: resolve('src/renderer'),
    base: './',
    plugins: [react()],
    logLevel: 'warn',
    build: { outDir, emptyOutDir: true, rollupOptions: { input: resolve('src/renderer/index.html') } },
  });
}

// `npx tsx test/e2e/build-renderer.ts` builds from the command line.
if (import.meta.url === `file://${process.argv[1]}`) {
  await buildRenderer();
}
