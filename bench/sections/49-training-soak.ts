/**
 * A long training run as the open client makes it (issue 22.15: "after 55 minutes of training the
 * server held 1.15 GB and a 257 MB WAL"). A real server (in this process: its RSS is the server's,
 * worker threads included; the client side is a few MB) runs the ART loop step after step: G groups
 * × T trajectories of one completion each, `/log` of the rollouts, an RL job on them, wait for its
 * checkpoint. Sampled after every step: RSS, JS heap, external/array buffers, WAL and database
 * size. Figures: first/last/peak of each and the RSS growth per step over the second half (a leak
 * shows as steady growth there; warm-up allocations are in the first half).
 * Run: `npm run bench -- training-soak` (LOUPE_BENCH_SOAK_STEPS default 60, LOUPE_BENCH_SOAK_MODEL
 * default loupe-tiny-bytes, LOUPE_BENCH_SOAK_GROUPS × _TRAJECTORIES default 4 × 4).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startLoupe } from '../../src/main/serve.js';
import { WAL_POLICY } from '../../src/main/store/sqlite/wal.js';
import type { BenchSection } from '../lib/section.js';
import type { WorkerMemory } from '../../src/main/training/protocol.js';
import { ArtClient, choiceDump, groupDump, trajectoryDump } from '../../test/http/art-client.js';

const MiB = 1024 * 1024;
const mib = (b: number) => `${(b / MiB).toFixed(1)} MiB`;

const section: BenchSection = {
  title: 'Training soak: server memory and WAL over many RL steps (issue 22.15)',
  explicitOnly: true,
  async run({ workDir, print }) {
    const steps = Number(process.env.LOUPE_BENCH_SOAK_STEPS ?? 60);
    const base = process.env.LOUPE_BENCH_SOAK_MODEL ?? 'loupe-tiny-bytes';
    const G = Number(process.env.LOUPE_BENCH_SOAK_GROUPS ?? 4);
    const T = Number(process.env.LOUPE_BENCH_SOAK_TRAJECTORIES ?? 4);
    fs.mkdirSync(workDir, { recursive: true });
    const dataDir = fs.mkdtempSync(path.join(workDir, 'training-soak-'));
    const s = await startLoupe({ dataDir, port: 0, rendererDir: null });
    const wal = path.join(dataDir, 'loupe.db-wal');
    const size = (f: string) => (fs.existsSync(f) ? fs.statSync(f).size : 0);
    let walPeak = 0;
    const sampler = setInterval(() => (walPeak = Math.max(walPeak, size(wal))), 100);
    const art = new ArtClient(s.url, s.ctx.apiKey);
    const rows: { rss: number; heap: number; external: number; buffers: number; wal: number; db: number; tf: string }[] = [];
    // TensorFlow.js memory of each trainer worker (tensors it holds; a tensor leak shows here first).
    const engine = s.ctx.training!.engine as unknown as { memory?: () => Promise<WorkerMemory[]> };
    const tfNow = async () => ((await engine.memory?.()) ?? []).map((w) => `${w.role} ${w.tfTensors} tensors ${mib(w.tfBytes)} heap ${mib(w.heapUsed)}`).join('; ');
    const started = Date.now();
    try {
      const m = await art.register({ entity: null, project: 'soak', name: 'agent', base_model: base });
      const words = ['apple', 'bread', 'cloud', 'dream', 'earth', 'flame', 'grape', 'house'];
      for (let step = 0; step < steps; step++) {
        const groups = [];
        for (let g = 0; g < G; g++) {
          const prompt = [{ role: 'system', content: 'Answer with one word.' }, { role: 'user', content: `Say a word like ${words[(step + g) % words.length]}.` }];
          const trajectories = [];
          for (let t = 0; t < T; t++) {
            const r = await art.openai.chat.completions.create({ model: art.inferenceName(m), messages: prompt as never, max_completion_tokens: 6, temperature: 1 });
            const c = choiceDump(r.choices[0]!);
            const text = (r.choices[0]!.message.content ?? '').trim();
            trajectories.push(trajectoryDump([...prompt, c], text.startsWith(words[(step + g) % words.length]!.slice(0, 1)) ? 1 : Math.random() * 0.1));
          }
          groups.push(groupDump(trajectories));
        }
        await art.log(m.id, groups, 'train');
        await art.train(m.id, groups);
        // Old checkpoints deleted as the client does (keeps the latest), so disk stays bounded too.
        await art.deleteCheckpoints(m.id, [await art.getStep(m.id)]);
        const u = process.memoryUsage();
        rows.push({ rss: u.rss, heap: u.heapUsed, external: u.external, buffers: u.arrayBuffers, wal: size(wal), db: size(path.join(dataDir, 'loupe.db')), tf: await tfNow() });
        if (step % 10 === 9) console.log(`  step ${step + 1}: rss ${mib(u.rss)}, heap ${mib(u.heapUsed)}, external ${mib(u.external)}, WAL ${mib(size(wal))}; ${rows.at(-1)!.tf} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
      }
    } finally {
      clearInterval(sampler);
      await s.close();
    }
    const half = rows.slice(Math.floor(rows.length / 2));
    const slope = (k: 'rss' | 'heap' | 'external') => (half.length > 1 ? (half.at(-1)![k] - half[0]![k]) / (half.length - 1) : 0);
    print('steps (RL jobs, each with its rollouts)', `${rows.length} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    print('completions recorded + rollouts logged', `${rows.length * G * T}`);
    print('RSS first step / last / peak', `${mib(rows[0]!.rss)} / ${mib(rows.at(-1)!.rss)} / ${mib(Math.max(...rows.map((r) => r.rss)))}`);
    print('RSS growth per step, second half', `${(slope('rss') / 1024).toFixed(0)} KiB`);
    print('JS heap first / last', `${mib(rows[0]!.heap)} / ${mib(rows.at(-1)!.heap)}`);
    print('external first / last', `${mib(rows[0]!.external)} / ${mib(rows.at(-1)!.external)}`);
    print('trainer workers, first step', rows[0]!.tf);
    print('trainer workers, last step', rows.at(-1)!.tf);
    print('largest WAL seen (sampled 100 ms)', mib(walPeak), `≤ ${mib(WAL_POLICY.capBytes)}`);
    print('database file at the end', mib(rows.at(-1)!.db));
    print('load average (1 min) at the end', os.loadavg()[0]!.toFixed(1));
    fs.rmSync(dataDir, { recursive: true, force: true });
  },
};

export default section;
