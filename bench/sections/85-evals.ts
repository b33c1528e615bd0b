/**
 * Evals (issue 20) on the shared ≥1M-span store, through a started Loupe's HTTP API: a rule scorer
 * over every turn (`POST /app/scorers/run`, its `turns_per_second`; target ≥ 2,000), the failure
 * signature pass, the Clusters view (`POST /app/clusters` p50; ≤ 300 ms) and a score filter on the
 * conversations list (p50; ≤ 100 ms).
 *
 * `npm run bench -- evals`. EVALS_BENCH_SPANS=20000 measures a small generated store of its own
 * instead (a loaded machine); the 1M store is shared with the other sections. Scores are written
 * into the store measured (a re-run skips turns already scored: rerun on a fresh store to compare).
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
    if (small) {
      const { file } = await ensureBenchFile(workDir, small);
      dataDir = path.join(workDir, `evals-${small}`);
      print('store spans', importInto(file, dataDir).spans);
    } else {
      const s = await ensureBenchStore(workDir);
      dataDir = s.dataDir;
      print('store spans', s.spans);
    }
    const loupe = await startLoupe({ dataDir, port: 0, rendererDir: null });
    const post = async (p: string, body: unknown) => {
      const res = await fetch(`${loupe.url}${p}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const json = (await res.json()) as Record<string, unknown>;
      if (!res.ok) throw new Error(`${p}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    const timed = async (label: string, fn: () => Promise<unknown>, target: string) => {
      await fn();
      const ms: number[] = [];
      for (let i = 0; i < CALLS; i++) {
        const t = performance.now();
        await fn();
        ms.push(performance.now() - t);
      }
      print(`${label}: p50 / p95 ms`, `${pct(ms, 0.5).toFixed(1)} / ${pct(ms, 0.95).toFixed(1)}`, target);
    };
    try {
      print('load average before', loadAverage());
      await post('/app/scorers/save', { project_id: PROJECT, scorer: { scorer_id: 'bench-tool-error', rule: { kind: 'tool_error' } } });
      let t = performance.now();
      const run = await post('/app/scorers/run', { project_id: PROJECT, scorer_id: 'bench-tool-error', wait: true });
      print('rule scorer run: turns / scored / s', `${String(run.turns)} / ${String(run.scored)} / ${((performance.now() - t) / 1000).toFixed(1)}`);
      print('rule scorer: turns per second', String(run.turns_per_second), '≥ 2,000');
      t = performance.now();
      const sig = await post('/app/clusters/compute', { project_id: PROJECT, wait: true });
      print('signature pass: turns / s', `${String(sig.turns)} / ${((performance.now() - t) / 1000).toFixed(1)} (${String(sig.turns_per_second)} turns/s)`);
      const clusters = (await post('/app/clusters', { project_id: PROJECT })).clusters as unknown[];
      print('clusters', clusters.length);
      await timed('POST /app/clusters', () => post('/app/clusters', { project_id: PROJECT }), '≤ 300 ms');
      await timed(
        'conversations list, score filter (tool_error failed)',
        () => post('/app/conversations', { project_id: PROJECT, filters: { scores: [{ name: 'bench-tool-error', max: 0 }] }, limit: 50 }),
        '≤ 100 ms',
      );
      print('load average after', loadAverage());
    } finally {
      await loupe.close();
    }
  },
};

export default section;
