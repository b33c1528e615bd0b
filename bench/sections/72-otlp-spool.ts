/**
 * The OTLP spool (issue 19: "a 30 MB OTLP post acknowledged in ≤ 5 s"; decision 0025): a 30 MB
 * OTLP/JSON post of the scale workload (bench/lib/generate.ts: spans carrying conversation history,
 * ~2.2 KB each, ~14k spans) to a real `loupe serve`, on SQLite and on a fresh ClickHouse database
 * (Debian's clickhouse-server, private, in bench/.data/spool-clickhouse/): the time to its answer
 * (checked in the body worker, written to the spool, 200), then the time until the drain has
 * imported it and the store has written its summaries, as spans/s. With LOUPE_BENCH_SPOOL_SYNC=1 the
 * same post to a server with the spool off (answered once stored) is timed too, for comparison.
 * The load average is printed beside every figure (this machine is shared).
 *
 * Runs only when named: `npm run bench -- spool` (~2–4 min at load 20; the ClickHouse part needs
 * clickhouse-server installed, else it is reported not measured).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BenchSection } from '../lib/section.js';
import { generateJsonl } from '../lib/generate.js';
import { serve } from '../lib/serve.js';
import { bigPostBody, timeBigPost } from '../lib/big-post.js';
import { clickhouseMissing, startClickHouse, stopClickHouse } from '../../test/helpers/clickhouse-server.js';

const section: BenchSection = {
  title: 'OTLP spool: a 30 MB OTLP post answered once on disk, then drained (SQLite and ClickHouse)',
  explicitOnly: true,
  async run({ workDir, print }) {
    fs.mkdirSync(workDir, { recursive: true });
    const file = path.join(workDir, 'spool-post.jsonl');
    if (!fs.existsSync(file)) await generateJsonl(file, { minSpans: 16_000, seed: 7 });
    const post = bigPostBody(file);
    const sync = process.env.LOUPE_BENCH_SPOOL_SYNC === '1';

    const onServer = async (label: string, args: string[], env: NodeJS.ProcessEnv = {}) => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-bench-spool-'));
      const loupe = await serve(dataDir, args, env);
      try {
        await timeBigPost(loupe.url, post, label, print);
      } finally {
        await loupe.stop();
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    };

    await onServer('SQLite', []);
    if (sync) await onServer('SQLite, spool off', [], { LOUPE_SPOOL: 'off' });

    const missing = clickhouseMissing();
    if (missing) {
      print('ClickHouse', `not measured: ${missing}`);
      return;
    }
    const server = await startClickHouse({ dir: path.join(workDir, 'spool-clickhouse') });
    try {
      const url = (db: string) => `clickhouse://default@127.0.0.1:${server.httpPort}/${db}`;
      await onServer(`ClickHouse ${server.version}`, ['--store', url(`spool_${Date.now().toString(36)}`)]);
      if (sync) await onServer('ClickHouse, spool off', ['--store', url(`spool_sync_${Date.now().toString(36)}`)], { LOUPE_SPOOL: 'off' });
    } finally {
      await stopClickHouse(server);
    }
  },
};

export default section;
