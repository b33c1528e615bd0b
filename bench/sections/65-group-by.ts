/**
 * Filtered group-by (issue 19 item 2, decision 0021): group-bys with conditions over the rollups' key
 * columns, a time window, two keys and measures with filters, each answered from the keyed span
 * rollups (SQLite) and — the same request with a condition every span meets — by a scan, on a store
 * of the conversation-history workload. Prints p50 / p95 and CPU of both paths, whether they give
 * the same groups, and what the rollups cost (rows and bytes per span).
 *
 * Runs only when named: `npm run bench -- group-by`. LOUPE_BENCH_GROUP_SPANS sets the store's size
 * (default 1,000,000: the shared 1M-span store of the other sections, imported once — ~7 min of CPU,
 * an hour at this machine's usual load); a smaller size builds a store of its own in
 * bench/.data/store-group-<N>/ (100k: ~1 min of CPU), reused while the generator and schema hold.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { BenchSection } from '../lib/section.js';
import { ensureBenchFile, ensureBenchStore, fingerprint, importInto, withBenchLock } from '../lib/bench-store.js';
import { filteredGroupBys } from '../lib/ui-requests.js';
import { loadAverage, timeOp } from '../lib/timing.js';
import { openStores, DB_FILE_NAME } from '../../src/main/store/index.js';
import { EventBus } from '../../src/main/service/events.js';
import { dispatch } from '../../src/main/transport/dispatch.js';
import type { ServiceContext } from '../../src/main/service/context.js';

const PROJECT = 'bench/genai';
const SPANS = Number(process.env.LOUPE_BENCH_GROUP_SPANS ?? 1_000_000);
const MARKER = 'group-store.json';
/** A condition every span meets (span_id is never null): the rollups cannot answer it, so it scans. */
const ALWAYS = { $not: { $eq: [{ $getField: 'span_id' }, { $literal: null }] } };

/** The store of SPANS generated spans: the shared 1M store, or one of its own for another size. */
async function storeOf(workDir: string): Promise<{ dataDir: string; spans: number }> {
  if (SPANS === 1_000_000) return ensureBenchStore(workDir);
  const dataDir = path.join(workDir, `store-group-${SPANS}`);
  const marker = path.join(dataDir, MARKER);
  if (fs.existsSync(marker)) {
    const m = JSON.parse(fs.readFileSync(marker, 'utf8')) as { fp: string; spans: number };
    if (m.fp === fingerprint()) return { dataDir, spans: m.spans };
  }
  const { file } = await ensureBenchFile(workDir, SPANS);
  return withBenchLock(workDir, async () => {
    const r = importInto(file, dataDir);
    fs.writeFileSync(marker, JSON.stringify({ fp: fingerprint(), spans: r.spans }));
    return { dataDir, spans: r.spans };
  });
}

/** Two instants at 35 % and 70 % of the project's time range (from an unfiltered group-by). */
async function windowOf(ctx: ServiceContext): Promise<[string, string]> {
  const r = (await dispatch('spans.query', { project_id: PROJECT, group_by: [{ key: 'agent_name', source: 'field' }], limit: 1000 }, ctx)) as {
    groups: { first_seen: string; last_seen: string }[];
  };
  const first = Math.min(...r.groups.map((g) => Date.parse(g.first_seen)));
  const last = Math.max(...r.groups.map((g) => Date.parse(g.last_seen)));
  const at = (share: number) => new Date(first + Math.round((last - first) * share)).toISOString();
  return [at(0.35), at(0.7)];
}

/** Floats to 10 significant digits: per-unit sums add in another order than the scan's. */
const rounded = (x: unknown) => JSON.stringify(x, (_k, v: unknown) => (typeof v === 'number' && !Number.isInteger(v) ? Number(v.toPrecision(10)) : v));

const section: BenchSection = {
  title: `Filtered group-by from the keyed rollups (SQLite), ${SPANS.toLocaleString('en')} generated spans`,
  explicitOnly: true,
  async run({ workDir, print }) {
    const { dataDir, spans } = await storeOf(workDir);
    const db = new Database(path.join(dataDir, DB_FILE_NAME), { readonly: true });
    try {
      const rows = db.prepare('SELECT COUNT(*) FROM span_rollups').pluck().get() as number;
      const bytes = db.prepare("SELECT SUM(pgsize) FROM dbstat WHERE name IN ('span_rollups', 'span_rollups_unit')").pluck().get() as number;
      print('store spans', spans);
      print('rollup rows · spans per row', `${rows} · ${(spans / rows).toFixed(1)}`);
      print('rollup bytes per span (table + index)', (bytes / spans).toFixed(1));
    } finally {
      db.close();
    }
    const store = await openStores(dataDir);
    const ctx: ServiceContext = { traces: store.traces, app: store.app, events: new EventBus(), dataDir, apiKey: 'bench' };
    print('load average (1, 5, 15 min) before', loadAverage());
    try {
      for (const r of filteredGroupBys(PROJECT, await windowOf(ctx))) {
        const input = r.input as Record<string, unknown> & { query?: { $expr: unknown } };
        const scan = { ...input, query: { $expr: input.query ? { $and: [input.query.$expr, ALWAYS] } : ALWAYS } };
        const same = rounded(await dispatch('spans.query', input, ctx)) === rounded(await dispatch('spans.query', scan, ctx));
        const fast = await timeOp(ctx, 'spans.query', input, 10);
        const slow = await timeOp(ctx, 'spans.query', scan, SPANS > 300_000 ? 1 : 3);
        print(`${r.name}: rollups p50 / p95 · CPU p50 (ms)`, `${fast.p50.toFixed(1)} / ${fast.p95.toFixed(1)} · ${fast.cpuP50.toFixed(1)}`, '≤ 300 at 1M, ≤ 2000 at 10M');
        print(`${r.name}: scan p50 · CPU p50 (ms)`, `${slow.p50.toFixed(0)} · ${slow.cpuP50.toFixed(0)}`);
        print(`${r.name}: same groups both ways`, same ? 'yes' : 'NO');
      }
    } finally {
      await store.close();
    }
    print('load average (1, 5, 15 min) after', loadAverage());
  },
};

export default section;
