#!/usr/bin/env node
// Builds the `loupe` command and its worker threads into out/cli/ as plain JavaScript (Node 20,
// ES modules, dependencies left as imports), so the installed command runs no TypeScript loader.
// `npm run build:cli`; also run by `npm install` (prepare) and by the tests before they spawn it.
// Unlike `electron-vite build` it needs no Electron package, so it works on headless machines.
import { builtinModules } from 'node:module';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { nodeEntries } from './node-entries.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const CLI_OUT = resolve(root, 'out/cli');

export async function buildCli({ quiet = false } = {}) {
  const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8'));
  const deps = Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies, ...pkg.devDependencies });
  const external = (id) => id.startsWith('node:') || builtinModules.includes(id) || deps.some((d) => id === d || id.startsWith(`${d}/`));
  await build({
    root,
    configFile: false,
    logLevel: quiet ? 'error' : 'warn',
    build: {
      ssr: true,
      target: 'node20',
      outDir: CLI_OUT,
      emptyOutDir: true,
      minify: false,
      sourcemap: true,
      rollupOptions: {
        input: nodeEntries(root),
        external,
        output: { format: 'es', entryFileNames: '[name].js', chunkFileNames: 'chunks/[name]-[hash].js' },
      },
    },
  });
}

/** Newest modification time under the given paths (files and folders, recursively). */
function newest(paths) {
  let max = 0;
  const walk = (p) => {
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st) return;
    if (st.isDirectory()) for (const e of readdirSync(p)) walk(resolve(p, e));
    else max = Math.max(max, st.mtimeMs);
  };
  for (const p of paths) walk(resolve(root, p));
  return max;
}

/** Builds out/cli/ when it is missing or older than the sources it is made of; true when it built. */
export async function ensureCliBuilt(opts = {}) {
  const built = statSync(resolve(CLI_OUT, 'cli.js'), { throwIfNoEntry: false })?.mtimeMs ?? 0;
  if (built && built >= newest(['src/main', 'src/shared', 'package.json', 'scripts/build-cli.mjs', 'scripts/node-entries.mjs'])) return false;
  await buildCli(opts);
  return true;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildCli();
  console.log(`built ${CLI_OUT}`);
}
