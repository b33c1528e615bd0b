/**
 * Ingest benchmark (issue 2): a generated OTLP JSONL of ≥1M GenAI spans imported into a fresh store,
 * against the same run's floor (JSON.parse of the same lines + a bare prepared insert of the same
 * columns). Both run in child processes so peak RSS is the importer's own. The imported store then
 * becomes the shared bench store the chat and analytics sections read.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BenchSection } from '../lib/section.js';
import { ensureBenchFile, importInto, offerBenchStore, runChild, withBenchLock } from '../lib/bench-store.js';

const mb = (b: number) => (b / 1024 / 1024).toFixed(0);

const section: BenchSection = {
  title: 'Ingest: OTLP JSONL of ≥1M GenAI spans',
  async run({ workDir, print }) {
    const t = Date.now();
    const { file, spans, bytes } = await ensureBenchFile(workDir);
    print('generated file', `${spans} spans, ${mb(bytes)} MB`);
    print('generation / reuse (s)', ((Date.now() - t) / 1000).toFixed(1));

    // Private directories (with the pid) so two runs at once never share a half-written store.
    const floorDir = path.join(workDir, `floor-${process.pid}`);
    const floor = runChild('floor', file, path.join(floorDir, 'floor.db'));
    const floorRate = floor.spans / (floor.ms / 1000);
    print('floor: JSON.parse + bare insert spans/s', floorRate.toFixed(0));
    print('floor: spans per CPU-second', (floor.spans / (floor.cpuMs / 1000)).toFixed(0));
    fs.rmSync(floorDir, { recursive: true, force: true });

    const dataDir = path.join(workDir, `store-import-${process.pid}`);
    const imp = importInto(file, dataDir);
    const rate = imp.spans / (imp.ms / 1000);
    const dbBytes = ['loupe.db', 'loupe.db-wal'].reduce((n, f) => n + (fs.existsSync(path.join(dataDir, f)) ? fs.statSync(path.join(dataDir, f)).size : 0), 0);
    print('import spans', imp.spans);
    print('import spans/s', rate.toFixed(0), '≥ 50000');
    print('import bytes/s (MB/s)', (bytes / (imp.ms / 1000) / 1024 / 1024).toFixed(1));
    print('import time ÷ floor time', (floorRate / rate).toFixed(2), '≤ 2.5');
    print('import spans per CPU-second', (imp.spans / (imp.cpuMs / 1000)).toFixed(0));
    print('import CPU ÷ floor CPU', (imp.cpuMs / floor.cpuMs).toFixed(2));
    print('peak RSS of the import (MB)', imp.maxRssMb.toFixed(0), '< 500');
    print('peak RSS of the floor (MB)', floor.maxRssMb.toFixed(0));
    print('database bytes per span', (dbBytes / imp.spans).toFixed(0));
    const adopted = await withBenchLock(workDir, async () => offerBenchStore(workDir, dataDir, imp.spans));
    print('became the shared bench store', adopted ? 'yes' : 'no (a current one exists)');
  },
};
export default section;
