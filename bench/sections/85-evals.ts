/**
 * Evals (issue 20) on the shared ≥1M-span store, through a started Loupe's HTTP API: a rule scorer
 * over every turn (`POST /app/scorers/run`, its `turns_per_second`; target ≥ 2,000), the failure
 * signature pass, the Clusters view (`POST /app/clusters` p50; ≤ 300 ms) and a score filter on the
 * conversations list (p50; ≤ 100 ms).
 *
 * `npm run bench -- evals`. EVALS_BENCH_SPANS=20000 measures a small generated store of its own
 * instead (a loaded machine); EVALS_BENCH_STORE=<data folder> measures that folder (a COPY of the
 * shared 1M store: scores are written into the store measured). Each run saves a scorer of its own id
 * (same score name), so a re-run scores every turn again; then it runs that scorer once more, every
 * turn already scored (the resume/re-run cost). CPU figures are this process's (server, read workers
 * and writer thread together): on a shared machine they say more than wall time.
 * EVALS_BENCH_ONLY=views measures only the two views on the store as it is (no scorer run, no pass).
 */
import path from 'node:path';
import type { BenchSection } from '../lib/section.js';
import { ensureBenchFile, ensureBenchStore, importInto } from '../lib/bench-store.js';
import { loadAverage } from '../lib/timing.js';
import { startLoupe } from '../../src/main/serve.js';
import { percentileOf as pct } from '../../src/shared/stats.js';

const PROJECT = 'bench/genai';
const CALLS = 20;

const section: BenchSection = {
  title: 'Evals: rule scorer rate, Clusters view, score filter',
  explicitOnly: true,
  async run({ workDir, print }) {
    const small = process.env.EVALS_BENCH_SPANS ? Number(process.env.EVALS_BENCH_SPANS) : null;
    let dataDir: string;
    if (process.env.EVALS_BENCH_STORE) {
      dataDir = path.resolve(process.env.EVALS_BENCH_STORE);
      print('store', dataDir);
    } else if (small) {
      const { file } = await ensureBenchFile(workDir, small);
      dataDir = path.join(workDir, `evals-${small}`);
      print('store spans', importInto(file, dataDir).spans);
    } else {
      const s = await ensureBenchStore(workDir);
      dataDir = s.dataDir;
      print('store spans', s.spans);
    }
    const opened = performance.now();
    const loupe = await startLoupe({ dataDir, port: 0, rendererDir: null });
    // A store made by an older build migrates here (0023 sums the stored scores into score groups).
    print('open s (migrations included)', ((performance.now() - opened) / 1000).toFixed(1));
    // The start's database check (quick_check: ~30 CPU-s on the 1M file) runs in the background: measured
    // runs wait for it, or they measure it too.
    for (const until = Date.now() + 600_000; !loupe.ctx.health?.lastCheck && Date.now() < until; ) await new Promise((r) => setTimeout(r, 250));
    print('start-up quick_check s (waited for)', loupe.ctx.health?.lastCheck ? (loupe.ctx.health.lastCheck.ms / 1000).toFixed(1) : 'not done in 600 s');
    const post = async (p: string, body: unknown) => {
      const res = await fetch(`${loupe.url}${p}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const json = (await res.json()) as Record<string, unknown>;
      if (!res.ok) throw new Error(`${p}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    const cpuMs = (c: NodeJS.CpuUsage) => (c.user + c.system) / 1000;
    const timed = async (label: string, fn: () => Promise<unknown>, target: string) => {
      await fn();
      const ms: number[] = [];
      const cpu: number[] = [];
      for (let i = 0; i < CALLS; i++) {
        const c = process.cpuUsage();
        const t = performance.now();
        await fn();
        ms.push(performance.now() - t);
        cpu.push(cpuMs(process.cpuUsage(c)));
      }
      print(`${label}: p50 / p95 ms, CPU ms p50`, `${pct(ms, 0.5).toFixed(1)} / ${pct(ms, 0.95).toFixed(1)}, ${pct(cpu, 0.5).toFixed(1)}`, target);
    };
    /** A scorer run (or signature pass) with its wall and CPU seconds. */
    const run = async (label: string, p: string, body: unknown) => {
      const c = process.cpuUsage();
      const t = performance.now();
      // Started without waiting and polled: a 1M run on a loaded machine outlasts fetch's 300 s header timeout.
      const started = await post(p, { ...(body as object), wait: false });
      let r = started;
      while (r.status === 'running') {
        await new Promise((ok) => setTimeout(ok, 1000));
        const runs = (await post('/app/scorers/runs', { project_id: PROJECT })).runs as Record<string, unknown>[];
        r = runs.find((x) => x.run_id === started.run_id) ?? r;
      }
      const s = (performance.now() - t) / 1000;
      const cpu = cpuMs(process.cpuUsage(c)) / 1000;
      const n = Number(r.turns);
      print(`${label}: turns / scored / skipped`, `${n} / ${String(r.scored)} / ${String(r.skipped)}`);
      print(`${label}: wall s, turns/s`, `${s.toFixed(1)}, ${String(r.turns_per_second)}`);
      print(`${label}: CPU s, turns per CPU s`, `${cpu.toFixed(1)}, ${Math.round(n / cpu)}`);
      return r;
    };
    try {
      print('load average before', loadAverage());
      const viewsOnly = process.env.EVALS_BENCH_ONLY === 'views';
      const scorerId = `bench-tool-error-${Date.now()}`;
      if (!viewsOnly) {
        await post('/app/scorers/save', { project_id: PROJECT, scorer: { scorer_id: scorerId, name: 'bench-tool-error', rule: { kind: 'tool_error' } } });
        await run('rule scorer (target ≥ 2,000 turns/s)', '/app/scorers/run', { project_id: PROJECT, scorer_id: scorerId, wait: true });
        print('load average', loadAverage());
      }
      // The views first (a long signature pass at 1M may be stopped), then again with the signatures stored.
      const views = async (when: string) => {
        const clusters = (await post('/app/clusters', { project_id: PROJECT })).clusters as unknown[];
        print(`clusters (${when})`, clusters.length);
        await timed(`POST /app/clusters (${when})`, () => post('/app/clusters', { project_id: PROJECT }), '≤ 300 ms');
        await timed(
          `conversations list, score filter (tool_error failed; ${when})`,
          () => post('/app/conversations', { project_id: PROJECT, filters: { scores: [{ name: 'bench-tool-error', max: 0 }] }, limit: 50 }),
          '≤ 100 ms',
        );
        print('load average', loadAverage());
      };
      if (viewsOnly) {
        await views('as stored');
        return;
      }
      await views('rule scores only');
      await run('rule scorer re-run (all scored)', '/app/scorers/run', { project_id: PROJECT, scorer_id: scorerId, wait: true });
      await run('signature pass', '/app/clusters/compute', { project_id: PROJECT, wait: true });
      await views('with signatures');
      print('load average after', loadAverage());
    } finally {
      await loupe.close();
    }
  },
};

export default section;
