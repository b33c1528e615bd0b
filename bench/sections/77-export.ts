/**
 * `POST /export` time (issue 23.4: "a 100k-span project takes about 40 minutes"; target ≤ 30 s here).
 * A generated project of LOUPE_BENCH_EXPORT_SPANS spans (default 100,000; the import takes a few
 * minutes of CPU, the export should take seconds) is exported through dispatch as the HTTP route
 * streams it, each line serialized. Run: `npm run bench -- export`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStores } from '../../src/main/store/index.js';
import { EventBus } from '../../src/main/service/events.js';
import { importFile } from '../../src/main/service/ingest/index.js';
import { dispatch } from '../../src/main/transport/dispatch.js';
import { generateJsonl } from '../lib/generate.js';
import type { BenchSection } from '../lib/section.js';

const section: BenchSection = {
  title: '/export of a whole project (issue 23.4)',
  explicitOnly: true,
  async run({ workDir, print }) {
    const spans = Number(process.env.LOUPE_BENCH_EXPORT_SPANS ?? 100_000);
    fs.mkdirSync(workDir, { recursive: true });
    const file = path.join(workDir, `export-${spans}.jsonl`);
    if (!fs.existsSync(file)) await generateJsonl(file, { minSpans: spans, conversations: Math.max(20, Math.round(spans / 50)), seed: 23 });
    const dataDir = fs.mkdtempSync(path.join(workDir, 'export-store-'));
    const store = await openStores(dataDir);
    try {
      const imported = await importFile(store.traces, file);
      const ctx = { traces: store.traces, app: store.app, events: new EventBus(), dataDir, apiKey: 'bench' };
      const t = performance.now();
      const cpu0 = process.cpuUsage();
      let lines = 0;
      let bytes = 0;
      for await (const r of (await dispatch('system.export', { project_id: 'bench/genai' }, ctx, { trusted: true })) as AsyncIterable<unknown>) {
        lines++;
        bytes += JSON.stringify(r).length + 1;
      }
      const ms = performance.now() - t;
      const cpu = process.cpuUsage(cpu0);
      print('spans in the project', imported.spans_imported);
      print('export: traces (lines), MB', `${lines}, ${(bytes / 1e6).toFixed(1)}`);
      print('export: wall s, CPU s', `${(ms / 1000).toFixed(1)}, ${((cpu.user + cpu.system) / 1e6).toFixed(1)}`, '≤ 30 s for 100k spans');
      print('load average while measured', os.loadavg().map((x) => x.toFixed(1)).join(' '));
    } finally {
      await store.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  },
};

export default section;
