/**
 * ClickHouse (issue 9): the scale workload (10M generated spans, LOUPE_BENCH_SCALE_SPANS to change)
 * streamed from the generator through a FIFO into a ClickHouse store on a private server
 * (Debian's clickhouse-server in bench/.data/clickhouse/, zstd parts), then import spans/s, bytes per
 * span on disk, and the query targets on it. The database is kept and reused while the
 * generator and the ClickHouse schema are unchanged.
 *
 * Runs only when named: `npm run bench -- clickhouse`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawn, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { BenchContext, BenchSection } from '../lib/section.js';
import { withBenchLock } from '../lib/bench-store.js';
import { loadAverage } from '../lib/timing.js';
import { startClickHouse, stopClickHouse, type ClickHouseServer } from '../../test/helpers/clickhouse-server.js';
import { chMigrations } from '../../src/main/store/clickhouse/migrations/index.js';
import { openClickHouseTraceStore } from '../../src/main/store/clickhouse/index.js';
import { ClickHouse, parseStoreUrl } from '../../src/main/store/clickhouse/connection.js';
import { ident, sql, str } from '../../src/main/store/clickhouse/sql.js';
import type { TraceStore } from '../../src/main/store/ports.js';
import type { SpanScope } from '../../src/main/domain/plans.js';
import { percentileOf } from '../../src/shared/stats.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const PROJECT = 'bench/genai';
const SPANS = Number(process.env.LOUPE_BENCH_SCALE_SPANS ?? 10_000_000);
const DATABASE = `scale_${SPANS}`;
const ZSTD = 1;

interface Built {
  spans: number;
  ms: number;
  cpuMs: number;
  maxRssMb: number;
  writeMs: number;
  generatorCpuMs: number;
  loadBefore: string;
  loadAfter: string;
}

function fingerprint(): string {
  const h = createHash('sha256');
  h.update(fs.readFileSync(path.join(here, '../lib/generate.ts')));
  for (const m of chMigrations) h.update(`${m.version}:${m.name}:${m.statements.join('\n;\n')}`);
  return h.digest('hex').slice(0, 16);
}

/** Generator → FIFO → ClickHouse importer (a child process, so its CPU and RSS are its own). */
async function build(workDir: string, url: string): Promise<Built> {
  const fifo = path.join(workDir, `ch-scale-${process.pid}.fifo`);
  fs.rmSync(fifo, { force: true });
  execFileSync('mkfifo', [fifo]);
  const tsx = path.resolve(here, '../../node_modules/.bin/tsx');
  const gen = spawn(tsx, [path.resolve(here, '../lib/generate.ts'), fifo, String(SPANS)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let genOut = '';
  gen.stdout.on('data', (c: Buffer) => (genOut += c.toString()));
  const genDone = new Promise<void>((resolve, reject) => gen.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`generator exited with ${code}`)))));
  const loadBefore = loadAverage();
  try {
    const out = execFileSync(tsx, [path.resolve(here, '../lib/clickhouse-import.ts'), fifo, url], { encoding: 'utf8', maxBuffer: 1 << 24 });
    const loadAfter = loadAverage();
    await genDone;
    const imp = JSON.parse(out.trim().split('\n').at(-1)!) as Omit<Built, 'generatorCpuMs' | 'loadBefore' | 'loadAfter'>;
    const g = JSON.parse(genOut.trim().split('\n').at(-1)!) as { cpuMs: number };
    return { ...imp, generatorCpuMs: g.cpuMs, loadBefore, loadAfter };
  } finally {
    fs.rmSync(fifo, { force: true });
  }
}

async function ensureStore(workDir: string, server: ClickHouseServer, print: BenchContext['print']): Promise<string> {
  const url = `clickhouse://default@127.0.0.1:${server.httpPort}/${DATABASE}`;
  const marker = path.join(workDir, 'clickhouse', `${DATABASE}.json`);
  const fp = fingerprint();
  if (fs.existsSync(marker)) {
    const m = JSON.parse(fs.readFileSync(marker, 'utf8')) as { fp: string; figures: Built };
    if (m.fp === fp) {
      print('store', `reused (${m.figures.spans} spans); import figures of its build:`);
      printImport(m.figures, print);
      return url;
    }
  }
  const ch = await ClickHouse.connect(parseStoreUrl(url));
  await ch.command(sql`DROP DATABASE IF EXISTS ${ident(DATABASE)}`);
  await ch.close();
  const figures = await build(workDir, url);
  fs.writeFileSync(marker, JSON.stringify({ fp, figures }));
  printImport(figures, print);
  return url;
}

function printImport(f: Built, print: BenchContext['print']): void {
  print('import: load average before / after', `${f.loadBefore} / ${f.loadAfter}`);
  print('import spans', f.spans);
  print('import spans/s (wall, generator running beside it)', (f.spans / (f.ms / 1000)).toFixed(0), '≥ 50000');
  print('importer CPU-seconds (parse + encode)', (f.cpuMs / 1000).toFixed(0));
  print('generator CPU-seconds (another process, same cores)', (f.generatorCpuMs / 1000).toFixed(0));
  print('importer peak RSS (MB)', f.maxRssMb.toFixed(0));
}

async function bytesOnDisk(url: string): Promise<{ disk: number; data: number; raw: number; tables: Record<string, number> }> {
  const ch = await ClickHouse.connect(parseStoreUrl(url));
  try {
    const rows = await ch.rows<{ table: string; disk: string; data: string; raw: string }>(
      sql`SELECT table, sum(bytes_on_disk) AS disk, sum(data_compressed_bytes) AS data, sum(data_uncompressed_bytes) AS raw
          FROM system.parts WHERE database = ${str(DATABASE)} AND active GROUP BY table`,
    );
    const sum = (k: 'disk' | 'data' | 'raw') => rows.reduce((a, r) => a + Number(r[k]), 0);
    return { disk: sum('disk'), data: sum('data'), raw: sum('raw'), tables: Object.fromEntries(rows.map((r) => [r.table, Number(r.disk)])) };
  } finally {
    await ch.close();
  }
}

const scope: SpanScope = { project_id: PROJECT, started_after_ns: null, started_before_ns: null, where: null };

async function time(f: () => Promise<unknown>, runs: number): Promise<number[]> {
  await f(); // warm the server's mark and page caches
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await f();
    ms.push(performance.now() - t);
  }
  return ms;
}

/** The query targets, timed on the store's reads (what the operations spend beyond the server is a few ms of JS). */
async function queries(store: TraceStore, print: BenchContext['print']): Promise<void> {
  const conversations = await store.conversations({
    project_id: PROJECT, active_after_ns: null, active_before_ns: null, agent_names: null, models: null, status: 'all', search: null,
    sort: [{ field: 'last_activity', direction: 'desc' }, { field: 'conversation_id', direction: 'asc' }], limit: 200, offset: 0,
  });
  const ids = conversations.conversations.map((c) => c.conversation_id).slice(0, 20);
  const report = (name: string, ms: number[], target?: string) =>
    print(`${name} p50 / p95 (ms, ${ms.length} runs)`, `${percentileOf(ms, 0.5).toFixed(1)} / ${percentileOf(ms, 0.95).toFixed(1)}`, target);

  report('conversations page (200 rows, by last activity)', await time(() => store.conversations({
    project_id: PROJECT, active_after_ns: null, active_before_ns: null, agent_names: null, models: null, status: 'all', search: null,
    sort: [{ field: 'last_activity', direction: 'desc' }, { field: 'conversation_id', direction: 'asc' }], limit: 200, offset: 0,
  }), 10), '≤ 100');
  let i = 0;
  report('conversation chat reads (10 turns)', await time(async () => {
    const id = ids[i++ % ids.length]!;
    const page = await store.conversationTurns({ project_id: PROJECT, conversation_id: id, limit: 10, offset: 0 });
    await store.conversationTurnSpans(PROJECT, id, page.trace_ids);
  }, 20), '≤ 50');
  report('agents', await time(() => store.agents({ project_id: PROJECT, agent_name: null, include_costs: true, sort: [{ field: 'last_seen', direction: 'desc' }, { field: 'agent_name', direction: 'asc' }], limit: 1000, offset: 0 }), 5));
  report('group by agent_name, 3 measures', await time(() => store.groupSpans({
    ...scope,
    keys: [{ alias: 'agent_name', ref: { kind: 'column', column: 'agent_name' }, type: 'string' }],
    measures: [
      { alias: 'tokens', aggregation: 'sum', value: { kind: 'derived', name: 'total_tokens', type: 'int' }, filter: null },
      { alias: 'p_dur', aggregation: 'avg', value: { kind: 'derived', name: 'duration_ms', type: 'int' }, filter: null },
      { alias: 'errors', aggregation: 'count_true', value: { kind: 'derived', name: 'is_error', type: 'bool' }, filter: null },
    ],
    having: [], distributions: [], include_costs: false, previews: false,
    sort: [{ ref: { kind: 'measure', index: 0 }, direction: 'desc' }, { ref: { kind: 'key', index: 0 }, direction: 'asc' }], limit: 1000, offset: 0,
  }), 3), '≤ 500');
  report('spans list page (100 newest)', await time(() => store.listSpans({
    ...scope, custom_columns: [], include_costs: true, include_details: false, sort: [{ ref: { kind: 'column', column: 'started_at' }, direction: 'desc' }], limit: 100, offset: 0,
  }), 3));
}

const section: BenchSection = {
  title: `ClickHouse: ${SPANS.toLocaleString('en')} streamed spans into Debian's clickhouse-server ${'18.16'} (zstd level ${ZSTD}), the issue's figures`,
  explicitOnly: true,
  async run({ workDir, print }) {
    await withBenchLock(workDir, async () => {
      const dir = path.join(workDir, 'clickhouse');
      fs.mkdirSync(dir, { recursive: true });
      const server = await startClickHouse({ dir: path.join(dir, 'server'), zstdLevel: ZSTD });
      try {
        print('server', `clickhouse-server ${server.version}, pid ${server.pid}`);
        const url = await ensureStore(workDir, server, print);
        const b = await bytesOnDisk(url);
        print('bytes per span on disk (all tables)', (b.disk / SPANS).toFixed(0), '≤ 250');
        print('  compressed column data / uncompressed, per span', `${(b.data / SPANS).toFixed(0)} / ${(b.raw / SPANS).toFixed(0)}`);
        for (const [t, n] of Object.entries(b.tables).sort((x, y) => y[1] - x[1])) print(`  ${t}`, `${(n / SPANS).toFixed(1)} B/span`);
        print('load average (1, 5, 15 min) before the queries', loadAverage());
        const store = await openClickHouseTraceStore(url);
        try {
          await queries(store, print);
        } finally {
          await store.close();
        }
        print('load average (1, 5, 15 min) after', loadAverage());
      } finally {
        await stopClickHouse(server);
      }
    });
  },
};

export default section;
