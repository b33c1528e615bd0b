/**
 * `npm test`'s closing line (scripts/test.mjs with scripts/test-summary-reporter.mjs) counts a test
 * file or suite that failed outside its tests as failed and says why (issue 22): run on the cases in
 * test/fixtures/test-summary, a set-up that throws is not "skipped".
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/paths.js';

describe('npm test closing line', () => {
  it('counts set-up, import and teardown failures as failed, with their reasons', () => {
    const config = path.join(repoRoot, 'test/fixtures/test-summary/vitest.config.ts');
    const run = spawnSync(process.execPath, [path.join(repoRoot, 'scripts/test.mjs'), '--config', config], {
      cwd: repoRoot,
      encoding: 'utf8',
      env: { ...process.env, CI: '1' },
    });
    const lines = run.stdout.trim().split('\n');
    expect(lines.at(-1)).toBe('tests: 2 passed, 4 failed, 1 skipped');
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/setup-throws\.case\.ts > needs a browser \(2 tests not run, counted as failed\): no Chromium at \/usr\/bin\/chromium/);
    expect(run.stdout).toMatch(/import-throws\.case\.ts \(counted as 1 failure\): clickhouse-server not found on PATH/);
    expect(run.stdout).toMatch(/mixed\.case\.ts > teardown \(counted as 1 failure\): server did not stop/);
  }, 120_000);
});
