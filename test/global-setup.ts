// Runs once before all test files. Kept small: suites that need a built renderer build it in
// their own beforeAll via test/helpers/build.ts so unit runs stay fast. The ClickHouse server is
// started lazily by the first test file that needs one (test/helpers/clickhouse.ts); the teardown
// returned here stops it.
import { clickhouseRunFolder, OWNER_ENV, RUN_DIR_ENV } from './helpers/clickhouse.js';
import { CLI_OUT, ensureCliBuilt } from '../scripts/build-cli.mjs';

export default async function setup(): Promise<() => Promise<void>> {
  // Each vitest project (sqlite, clickhouse) runs the global setup: the run shares one server.
  if (process.env[OWNER_ENV] === String(process.pid) && process.env[RUN_DIR_ENV]) return async () => {};
  // Tests spawn bin/loupe.js, which runs the built CLI (out/cli): rebuilt here when the sources changed.
  await ensureCliBuilt({ quiet: true });
  // Worker threads (SQLite writer and readers, ingest, trainer) start from that build, not through
  // tsx: ~0.8 s of CPU less per worker (src/main/worker-launch.ts). LOUPE_WORKER_BUNDLE= (empty) in
  // the environment keeps them on the sources; test/unit/worker-launch.test.ts checks both paths.
  process.env.LOUPE_WORKER_BUNDLE ??= CLI_OUT;
  process.env.LOUPE_TEST = '1';
  const ch = clickhouseRunFolder();
  process.env[RUN_DIR_ENV] = ch.dir;
  process.env[OWNER_ENV] = String(process.pid);
  return ch.teardown;
}
