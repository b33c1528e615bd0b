/**
 * The shared 1M-span benchmark store, built once per work directory and reused by the chat and
 * analytics sections. Also a small CLI run in a child process by the ingest section, so that peak
 * RSS is the import's own (not the generator's or the bench runner's):
 *
 *   tsx bench/lib/bench-store.ts import <file.jsonl> <dataDir>   → one JSON line {spans, ms, maxRssMb}
 *   tsx bench/lib/bench-store.ts import-inline …                 → same, parsing on the writing thread
 *   tsx bench/lib/bench-store.ts floor  <file.jsonl> <dbFile>    → same, for the floor (parse + bare insert)
 */
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { migrations } from '../../src/main/store/migrations/index.js';
import { generateJsonl } from './generate.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const BENCH_FILE = 'genai-1m.jsonl';
const STORE_DIR = 'store-1m';
const MARKER = 'bench-store.json';

/** Changes when the generator or the schema changes, so a stale store is rebuilt. */
export function fingerprint(): string {
  const h = createHash('sha256');
  h.update(fs.readFileSync(path.join(here, 'generate.ts')));
  for (const m of migrations) h.update(`${m.version}:${m.name}:${m.sql}`);
  return h.digest('hex').slice(0, 16);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Serializes work on the shared files across bench processes (several sections may be run at
 * once by different people): a lock directory holding the owner's pid; a dead owner's lock is taken over.
 */
export async function withBenchLock<T>(workDir: string, fn: () => Promise<T>): Promise<T> {
  fs.mkdirSync(workDir, { recursive: true });
  const lock = path.join(workDir, '.bench-store.lock');
  for (;;) {
    try {
      fs.mkdirSync(lock);
      fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      let owner = 0;
      try {
        owner = Number(fs.readFileSync(path.join(lock, 'pid'), 'utf8'));
      } catch {
        // being created right now
      }
      if (owner && !alive(owner)) fs.rmSync(lock, { recursive: true, force: true });
      else await new Promise((r) => setTimeout(r, 1000));
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * The generated JSONL (≥1M spans; `minSpans` makes a smaller one of its own name, for a quicker
 * run), generated when absent or stale.
 */
export async function ensureBenchFile(workDir: string, minSpans?: number): Promise<{ file: string; spans: number; bytes: number }> {
  return withBenchLock(workDir, () => ensureBenchFileLocked(workDir, minSpans));
}

async function ensureBenchFileLocked(workDir: string, minSpans?: number): Promise<{ file: string; spans: number; bytes: number }> {
  const name = minSpans === undefined ? BENCH_FILE : `genai-${minSpans}.jsonl`;
  const file = path.join(workDir, name);
  const meta = path.join(workDir, `${name}.json`);
  const fp = fingerprint();
  if (fs.existsSync(file) && fs.existsSync(meta)) {
    const m = JSON.parse(fs.readFileSync(meta, 'utf8')) as { fp: string; spans: number; bytes: number };
    if (m.fp === fp) return { file, ...m };
  }
  const r = await generateJsonl(file, minSpans === undefined ? {} : { minSpans });
  fs.writeFileSync(meta, JSON.stringify({ fp, spans: r.spans, bytes: r.bytes }));
  return { file, spans: r.spans, bytes: r.bytes };
}

export interface ChildFigures {
  spans: number;
  /** Process memory at the highest RSS sample (MB, /proc/self/status every 20 ms): what holds the peak. */
  peak?: PeakMemory;
  /** Wall-clock milliseconds. */
  ms: number;
  /** CPU milliseconds (user + system): steadier than wall time on a machine shared with other work. */
  cpuMs: number;
  maxRssMb: number;
}

/** Runs this file's CLI in a child process (tsx), returning its figures. */
export function runChild(mode: 'import' | 'import-inline' | 'floor', file: string, target: string): ChildFigures {
  const tsx = path.resolve(here, '../../node_modules/.bin/tsx');
  const out = execFileSync(tsx, [fileURLToPath(import.meta.url), mode, file, target], { encoding: 'utf8', maxBuffer: 1 << 24 });
  return JSON.parse(out.trim().split('\n').at(-1)!) as ChildFigures;
}

/** Imports `file` into a new data directory `dataDir` (replacing it). */
export function importInto(file: string, dataDir: string): ChildFigures {
  fs.rmSync(dataDir, { recursive: true, force: true });
  return runChild('import', file, dataDir);
}

/** The shared store of the generated file, imported once; later calls reuse it. */
export async function ensureBenchStore(workDir: string): Promise<{ dataDir: string; spans: number }> {
  return withBenchLock(workDir, async () => {
    const { file } = await ensureBenchFileLocked(workDir);
    const dataDir = path.join(workDir, STORE_DIR);
    const spans = currentStoreSpans(workDir);
    if (spans !== null) return { dataDir, spans };
    const r = importInto(file, dataDir);
    fs.writeFileSync(path.join(dataDir, MARKER), JSON.stringify({ fp: fingerprint(), spans: r.spans }));
    return { dataDir, spans: r.spans };
  });
}

/** Span count of the shared store when it is complete and current, else null. */
function currentStoreSpans(workDir: string): number | null {
  const marker = path.join(workDir, STORE_DIR, MARKER);
  if (!fs.existsSync(marker)) return null;
  const m = JSON.parse(fs.readFileSync(marker, 'utf8')) as { fp: string; spans: number };
  return m.fp === fingerprint() ? m.spans : null;
}

/**
 * Offers a freshly imported data directory as the shared bench store: adopted only when there is
 * no current one (never replaced under a reader), otherwise deleted. Call under withBenchLock.
 */
export function offerBenchStore(workDir: string, dataDir: string, spans: number): boolean {
  const target = path.join(workDir, STORE_DIR);
  if (currentStoreSpans(workDir) !== null) {
    fs.rmSync(dataDir, { recursive: true, force: true });
    return false;
  }
  fs.rmSync(target, { recursive: true, force: true });
  fs.renameSync(dataDir, target);
  fs.writeFileSync(path.join(target, MARKER), JSON.stringify({ fp: fingerprint(), spans }));
  return true;
}

/** RSS split at its highest sample: anonymous memory (V8 heaps of every thread, malloc: SQLite's page cache, zstd) vs file pages (the database mapped by mmap_size). */
export interface PeakMemory {
  rssMb: number;
  anonMb: number;
  fileMb: number;
  /** This (the main) thread's V8 heap, for comparison: the worker threads' heaps are in anonMb. */
  mainHeapMb: number;
  /** ArrayBuffers and external memory V8 knows of on this thread. */
  mainExternalMb: number;
}

/**
 * Samples the process's memory every 20 ms (the import runs on other threads, this one's timers are
 * free). From /proc/self/status, whose RSS figures are the kernel's running counters: reading
 * /proc/self/smaps_rollup instead walks every page table under the address-space lock, ~5 ms of
 * kernel time a read at 250 MB, which at 50 reads a second cost the import ~10 CPU-s per 100k spans
 * quiet (18 at load 8) and stalled the import threads' page faults (docs/store.md "Quiet A/B of the
 * packed rows").
 */
function samplePeak(): () => PeakMemory | undefined {
  let peak: PeakMemory | undefined;
  const kb = (text: string, key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0);
  const timer = setInterval(() => {
    let text: string;
    try {
      text = fs.readFileSync('/proc/self/status', 'utf8');
    } catch {
      return; // not Linux
    }
    const rss = kb(text, 'VmRSS') / 1024;
    if (peak && rss <= peak.rssMb) return;
    const m = process.memoryUsage();
    const anon = kb(text, 'RssAnon') / 1024;
    peak = { rssMb: rss, anonMb: anon, fileMb: rss - anon, mainHeapMb: m.heapUsed / 2 ** 20, mainExternalMb: m.external / 2 ** 20 };
  }, 20);
  timer.unref();
  return () => {
    clearInterval(timer);
    if (!peak) return undefined;
    const r = (x: number) => Math.round(x * 10) / 10;
    return { rssMb: r(peak.rssMb), anonMb: r(peak.anonMb), fileMb: r(peak.fileMb), mainHeapMb: r(peak.mainHeapMb), mainExternalMb: r(peak.mainExternalMb) };
  };
}

async function cli(): Promise<void> {
  const [mode, file, target] = process.argv.slice(2);
  const peak = samplePeak();
  const started = performance.now();
  const cpu0 = process.cpuUsage();
  let spans: number;
  if (mode === 'import' || mode === 'import-inline') {
    const { openStores } = await import('../../src/main/store/index.js');
    const { importFile } = await import('../../src/main/service/ingest/index.js');
    const store = await openStores(target!, { readers: 0 });
    // import-inline: everything on one thread (no parse worker), for the ingest section's comparison.
    const r = await importFile(store.traces, file!, { thread: mode === 'import' ? 'auto' : 'inline' });
    await store.close();
    spans = r.spans_imported + r.spans_replaced;
  } else if (mode === 'floor') {
    const { floorImport } = await import('./floor.js');
    spans = await floorImport(file!, target!);
  } else throw new Error(`unknown mode ${mode}`);
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpu0);
  console.log(JSON.stringify({ spans, ms, cpuMs: (cpu.user + cpu.system) / 1000, maxRssMb: process.resourceUsage().maxRSS / 1024, peak: peak() }));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await cli();
