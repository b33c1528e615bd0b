/**
 * Scale (issues 8 and 19): a store of 10M generated spans (LOUPE_BENCH_SCALE_SPANS to change) of the
 * conversation-history workload (bench/lib/generate.ts), streamed from the generator through FIFOs
 * into `loupe import`'s own code path — no 22 GB file is written — one million at a time: after each
 * million the section prints that million's import rate, the file's bytes per span and every request
 * a UI page sends when it opens (bench/lib/ui-requests.ts) plus issue 19's reads (p50 / p95). Then the
 * full set at the end, the targets, and reads while a long group-by runs. The store is kept
 * (and reused while the generator and the schema are unchanged) in bench/.data/store-scale-<N>/.
 *
 * Runs only when named: `npm run bench -- scale`. Building the store takes the import's time
 * (10M spans: ~8 min at 20k spans/s; ~1 h at this machine's usual load) plus ~1 min of reads per
 * million, and its disk (the file size figure × N).
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawn, execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import type { BenchContext, BenchSection } from '../lib/section.js';
import type { ChildFigures } from '../lib/bench-store.js';
import { fingerprint, runChild, withBenchLock } from '../lib/bench-store.js';
import { groupByAgent, scaleReads, uiRequests, type UiIds, type UiRequest } from '../lib/ui-requests.js';
import { RARE_WORD } from '../lib/generate.js';
import { dispatch } from '../../src/main/transport/dispatch.js';
import { loadAverage, timeOp } from '../lib/timing.js';
import { openStores, DB_FILE_NAME } from '../../src/main/store/index.js';
import { EventBus } from '../../src/main/service/events.js';
import type { ServiceContext } from '../../src/main/service/context.js';
import { percentileOf } from '../../src/shared/stats.js';
import { printLayout } from '../lib/file-layout.js';
import { serve } from '../lib/serve.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const PROJECT = 'bench/genai';
const SPANS = Number(process.env.LOUPE_BENCH_SCALE_SPANS ?? 10_000_000);
/** Requests whose name matches are skipped (e.g. a request known to take minutes at this scale). */
const SKIP = process.env.LOUPE_BENCH_SKIP ? new RegExp(process.env.LOUPE_BENCH_SKIP) : null;
const MARKER = 'scale-store.json';
/** Spans per part: the figures are printed after each (LOUPE_BENCH_SCALE_STEP to change). */
const STEP = Number(process.env.LOUPE_BENCH_SCALE_STEP ?? 1_000_000);

/** One part's import and the reads measured after it. */
interface Step {
  spans: number;
  import: ChildFigures;
  fileBytes: number;
  loadBefore: string;
  loadAfter: string;
  reads: { name: string; p50: number; p95: number; runs: number }[];
  readsLoad: string;
}

interface Built extends ChildFigures {
  generatorCpuMs: number;
  fileBytes: number;
  loadBefore: string;
  loadAfter: string;
  steps: Step[];
}

const dbBytes = (dir: string) =>
  ['loupe.db', 'loupe.db-wal'].reduce((n, f) => n + (fs.existsSync(path.join(dir, f)) ? fs.statSync(path.join(dir, f)).size : 0), 0);

/**
 * Generator → FIFOs → importer (a child process per part, so its peak RSS is the import's own). The
 * generator writes part i to FIFO i and blocks opening part i+1 until the next importer reads it, so
 * the reads measured between parts see a store nothing writes to.
 */
async function build(workDir: string, dataDir: string, print: BenchContext['print']): Promise<Built> {
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.mkdirSync(dataDir, { recursive: true });
  const base = path.join(workDir, `scale-${process.pid}.fifo`);
  const parts = Math.max(1, Math.ceil(SPANS / STEP));
  const fifos = Array.from({ length: parts }, (_, i) => `${base}.${i}`);
  for (const f of fifos) {
    fs.rmSync(f, { force: true });
    execFileSync('mkfifo', [f]);
  }
  const tsx = path.resolve(here, '../../node_modules/.bin/tsx');
  const gen = spawn(tsx, [path.resolve(here, '../lib/generate.ts'), base, String(SPANS), '', String(STEP)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let genOut = '';
  gen.stdout.on('data', (c: Buffer) => (genOut += c.toString()));
  let exited = false;
  const genDone = new Promise<void>((resolve, reject) => gen.on('exit', (code) => ((exited = true), code === 0 ? resolve() : reject(new Error(`generator exited with ${code}`)))));
  const loadBefore = loadAverage();
  const steps: Step[] = [];
  const total: ChildFigures = { spans: 0, ms: 0, cpuMs: 0, maxRssMb: 0 };
  try {
    for (const fifo of fifos) {
      // The generator may end a part early (whole turns): then it has exited instead of opening the next.
      if (steps.length) await Promise.race([genDone, new Promise((r) => setTimeout(r, 2000))]);
      if (exited && steps.length) break;
      const stepLoad = loadAverage();
      // Blocks this process (not the generator) until the importer has read the FIFO to its end.
      const imp = runChild('import', fifo, dataDir);
      total.spans += imp.spans;
      total.ms += imp.ms;
      total.cpuMs += imp.cpuMs;
      total.maxRssMb = Math.max(total.maxRssMb, imp.maxRssMb);
      const step: Step = { spans: total.spans, import: imp, fileBytes: dbBytes(dataDir), loadBefore: stepLoad, loadAfter: loadAverage(), reads: [], readsLoad: '' };
      step.readsLoad = loadAverage();
      step.reads = await stepReads(dataDir, total.spans);
      steps.push(step);
      printStep(step, print);
    }
    const loadAfter = loadAverage();
    await genDone;
    const g = JSON.parse(genOut.trim().split('\n').at(-1)!) as { cpuMs: number };
    return { ...total, loadBefore, loadAfter, fileBytes: dbBytes(dataDir), generatorCpuMs: g.cpuMs, steps };
  } finally {
    if (!exited) gen.kill();
    for (const f of fifos) fs.rmSync(f, { force: true });
  }
}

/** The reads timed after each part: every page-open request and issue 19's, up to 10 runs each. */
async function stepReads(dataDir: string, spans: number): Promise<Step['reads']> {
  const ids = sampleIds(dataDir, 10, spans);
  const store = await openStores(dataDir);
  const ctx: ServiceContext = { traces: store.traces, app: store.app, events: new EventBus(), dataDir, apiKey: 'bench' };
  try {
    const out: Step['reads'] = [];
    for (const r of [...uiRequests(ids[0]!), ...scaleReads(PROJECT)]) {
      if (SKIP?.test(r.name)) continue;
      const ms = await timeRequest(ctx, r, ids, 10);
      out.push({ name: `${r.page}: ${r.name}`, p50: percentileOf(ms, 0.5), p95: percentileOf(ms, 0.95), runs: ms.length });
    }
    return out;
  } finally {
    await store.close();
  }
}

/** Times a request (after one warm-up) as many times as its duration allows, with other ids per run where the page is about one conversation or trace. */
async function timeRequest(ctx: ServiceContext, r: UiRequest, ids: UiIds[], maxRuns: number): Promise<number[]> {
  const first = await timeOp(ctx, r.op, r.input, 1);
  const runs = Math.min(maxRuns, runsFor(first.p50));
  const perId = ['chat.conversation', 'chat.trace', 'traces.timeline'].includes(r.op);
  const ms: number[] = [...first.ms];
  for (let i = 0; i < runs; i++) {
    const input = perId ? uiRequests(ids[i % ids.length]!).find((x) => x.name === r.name)!.input : r.input;
    ms.push(...(await timeOp(ctx, r.op, input, 1)).ms);
  }
  return ms;
}

function printStep(st: Step, print: BenchContext['print']): void {
  const m = `${(st.spans / 1e6).toFixed(st.spans % 1e6 ? 2 : 0)}M`;
  print(`at ${m}: this part's import (load ${st.loadBefore} / ${st.loadAfter})`, `${(st.import.spans / (st.import.ms / 1000)).toFixed(0)} spans/s`, '≥ 20000');
  print(`at ${m}: this part's import per CPU-second · peak RSS`, `${(st.import.spans / (st.import.cpuMs / 1000)).toFixed(0)} · ${st.import.maxRssMb.toFixed(0)} MB`, '≥ 12000 · < 500');
  print(`at ${m}: file bytes per span`, (st.fileBytes / st.spans).toFixed(0), '≤ 1000');
  for (const r of st.reads) print(`at ${m}: ${r.name} p50 / p95 (ms, load ${st.readsLoad.split(' ')[0]})`, `${r.p50.toFixed(1)} / ${r.p95.toFixed(1)}`, TARGETS[r.name.replace(/^[^:]+: /, '')]);
}

async function ensureScaleStore(workDir: string, print: BenchContext['print']): Promise<string> {
  const dataDir = path.join(workDir, `store-scale-${SPANS}`);
  const fp = `${fingerprint()}:${SPANS}`;
  return withBenchLock(workDir, async () => {
    const marker = path.join(dataDir, MARKER);
    if (fs.existsSync(marker)) {
      const m = JSON.parse(fs.readFileSync(marker, 'utf8')) as { fp: string; figures: Built };
      if (m.fp === fp) {
        print('store', `reused (${m.figures.spans} spans); figures of its build:`);
        for (const st of m.figures.steps ?? []) printStep(st, print);
        printImport(m.figures, print);
        return dataDir;
      }
    }
    const figures = await build(workDir, dataDir, print);
    fs.writeFileSync(marker, JSON.stringify({ fp, figures }));
    printImport(figures, print);
    return dataDir;
  });
}

function printImport(f: Built, print: BenchContext['print']): void {
  print('import: load average before / after', `${f.loadBefore} / ${f.loadAfter}`);
  print('import spans', f.spans);
  print('import spans/s (wall, generator running beside it)', (f.spans / (f.ms / 1000)).toFixed(0), '≥ 20000');
  print('import CPU-seconds (importer, all threads) · spans per CPU-second', `${(f.cpuMs / 1000).toFixed(0)} · ${(f.spans / (f.cpuMs / 1000)).toFixed(0)}`, '≥ 12000 per CPU-s');
  print('generator CPU-seconds (another process, same cores)', (f.generatorCpuMs / 1000).toFixed(0));
  print('import peak RSS (MB)', f.maxRssMb.toFixed(0), '< 500');
  print('file bytes per span (after import)', (f.fileBytes / f.spans).toFixed(0), '≤ 1000');
}

/** A few conversations and their traces, from the generator's id scheme and the turn index. */
function sampleIds(dataDir: string, n: number, spans = SPANS): UiIds[] {
  const db = new Database(path.join(dataDir, DB_FILE_NAME), { readonly: true });
  try {
    // Rounds of 20,000 conversations of ~20 spans: 2.5 per million spans.
    const rounds = Math.max(1, Math.floor(spans / 400_000));
    const traceOf = db.prepare('SELECT trace_id FROM conversation_turns WHERE project_id = ? AND conversation_id = ? LIMIT 1').pluck();
    const out: UiIds[] = [];
    for (let i = 0; out.length < n && i < n * 10; i++) {
      const conversation = `conv-${(i * 7) % rounds}-${(i * 7919) % 20_000}`;
      const trace = traceOf.get(PROJECT, conversation) as string | undefined;
      if (trace) out.push({ project: PROJECT, conversation, trace, agent: `agent-${String(i % 50).padStart(2, '0')}` });
    }
    if (!out.length) throw new Error(`no conversations of ${PROJECT} found in ${dataDir}`);
    return out;
  } finally {
    db.close();
  }
}

/** Runs per request, from how long the warm-up call took: slow requests are timed a few times only. */
const runsFor = (ms: number) => (ms < 50 ? 30 : ms < 500 ? 10 : ms < 5000 ? 3 : 0);

const GROUP_BY_AGENT = groupByAgent(PROJECT);
/**
 * The same group-by with a condition every span meets: the rollups do not answer a condition, so this
 * one scans every span — the long read the concurrency figures need (the rollup answer takes ~0.1 s).
 */
const GROUP_BY_AGENT_SCAN = { ...GROUP_BY_AGENT, query: { $expr: { $not: { $eq: [{ $getField: 'span_id' }, { $literal: null }] } } } };

const section: BenchSection = {
  title: `Scale: ${SPANS.toLocaleString('en')} streamed spans, every request the UI sends when a page opens`,
  explicitOnly: true,
  async run({ workDir, print }) {
    const dataDir = await ensureScaleStore(workDir, print);
    // Where the bytes go, per table and index (SQLite's dbstat; docs/store.md "File layout").
    printLayout(path.join(dataDir, DB_FILE_NAME), print, SPANS);
    const ids = sampleIds(dataDir, 20);
    const store = await openStores(dataDir);
    const ctx: ServiceContext = { traces: store.traces, app: store.app, events: new EventBus(), dataDir, apiKey: 'bench' };
    print('load average (1, 5, 15 min) before the queries', loadAverage());
    try {
      // The same request with different ids per run where the page is about one conversation/trace.
      for (const r of [...uiRequests(ids[0]!), ...scaleReads(PROJECT)]) {
        if (SKIP?.test(r.name)) {
          print(`${r.page}: ${r.name}`, 'skipped (LOUPE_BENCH_SKIP)');
          continue;
        }
        const ms = await timeRequest(ctx, r, ids, 30);
        print(`${r.page}: ${r.name} p50 / p95 (ms, ${ms.length} runs)`, `${percentileOf(ms, 0.5).toFixed(1)} / ${percentileOf(ms, 0.95).toFixed(1)}`, TARGETS[r.name]);
      }
      const g = await timeOp(ctx, 'spans.query', GROUP_BY_AGENT, 2);
      print('group by agent_name, 3 measures p50 (ms; from the rollups)', g.p50.toFixed(0), '≤ 1000');
      const scan = await timeOp(ctx, 'spans.query', GROUP_BY_AGENT_SCAN, 1);
      print('the same with a condition (scans every span) p50 (ms)', scan.p50.toFixed(0));
      // The generator puts RARE_WORD in one trace of every 100,003 (~20 at 10M spans).
      const rareInput = { project_id: PROJECT, search: RARE_WORD, limit: 200, offset: 0, sort_by: [{ field: 'last_activity', direction: 'desc' }] };
      const rare = await timeOp(ctx, 'conversations.list', rareInput, 5);
      const rareRows = ((await dispatch('conversations.list', rareInput, ctx)) as { total_count: number }).total_count;
      print(`full-text search, rare word ('${RARE_WORD}', ${rareRows} conversations) p50 (ms)`, rare.p50.toFixed(1), '≤ 200');
    } finally {
      await store.close();
    }
    await concurrent(dataDir, ids, print);
    print('file bytes per span (now)', (dbBytes(dataDir) / SPANS).toFixed(0), '≤ 1000');
    print('load average (1, 5, 15 min) after', loadAverage());
  },
};

const TARGETS: Record<string, string> = {
  'conversations list': 'p50 ≤ 50, p95 ≤ 150',
  'conversation chat': 'p50 ≤ 20',
  'trace chat': '≤ 10',
  agents: '≤ 50',
  "search, common word ('warehouse')": '≤ 200 at 1M, ≤ 400 at 10M',
  'threads by p99 turn duration': '≤ 100',
  'threads by p50 turn duration, ascending': '≤ 100',
  "group by agent_name, 3 measures, where operation = 'chat'": '≤ 300 at 1M, ≤ 2000 at 10M',
  "group by request_model, 3 measures, where status = 'ERROR'": '≤ 300 at 1M, ≤ 2000 at 10M',
};

/**
 * Over HTTP against a running server: while the group-by runs, a conversation chat request and an
 * OTLP ingest request are sent; their latencies say whether a long read blocks the others. The
 * group-by is the scanning variant (GROUP_BY_AGENT_SCAN), so it runs for seconds at 10M spans.
 */
async function concurrent(dataDir: string, ids: UiIds[], print: BenchContext['print']): Promise<void> {
  const loupe = await serve(dataDir);
  const post = (p: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${loupe.url}${p}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  try {
    // As the UI does when it opens (the sidebar's projects): the server's first read starts its read
    // pool, which then keeps a worker idle for the next one. Without it the first chat below would
    // time a worker starting (0.3–2 s under tsx), not a read.
    await (await post('/app/projects', {})).arrayBuffer();
    await new Promise((r) => setTimeout(r, 2000));
    const chat: number[] = [];
    const ingest: number[] = [];
    const groupMs: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      const group = post('/agents/spans/query', GROUP_BY_AGENT_SCAN).then(async (r) => {
        await r.arrayBuffer();
        groupMs.push(performance.now() - t0);
      });
      await new Promise((r) => setTimeout(r, 100));
      // Both while the group-by runs: a reader's request and a writer's.
      const timed = async (req: Promise<Response>) => {
        const t = performance.now();
        await (await req).arrayBuffer();
        return performance.now() - t;
      };
      const [c, w] = await Promise.all([
        timed(post('/agents/conversations/chat', { project_id: PROJECT, conversation_id: ids[i]!.conversation, limit: 10 })),
        timed(post('/v1/traces', liveTurn(i), { 'x-project-id': 'bench/live' })),
      ]);
      chat.push(c);
      ingest.push(w);
      await group;
    }
    print('during a group-by: conversation chat max (ms; each run)', `${Math.max(...chat).toFixed(0)} (${chat.map((x) => x.toFixed(0)).join(', ')})`, '≤ 50');
    print('during a group-by: OTLP ingest request max (ms)', Math.max(...ingest).toFixed(0));
    print('the scanning group-by itself over HTTP p50 (ms)', percentileOf(groupMs, 0.5).toFixed(0));
  } finally {
    await loupe.stop();
  }
}

/** One small OTLP JSON request (a 3-span turn) for the live-ingest figure. */
function liveTurn(i: number): unknown {
  const t = BigInt(Date.now()) * 1_000_000n;
  const trace = `${'e'.repeat(24)}${String(i).padStart(8, '0')}`;
  const span = (id: number, parent: number | null, name: string) => ({
    traceId: trace, spanId: `${'f'.repeat(8)}${String(id).padStart(8, '0')}`, ...(parent === null ? {} : { parentSpanId: `${'f'.repeat(8)}${String(parent).padStart(8, '0')}` }),
    name, startTimeUnixNano: String(t), endTimeUnixNano: String(t + 1_000_000n),
    attributes: [{ key: 'gen_ai.conversation.id', value: { stringValue: `live-${i}` } }],
  });
  return { resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 'bench' }, spans: [span(1, null, 'invoke_agent live'), span(2, 1, 'chat m'), span(3, 1, 'execute_tool t')] }] }] };
}

export default section;
