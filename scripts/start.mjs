#!/usr/bin/env node
// `npm start`: runs Loupe. Builds what it needs when out/ is missing or older than the sources,
// then launches the Electron app when Electron is installed and can open a window here,
// otherwise runs the headless server (the same UI in the browser) and prints its URL.
// Extra args go to Loupe, e.g. `npm start -- --data-dir D --port P`.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const say = (line) => console.error(`[loupe] ${line}`);

/** Newest modification time under the given paths (files or directories). */
function newest(paths) {
  let max = 0;
  const walk = (p) => {
    const st = fs.statSync(p, { throwIfNoEntry: false });
    if (!st) return;
    if (st.isDirectory()) for (const e of fs.readdirSync(p)) walk(path.join(p, e));
    else max = Math.max(max, st.mtimeMs);
  };
  paths.forEach((p) => walk(path.join(root, p)));
  return max;
}

/** Electron: the whole app (main, preload, renderer) with electron-vite, which needs the electron package. */
function ensureElectronBuild() {
  const outputs = ['out/main/index.js', 'out/preload/index.cjs', 'out/renderer/index.html'].map((f) => fs.statSync(path.join(root, f), { throwIfNoEntry: false }));
  const built = outputs.every(Boolean) ? Math.min(...outputs.map((s) => s.mtimeMs)) : 0;
  if (built && built >= newest(['src', 'electron.vite.config.ts', 'package.json'])) return;
  say(built ? 'sources changed since the last build: rebuilding' : 'building the app (first run)');
  const r = spawnSync(process.execPath, [path.join(root, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('electron-vite build failed');
}

/**
 * Headless: the renderer is built (vite, same settings as electron.vite.config.ts's renderer
 * section); the server runs from out/cli (scripts/build-cli.mjs).
 */
async function ensureRendererBuild() {
  const index = fs.statSync(path.join(root, 'out/renderer/index.html'), { throwIfNoEntry: false });
  if (index && index.mtimeMs >= newest(['src/renderer', 'src/shared', 'package.json'])) return;
  say(index ? 'UI sources changed since the last build: rebuilding the UI' : 'building the UI (first run)');
  const { build } = await import('vite');
  const { default: react } = await import('@vitejs/plugin-react');
  await build({
    root: path.join(root, 'src/renderer'),
    base: './',
    plugins: [react()],
    logLevel: 'warn',
    build: { outDir: path.join(root, 'out/renderer'), emptyOutDir: true, rollupOptions: { input: path.join(root, 'src/renderer/index.html') } },
  });
}

/**
 * Path of the Electron binary, or null with the reason. Since Electron 42 the `electron` package has
 * no install script: the binary is downloaded on first use (its index.js runs install.js when asked
 * for the path). That download is done here explicitly, once, with a time limit, so a machine without
 * access to Electron's download site falls back to headless instead of hanging. `electron` is an
 * optional dependency that npm skips on Node older than its engines field (>= 22.12).
 */
function electronBinary() {
  let dir;
  try {
    dir = path.dirname(require.resolve('electron/package.json'));
  } catch {
    return { bin: null, why: 'Electron is not installed (the optional `electron` package needs Node 22.12 or newer)' };
  }
  const located = () => {
    const pathFile = path.join(dir, 'path.txt');
    const rel = fs.existsSync(pathFile) ? fs.readFileSync(pathFile, 'utf8').trim() : null;
    const bin = rel ? path.join(dir, 'dist', rel) : null;
    return bin && fs.existsSync(bin) ? bin : null;
  };
  if (located()) return { bin: located(), why: null };
  const version = require('electron/package.json').version;
  say(`downloading the Electron ${version} binary (first start)`);
  const r = spawnSync(process.execPath, [path.join(dir, 'install.js')], { stdio: 'inherit', timeout: 5 * 60_000 });
  if (r.status === 0 && located()) return { bin: located(), why: null };
  return { bin: null, why: `the Electron ${version} binary could not be downloaded${r.error ? ` (${r.error.message})` : ''}` };
}

/**
 * better-sqlite3 is compiled for Node's ABI; Electron needs its own build. Rebuild a copy of the
 * module against Electron's headers into build/electron-native/ (node_modules stays Node's, so tests
 * keep working) and hand its path to the app as LOUPE_NATIVE_BINDING. Not exercisable on the build
 * machines (no Electron there); kept deliberately small.
 */
function electronNativeBinding() {
  const electronVersion = require('electron/package.json').version;
  const sqliteDir = path.dirname(require.resolve('better-sqlite3/package.json'));
  const sqliteVersion = require('better-sqlite3/package.json').version;
  const outDir = path.join(root, 'build/electron-native');
  const target = path.join(outDir, 'better_sqlite3.node');
  const stamp = path.join(outDir, 'stamp.json');
  const want = JSON.stringify({ electronVersion, sqliteVersion, platform: process.platform, arch: process.arch });
  if (fs.existsSync(target) && fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === want) return target;
  say(`building better-sqlite3 ${sqliteVersion} for Electron ${electronVersion}`);
  const work = path.join(outDir, 'src');
  fs.rmSync(work, { recursive: true, force: true });
  fs.cpSync(sqliteDir, work, { recursive: true, filter: (p) => !p.includes(`${path.sep}build${path.sep}`) });
  const gyp = process.env.npm_config_node_gyp;
  const [cmd, pre] = gyp ? [process.execPath, [gyp]] : ['npx', ['--yes', 'node-gyp']];
  const r = spawnSync(cmd, [...pre, 'rebuild', '--release', `--target=${electronVersion}`, `--arch=${process.arch}`, '--dist-url=https://electronjs.org/headers'], { cwd: work, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('building better-sqlite3 for Electron failed (see the node-gyp output above)');
  fs.copyFileSync(path.join(work, 'build/Release/better_sqlite3.node'), target);
  fs.writeFileSync(stamp, want);
  fs.rmSync(work, { recursive: true, force: true });
  return target;
}

/** Why no window can open here, before anything is downloaded. */
function noDisplay() {
  return process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY ? 'there is no display here' : null;
}

function run(cmd, cmdArgs, env) {
  const child = spawn(cmd, cmdArgs, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
}

try {
  const display = noDisplay();
  const electron = display ? { bin: null, why: display } : electronBinary();
  const reason = electron.why;
  const bin = electron.bin;
  if (!reason) {
    ensureElectronBuild();
    const binding = electronNativeBinding();
    say('starting the Loupe desktop app (Electron)');
    run(bin, ['.', ...args], { LOUPE_NATIVE_BINDING: binding });
  } else {
    say(`${reason}: Loupe runs headless (the same UI, in your browser).`);
    await ensureRendererBuild();
    const { ensureCliBuilt } = await import('./build-cli.mjs');
    if (await ensureCliBuilt({ quiet: true })) say('built the server (out/cli)');
    say('open the URL printed below in your browser');
    run(process.execPath, [path.join(root, 'bin/loupe.js'), 'serve', ...args]);
  }
} catch (err) {
  say(err instanceof Error ? err.message : String(err));
  process.exit(1);
}
