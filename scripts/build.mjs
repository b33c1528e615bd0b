#!/usr/bin/env node
// `npm run build`: the Electron app (main, preload, renderer) with electron-vite. That needs the
// optional `electron` package, which npm skips on Node older than 22.12 (Electron 45's engines): then
// say so and what to run instead, not electron-vite's stack trace (issue 22.4).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
try {
  require.resolve('electron/package.json');
} catch {
  console.error(
    `npm run build builds the Electron app, which needs the optional \`electron\` package: it is not installed here ` +
      `(Node ${process.versions.node}; Electron 45 needs Node 22.12 or newer, and npm skips it on older Node).\n` +
      'For the server and the web app in a browser: npm run build:web, then npm run serve ' +
      '(or npm start, which builds what it needs and runs headless where Electron cannot run).',
  );
  process.exit(1);
}
const r = spawnSync(process.execPath, [path.join(root, 'node_modules/electron-vite/bin/electron-vite.js'), 'build', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
process.exit(r.status ?? 1);
