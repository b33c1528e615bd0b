/**
 * Scale on ClickHouse (issue 19): the scale workload (bench/lib/generate.ts, 10M spans by default,
 * LOUPE_BENCH_SCALE_SPANS to change) streamed from the generator through a FIFO into a ClickHouse store
 * on a private server (Debian's clickhouse-server in bench/.data/clickhouse/, zstd parts). At every
 * million spans (LOUPE_BENCH_SCALE_STEP) the import pauses and the section prints that stretch's
 * import spans/s and per-batch write time (flat from the first million to the last when a write's
 * cost does not grow with the store), the store's bytes per span, and every request a UI page sends
 * when it opens (bench/lib/ui-requests.ts) p50 / p95. Then: a 30 MB OTLP post to `loupe serve
 * --store` (acknowledged in ≤ 5 s: spooled, bench/lib/big-post.ts; then its drain), and one importer
 * against two at once (≥ 1.7×).
 * The database is kept and reused while the generator and the ClickHouse schema are unchanged.
 *
 * Runs only when named: `npm run bench -- scale clickhouse` (or `-- clickhouse`). A 10M fill takes
 * the import's time (10M / the spans/s printed) plus the pauses.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { spawn, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { BenchContext, BenchSection } from '../lib/section.js';
import { withBenchLock } from '../lib/bench-store.js';
import { loadAverage, timeOp } from '../lib/timing.js';
import { uiRequests } from '../lib/ui-requests.js';
import { sampleIds, serverReads, type ServerReads } from '../lib/clickhouse-reads.js';
import { generateJsonl } from '../lib/generate.js';
import { serve } from '../lib/serve.js';
import { bigPostBody, timeBigPost } from '../lib/big-post.js';
import { startClickHouse, stopClickHouse, type ClickHouseServer } from '../../test/helpers/clickhouse-server.js';
import { chMigrations } from '../../src/main/store/clickhouse/migrations/index.js';
import { ClickHouse, parseStoreUrl } from '../../src/main/store/clickhouse/connection.js';
import { ident, sql, str } from '../../src/main/store/clickhouse/sql.js';
import { openStores } from '../../src/main/store/index.js';
import { EventBus } from '../../src/main/service/events.js';
import type { ServiceContext } from '../../src/main/service/context.js';
import { percentileOf } from '../../src/shared/stats.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const tsx = path.resolve(here, '../../node_modules/.bin/tsx');
const SPANS = Number(process.env.LOUPE_BENCH_SCALE_SPANS ?? 10_000_000);
const STEP = Math.min(SPANS, Number(process.env.LOUPE_BENCH_SCALE_STEP ?? 1_000_000));
const BATCH = Number(process.env.LOUPE_BENCH_CH_BATCH ?? 20_000);
const DATABASE = `scale_${SPANS}`;
const ZSTD = 1;

interface Stretch {
  spans: number;
  ms: number;
  cpuMs: number;
  writeMs: number;
  batches: number;
  maxBatchMs: number;
  load: string;
  bytesPerSpan: number;
  requests: RequestFigures[];
}

/** One page request's times, and what the server read for one call of it (system.query_log). */
interface RequestFigures {
  name: string;
  p50: number;
  p95: number;
  runs: number;
  reads?: ServerReads;
  /** The request's error when it failed (the fill goes on: a read that fails at 8M must not hide 9M and 10M). */
  failed?: string;
}


interface Built {
  spans: number;
  ms: number;
  cpuMs: number;
  maxRssMb: number;
  generatorCpuMs: number;
  loadBefore: string;
  loadAfter: string;
  stretches: Stretch[];
}

function fingerprint(): string {
  const h = createHash('sha256');
  h.update(fs.readFileSync(path.join(here, '../lib/generate.ts')));
  for (const m of chMigrations) h.update(`${m.version}:${m.name}:${m.statements.join('\n;\n')}`);
  h.update(`${STEP}:${BATCH}`);
  return h.digest('hex').slice(0, 16);
}

/** Spans per byte of every table of the database (system.parts, active parts). */
async function bytesOnDisk(url: string, spans: number): Promise<{ perSpan: number; data: number; raw: number; tables: Record<string, number> }> {
  const ch = await ClickHouse.connect(parseStoreUrl(url));
  try {
    const rows = await ch.rows<{ table: string; disk: string; data: string; raw: string }>(
      sql`SELECT table, sum(bytes_on_disk) AS disk, sum(data_compressed_bytes) AS data, sum(data_uncompressed_bytes) AS raw
          FROM system.parts WHERE database = ${str(ch.config.database)} AND active GROUP BY table`,
    );
    const sum = (k: 'disk' | 'data' | 'raw') => rows.reduce((a, r) => a + Number(r[k]), 0);
    return { perSpan: sum('disk') / spans, data: sum('data') / spans, raw: sum('raw') / spans, tables: Object.fromEntries(rows.map((r) => [r.table, Number(r.disk) / spans])) };
  } finally {
    await ch.close();
  }
}

/** Runs per request, from how long the warm-up call took: slow requests are timed a few times only. */
const runsFor = (ms: number) => (ms < 50 ? 20 : ms < 500 ? 10 : ms < 5000 ? 3 : 0);

/** Every UI page request, p50 / p95, as in the SQLite scale section (per-id requests rotate ids), and one call's server reads. */
async function pageRequests(url: string): Promise<Stretch['requests']> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-bench-ch-app-'));
  const stores = await openStores(dataDir, { traceStore: url });
  const ctx: ServiceContext = { traces: stores.traces, app: stores.app, events: new EventBus(), dataDir, apiKey: 'bench' };
  try {
    const ids = await sampleIds(ctx, 10);
    const out: Stretch['requests'] = [];
    for (const r of uiRequests(ids[0]!)) {
      const name = `${r.page}: ${r.name}`;
      try {
        const first = await timeOp(ctx, r.op, r.input, 1);
        const perId = ['chat.conversation', 'chat.trace', 'traces.timeline'].includes(r.op);
        const ms = [...first.ms];
        for (let i = 0; i < runsFor(first.p50); i++) {
          const input = perId ? uiRequests(ids[i % ids.length]!).find((x) => x.name === r.name)!.input : r.input;
          ms.push(...(await timeOp(ctx, r.op, input, 1)).ms);
        }
        const reads = await serverReads(url, () => timeOp(ctx, r.op, r.input, 0));
        out.push({ name, p50: percentileOf(ms, 0.5), p95: percentileOf(ms, 0.95), runs: ms.length, reads });
      } catch (e) {
        // Printed as FAILED and the fill goes on, so the figures of the millions after it still come.
        out.push({ name, p50: NaN, p95: NaN, runs: 0, failed: (e instanceof Error ? e.message : String(e)).slice(0, 300) });
      }
    }
    return out;
  } finally {
    await stores.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

function printStretch(s: Stretch, print: BenchContext['print']): void {
  const at = `at ${(s.spans / 1e6).toFixed(s.spans % 1e6 ? 2 : 0)}M`;
  print(`${at}: load average (1, 5, 15 min)`, s.load);
  print(`${at}: import spans/s (this stretch, wall)`, ((STEP / s.ms) * 1000).toFixed(0), '≥ 20000');
  print(`${at}: batch write ms mean / max (${s.batches} batches of ${BATCH})`, `${(s.writeMs / Math.max(1, s.batches)).toFixed(0)} / ${s.maxBatchMs.toFixed(0)}`, 'flat');
  print(`${at}: importer CPU-s per 100k spans`, ((s.cpuMs / 1000 / STEP) * 100_000).toFixed(1));
  print(`${at}: bytes per span on disk (all tables)`, s.bytesPerSpan.toFixed(0), '≤ 300');
  printRequests(at, s.requests, print);
}

function printRequests(at: string, requests: RequestFigures[], print: BenchContext['print']): void {
  for (const r of requests) {
    if (r.failed !== undefined) {
      print(`${at}: ${r.name}`, `FAILED: ${r.failed}`);
      continue;
    }
    const read = r.reads ? ` · ${r.reads.statements} stmts, ${(r.reads.rows / 1000).toFixed(0)}k rows, ${(r.reads.bytes / 2 ** 20).toFixed(1)} MiB read` : '';
    print(`${at}: ${r.name} p50 / p95 (ms, ${r.runs} runs)`, `${r.p50.toFixed(1)} / ${r.p95.toFixed(1)}${read}`);
  }
}

/** Generator → FIFO → importer, paused at every STEP spans for the figures. */
async function build(workDir: string, url: string, print: BenchContext['print']): Promise<Built> {
  const fifo = path.join(workDir, `ch-scale-${process.pid}.fifo`);
  fs.rmSync(fifo, { force: true });
  execFileSync('mkfifo', [fifo]);
  const gen = spawn(tsx, [path.resolve(here, '../lib/generate.ts'), fifo, String(SPANS)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let genOut = '';
  gen.stdout.on('data', (c: Buffer) => (genOut += c.toString()));
  const genDone = new Promise<void>((resolve, reject) => gen.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`generator exited with ${code}`)))));
  const loadBefore = loadAverage();
  const stretches: Stretch[] = [];
  try {
    const imp = spawn(tsx, [path.resolve(here, '../lib/clickhouse-import.ts'), fifo, url, String(BATCH), String(STEP)], { stdio: ['pipe', 'pipe', 'inherit'] });
    const exitCode = new Promise<number | null>((r) => imp.on('exit', (c) => r(c)));
    type Totals = Omit<Built, 'generatorCpuMs' | 'loadBefore' | 'loadAfter' | 'stretches'>;
    const result: { totals: Totals | null } = { totals: null };
    for await (const line of readline.createInterface({ input: imp.stdout })) {
      const msg = JSON.parse(line) as { checkpoint?: number } & Record<string, number>;
      if (msg.checkpoint === undefined) {
        result.totals = msg as unknown as Totals;
        continue;
      }
      const load = loadAverage();
      const bytes = await bytesOnDisk(url, msg.checkpoint);
      const s: Stretch = {
        spans: msg.checkpoint, ms: msg.ms!, cpuMs: msg.cpuMs!, writeMs: msg.writeMs!, batches: msg.batches!, maxBatchMs: msg.maxBatchMs!,
        load, bytesPerSpan: bytes.perSpan, requests: await pageRequests(url),
      };
      stretches.push(s);
      printStretch(s, print);
      imp.stdin.write('\n');
    }
    const totals = result.totals;
    if ((await exitCode) !== 0 || !totals) throw new Error('the ClickHouse importer failed');
    const loadAfter = loadAverage();
    await genDone;
    const g = JSON.parse(genOut.trim().split('\n').at(-1)!) as { cpuMs: number };
    return { ...totals, generatorCpuMs: g.cpuMs, loadBefore, loadAfter, stretches };
  } finally {
    fs.rmSync(fifo, { force: true });
  }
}

function printTotals(f: Built, print: BenchContext['print']): void {
  print('import: load average before / after', `${f.loadBefore} / ${f.loadAfter}`);
  print('import spans', f.spans);
  print('import spans/s (wall, pauses for figures excluded)', ((f.spans / f.stretches.reduce((a, s) => a + s.ms, 0)) * 1000).toFixed(0), '≥ 20000');
  print('importer CPU-seconds (parse + encode + summaries)', (f.cpuMs / 1000).toFixed(0));
  print('generator CPU-seconds (another process, same cores)', (f.generatorCpuMs / 1000).toFixed(0));
  print('importer peak RSS (MB)', f.maxRssMb.toFixed(0));
}

async function ensureStore(workDir: string, server: ClickHouseServer, print: BenchContext['print']): Promise<string> {
  const url = `clickhouse://default@127.0.0.1:${server.httpPort}/${DATABASE}`;
  const marker = path.join(workDir, 'clickhouse', `${DATABASE}.json`);
  const fp = fingerprint();
  if (fs.existsSync(marker)) {
    const m = JSON.parse(fs.readFileSync(marker, 'utf8')) as { fp: string; figures: Built };
    // LOUPE_BENCH_CH_REUSE=1 keeps a store built by other code (its migrations run at open): a 10M fill
    // takes an hour, and re-timing the reads after a read-side change needs no new fill.
    if (m.fp === fp || process.env.LOUPE_BENCH_CH_REUSE === '1') {
      print('store', `reused (${m.figures.spans} spans); the figures of its build:`);
      for (const s of m.figures.stretches) printStretch(s, print);
      printTotals(m.figures, print);
      // The store is kept: the page requests are timed again with the code as it is now.
      print(`now: load average (1, 5, 15 min)`, loadAverage());
      printRequests(`now at ${(m.figures.spans / 1e6).toFixed(2)}M`, await pageRequests(url), print);
      print(`now: load average after (1, 5, 15 min)`, loadAverage());
      return url;
    }
  }
  const ch = await ClickHouse.connect(parseStoreUrl(url));
  await ch.command(sql`DROP DATABASE IF EXISTS ${ident(DATABASE)}`);
  await ch.close();
  const started = Date.now();
  const figures = await build(workDir, url, print);
  fs.writeFileSync(marker, JSON.stringify({ fp, figures }));
  printTotals(figures, print);
  print('fill took (minutes, with the pauses for figures)', ((Date.now() - started) / 60_000).toFixed(1));
  return url;
}

/** Imports `file` with one importer, then with two at once (each its own copy under its own project); the ratio. */
async function twoImporters(file: string, url: string, print: BenchContext['print']): Promise<void> {
  const run = (project: string) =>
    new Promise<{ spans: number; ms: number }>((resolve, reject) => {
      const child = spawn(tsx, [path.resolve(here, '../lib/clickhouse-import.ts'), file, url, String(BATCH), '0', project], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1)!) as { spans: number; ms: number }) : reject(new Error(`importer exited with ${code}`))));
    });
  const tag = Date.now().toString(36);
  const load = loadAverage();
  const t1 = performance.now();
  const one = await run(`bench/one-${tag}`);
  const oneRate = one.spans / ((performance.now() - t1) / 1000);
  const t2 = performance.now();
  const [a, b] = await Promise.all([run(`bench/two-a-${tag}`), run(`bench/two-b-${tag}`)]);
  const twoRate = (a.spans + b.spans) / ((performance.now() - t2) / 1000);
  print(`one importer (${one.spans} spans) spans/s, load ${load}`, oneRate.toFixed(0));
  print(`two importers at once spans/s, load ${loadAverage()}`, twoRate.toFixed(0));
  print('two importers / one', (twoRate / oneRate).toFixed(2), '≥ 1.7');
}

/** A 30 MB OTLP JSON post to `loupe serve --store`: time to its answer (spooled: decision 0025), then until drained and summarized. */
async function bigPost(file: string, url: string, print: BenchContext['print']): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-bench-ch-serve-'));
  const loupe = await serve(dataDir, ['--store', url]);
  try {
    await timeBigPost(loupe.url, bigPostBody(file), 'ClickHouse store', print);
  } finally {
    await loupe.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const section: BenchSection = {
  title: `Scale on ClickHouse: ${SPANS.toLocaleString('en')} streamed spans into Debian's clickhouse-server 18.16 (zstd level ${ZSTD}), figures every ${STEP.toLocaleString('en')}`,
  explicitOnly: true,
  async run({ workDir, print }) {
    await withBenchLock(workDir, async () => {
      const dir = path.join(workDir, 'clickhouse');
      fs.mkdirSync(dir, { recursive: true });
      const server = await startClickHouse({ dir: path.join(dir, 'server'), zstdLevel: ZSTD });
      try {
        print('server', `clickhouse-server ${server.version}, pid ${server.pid}`);
        const url = await ensureStore(workDir, server, print);
        const b = await bytesOnDisk(url, SPANS);
        print('bytes per span on disk (all tables)', b.perSpan.toFixed(0), '≤ 300');
        print('  compressed column data / uncompressed, per span', `${b.data.toFixed(0)} / ${b.raw.toFixed(0)}`);
        for (const [t, n] of Object.entries(b.tables).sort((x, y) => y[1] - x[1])) print(`  ${t}`, `${n.toFixed(1)} B/span`);
        if (process.env.LOUPE_BENCH_CH_EXTRA !== '0') {
          const file = path.join(dir, 'extra.jsonl');
          if (!fs.existsSync(file)) await generateJsonl(file, { minSpans: Number(process.env.LOUPE_BENCH_CH_EXTRA_SPANS ?? 100_000), seed: 7 });
          await bigPost(file, url, print);
          await twoImporters(file, url, print);
        }
      } finally {
        await stopClickHouse(server);
      }
    });
  },
};

export default section;
