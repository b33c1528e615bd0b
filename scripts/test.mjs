#!/usr/bin/env node
// `npm test`: runs every test (unit, HTTP, Chromium end-to-end) with vitest, then prints one plain
// closing line "tests: N passed, N failed, N skipped" that CI reads. Extra args go to vitest.
// The counts come from scripts/test-summary-reporter.mjs: a test file or suite that failed in its
// set-up (Chromium or ClickHouse missing, an import error) counts as failed, and the reason is listed
// just above the closing line.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const summaryFile = join(mkdtempSync(join(tmpdir(), 'loupe-test-')), 'summary.json');
const args = ['vitest', 'run', '--reporter=default', '--reporter=./scripts/test-summary-reporter.mjs', ...process.argv.slice(2)];
const started = Date.now();
const run = spawnSync('npx', args, {
  stdio: 'inherit',
  env: { ...process.env, FORCE_COLOR: process.env.CI ? '0' : '1', LOUPE_TEST_SUMMARY: summaryFile },
});
let code = run.status ?? 1;
const minutes = ((Date.now() - started) / 60_000).toFixed(1);
if (!existsSync(summaryFile)) {
  console.error(`\nvitest wrote no summary (exit ${run.status ?? run.signal}): the run stopped before its end`);
  console.log('\ntests: 0 passed, 1 failed, 0 skipped');
  process.exit(code || 1);
}
const s = JSON.parse(readFileSync(summaryFile, 'utf8'));
console.log('');
for (const f of s.setupFailures) {
  const counted = f.notRun > 0 ? `${f.notRun} test${f.notRun === 1 ? '' : 's'} not run, counted as failed` : 'counted as 1 failure';
  console.log(`failed outside its tests (set-up, import or teardown): ${f.where} (${counted}): ${f.reason}`);
}
for (const e of s.unhandledErrors) console.log(`unhandled error: ${e}`);
let { failed } = s;
if (s.passed + s.failed + s.skipped === 0) {
  console.log('no test ran: counted as one failure');
  failed = 1;
}
// Vitest exits non-zero for a failure the counts above may not show (a worker crash, a timeout in teardown).
if (code !== 0 && failed === 0) {
  console.log(`vitest exited ${code} with no failed test counted: counted as one failure`);
  failed = 1;
}
if (failed > 0) code = code || 1;
console.log(`wall time ${minutes} min`);
console.log(`\ntests: ${s.passed} passed, ${failed} failed, ${s.skipped} skipped`);
process.exit(code);
