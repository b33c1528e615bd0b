#!/usr/bin/env node
// `npm test`: runs every test (unit, HTTP, Chromium end-to-end) with vitest, then prints one plain
// closing line "N passed, N failed, N skipped" that CI reads. Extra args go to vitest.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const report = join(mkdtempSync(join(tmpdir(), 'loupe-test-')), 'vitest.json');
const args = ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...process.argv.slice(2)];
const run = spawnSync('npx', args, { stdio: 'inherit', env: { ...process.env, FORCE_COLOR: process.env.CI ? '0' : '1' } });
let code = run.status ?? 1;
if (existsSync(report)) {
  const r = JSON.parse(readFileSync(report, 'utf8'));
  const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  console.log(`\ntests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`);
  if (r.numTotalTests === 0) {
    console.error('no test ran: treating as a failure');
    code = 1;
  }
} else {
  console.error('vitest wrote no report');
  code = code || 1;
}
process.exit(code);
