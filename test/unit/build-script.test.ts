/**
 * `npm run build` where the optional `electron` package is not installed (Node older than 22.12, as
 * npm skips it there): one clear message naming the Node it needs and what to run instead, exit 1,
 * no stack trace (issue 22.4). Where Electron is installed the script builds the app instead: this
 * check does not apply there and says so.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/paths.js';

const electronInstalled = (() => {
  try {
    createRequire(path.join(repoRoot, 'package.json')).resolve('electron/package.json');
    return true;
  } catch {
    return false;
  }
})();
if (electronInstalled) console.warn('build-script test not run: the electron package is installed here, so `npm run build` would build the app');

describe('npm run build without Electron', () => {
  it.skipIf(electronInstalled)('says what it needs and what to run instead, with no stack trace', () => {
    const r = spawnSync(process.execPath, [path.join(repoRoot, 'scripts/build.mjs')], { cwd: repoRoot, encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('Node 22.12 or newer');
    expect(r.stderr).toContain(`Node ${process.versions.node}`);
    expect(r.stderr).toContain('npm run build:web');
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });
});
