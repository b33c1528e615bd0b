/**
 * The shipped `loupe` command and its worker threads run built JavaScript (out/cli/, made by
 * `npm run build:cli`), never a TypeScript loader at run time (issue 8 item 7): every Node entry
 * is built, and no built file imports tsx.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_OUT, ensureCliBuilt } from '../../scripts/build-cli.mjs';
import { nodeEntries } from '../../scripts/node-entries.mjs';
import { repoRoot } from '../helpers/paths.js';

const builtFiles = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? builtFiles(path.join(dir, e.name)) : e.name.endsWith('.js') ? [path.join(dir, e.name)] : []));

describe('built CLI', () => {
  it('has every entry as JavaScript and loads no TypeScript loader', async () => {
    await ensureCliBuilt({ quiet: true });
    for (const name of Object.keys(nodeEntries(repoRoot))) expect(fs.existsSync(path.join(CLI_OUT, `${name}.js`)), name).toBe(true);
    const files = builtFiles(CLI_OUT);
    expect(files.length).toBeGreaterThan(5);
    // (worker-launch.ts names worker-bootstrap.mjs only on its from-sources branch, taken when its own
    // file is .ts; the bootstrap itself, which imports tsx, is not in the build.)
    const offenders = files.filter((f) => /from\s*["']tsx|import\(\s*["']tsx|require\(\s*["']tsx/.test(fs.readFileSync(f, 'utf8')));
    expect(fs.existsSync(path.join(CLI_OUT, 'worker-bootstrap.mjs'))).toBe(false);
    expect(offenders.map((f) => path.relative(repoRoot, f))).toEqual([]);
    // bin/loupe.js imports the built entry, not the sources.
    const bin = fs.readFileSync(path.join(repoRoot, 'bin/loupe.js'), 'utf8').split('\n').filter((l) => !/^\s*(\/\/|#!)/.test(l)).join('\n');
    expect(bin).toContain('../out/cli/cli.js');
    expect(bin).not.toMatch(/tsx|src\/main/);
  }, 300_000);
});
