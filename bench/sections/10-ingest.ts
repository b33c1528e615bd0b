/**
 * Ingest benchmark (issue 2): a generated OTLP JSONL of ≥1M GenAI spans imported into a fresh store,
 * against the same run's floor (JSON.parse of the same lines + a bare prepared insert of the same
 * columns). Both run in child processes so peak RSS is the importer's own. The import runs as the
 * app runs it (parse worker thread + writing main thread) and, with `LOUPE_BENCH_INLINE=1`, also all
 * on one thread for comparison. The imported store then becomes the shared bench store the chat and
 * analytics sections read.
 *
 * CPU time is the process's (all threads). Wall-clock figures depend on what else the 2 cores run,
 * so the 1-minute load average is printed around each run.
 *
 * `LOUPE_BENCH_SPANS=200000` runs on a smaller generated file of its own (a few minutes instead of
 * ~10 on this machine); its store is not offered as the shared 1M-span store.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BenchSection } from '../lib/section.js';
import type { ChildFigures } from '../lib/bench-store.js';
import { ensureBenchFile, importInto, offerBenchStore, runChild, withBenchLock } from '../lib/bench-store.js';

const mb = (b: number) => (b / 1024 / 1024).toFixed(0);
const load = () => os.loadavg()[0]!.toFixed(1);

const section: BenchSection = {
  title: 'Ingest: OTLP JSONL of ≥1M GenAI spans',
  async run({ workDir, print }) {
    const t = Date.now();
    const env = process.env.LOUPE_BENCH_SPANS;
    const minSpans = env ? Number(env) : undefined;
    if (minSpans !== undefined && !(Number.isInteger(minSpans) && minSpans > 0)) throw new Error(`LOUPE_BENCH_SPANS: "${env}" is not a span count`);
    const { file, spans, bytes } = await ensureBenchFile(workDir, minSpans);
    print('generated file', `${spans} spans, ${mb(bytes)} MB`);
    print('generation / reuse (s)', ((Date.now() - t) / 1000).toFixed(1));

    const timed = <T extends ChildFigures>(name: string, fn: () => T): T => {
      const before = load();
      const r = fn();
      print(`${name}: load average before / after`, `${before} / ${load()}`);
      return r;
    };
    // Private directories (with the pid) so two runs at once never share a half-written store.
    const floorDir = path.join(workDir, `floor-${process.pid}`);
    const floor = timed('floor', () => runChild('floor', file, path.join(floorDir, 'floor.db')));
    const floorRate = floor.spans / (floor.ms / 1000);
    print('floor: JSON.parse + bare insert spans/s', floorRate.toFixed(0));
    print('floor: spans per CPU-second', (floor.spans / (floor.cpuMs / 1000)).toFixed(0));
    print('peak RSS of the floor (MB)', floor.maxRssMb.toFixed(0));
    fs.rmSync(floorDir, { recursive: true, force: true });

    if (process.env.LOUPE_BENCH_INLINE === '1') {
      const inlineDir = path.join(workDir, `store-inline-${process.pid}`);
      fs.rmSync(inlineDir, { recursive: true, force: true });
      const one = timed('one-thread import', () => runChild('import-inline', file, inlineDir));
      print('one-thread import spans/s (wall)', (one.spans / (one.ms / 1000)).toFixed(0));
      print('one-thread import spans per CPU-second', (one.spans / (one.cpuMs / 1000)).toFixed(0));
      print('one-thread import time ÷ floor time', (floor.spans / (floor.ms / 1000) / (one.spans / (one.ms / 1000))).toFixed(2));
      print('one-thread peak RSS (MB)', one.maxRssMb.toFixed(0));
      fs.rmSync(inlineDir, { recursive: true, force: true });
    }

    const dataDir = path.join(workDir, `store-import-${process.pid}`);
    const imp = timed('import', () => importInto(file, dataDir));
    const rate = imp.spans / (imp.ms / 1000);
    const dbBytes = ['loupe.db', 'loupe.db-wal'].reduce((n, f) => n + (fs.existsSync(path.join(dataDir, f)) ? fs.statSync(path.join(dataDir, f)).size : 0), 0);
    print('import spans', imp.spans);
    print('import spans/s (wall)', rate.toFixed(0), '≥ 50000');
    print('import bytes/s (MB/s)', (bytes / (imp.ms / 1000) / 1024 / 1024).toFixed(1));
    print('import time ÷ floor time', (floorRate / rate).toFixed(2), '≤ 2.5');
    print('import spans per CPU-second (all threads)', (imp.spans / (imp.cpuMs / 1000)).toFixed(0));
    print('import CPU ÷ floor CPU', (imp.cpuMs / floor.cpuMs).toFixed(2));
    print('peak RSS of the import (MB)', imp.maxRssMb.toFixed(0), '< 500');
    // What holds the peak: anonymous memory (the threads' V8 heaps, SQLite's page caches, zstd) vs mapped file pages.
    if (imp.peak) print('at the peak: anonymous · file-backed · main thread heap (MB)', `${imp.peak.anonMb.toFixed(0)} · ${imp.peak.fileMb.toFixed(0)} · ${imp.peak.mainHeapMb.toFixed(0)}`);
    print('database bytes per span', (dbBytes / imp.spans).toFixed(0));
    if (minSpans !== undefined) {
      fs.rmSync(dataDir, { recursive: true, force: true });
      return;
    }
    const adopted = await withBenchLock(workDir, async () => offerBenchStore(workDir, dataDir, imp.spans));
    print('became the shared bench store', adopted ? 'yes' : 'no (a current one exists)');
  },
};
export default section;
