/**
 * The WAL under a soak (issue 23.3/23.6: "WAL ≤ its cap after a 10-minute soak with 4 writers and 4
 * readers"). A real server (SQLite store, port 0) takes OTLP posts of 100 spans of ~2 KB from W
 * writers while R readers list the projects and their counts, for LOUPE_BENCH_WAL_SECONDS (default 600: the soak;
 * 60 is a short run); the WAL file is sampled every 100 ms. Figures: the largest WAL seen, spans
 * acknowledged (and stored), and how long after the last write the WAL is back to 0 bytes.
 * Run: `npm run bench -- wal` (LOUPE_BENCH_WAL_WRITERS / _READERS, default 4 / 4).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startLoupe } from '../../src/main/serve.js';
import { WAL_POLICY } from '../../src/main/store/sqlite/wal.js';
import type { BenchSection } from '../lib/section.js';
import { chatSpan2k, otlpRequest } from '../../test/helpers/otlp.js';

const PER_POST = 100;
/** One post of writer `w`: spans of its own traces and conversations. */
const body = (writer: number, post: number) =>
  JSON.stringify(otlpRequest(Array.from({ length: PER_POST }, (_, i) => chatSpan2k(post * PER_POST + i, writer.toString(16).padStart(4, '0'), `w${writer}`)), { resource: { 'service.name': 'soak' } }));

const section: BenchSection = {
  title: 'WAL size under a soak of writers and readers (issue 23.3)',
  explicitOnly: true,
  async run({ workDir, print }) {
    const seconds = Number(process.env.LOUPE_BENCH_WAL_SECONDS ?? 600);
    const writers = Number(process.env.LOUPE_BENCH_WAL_WRITERS ?? 4);
    const readers = Number(process.env.LOUPE_BENCH_WAL_READERS ?? 4);
    fs.mkdirSync(workDir, { recursive: true });
    const dataDir = fs.mkdtempSync(path.join(workDir, 'wal-soak-'));
    const s = await startLoupe({ dataDir, port: 0, rendererDir: null });
    const wal = path.join(dataDir, 'loupe.db-wal');
    const walSize = () => (fs.existsSync(wal) ? fs.statSync(wal).size : 0);
    let most = 0;
    const sampler = setInterval(() => (most = Math.max(most, walSize())), 100);
    const until = Date.now() + seconds * 1000;
    let acknowledged = 0;
    let refused = 0;
    let reads = 0;
    const write = async (w: number) => {
      for (let p = 0; Date.now() < until; p++) {
        const res = await fetch(`${s.url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(w, p) });
        await res.arrayBuffer();
        if (res.ok) acknowledged += PER_POST;
        else refused++;
      }
    };
    const read = async () => {
      while (Date.now() < until) {
        const res = await fetch(`${s.url}/app/projects`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
        await res.arrayBuffer();
        reads++;
      }
    };
    const load0 = os.loadavg()[0]!;
    try {
      await Promise.all([...Array.from({ length: writers }, (_, w) => write(w)), ...Array.from({ length: readers }, () => read())]);
      const end = Date.now();
      while (walSize() > 0 && Date.now() - end < 20 * WAL_POLICY.idleMs) await new Promise((r) => setTimeout(r, 100));
      const idleMs = Date.now() - end;
      clearInterval(sampler);
      const stored = (await s.ctx.traces.projects()).reduce((n, p) => n + p.span_count, 0);
      print('soak: seconds, writers, readers', `${seconds}, ${writers}, ${readers}`);
      print('spans acknowledged / stored, spans/s', `${acknowledged} / ${stored}, ${Math.round(acknowledged / seconds)}`);
      print('posts refused (503/429), reads', `${refused}, ${reads}`);
      print('largest WAL seen (MiB)', (most / 2 ** 20).toFixed(1), `≤ ${WAL_POLICY.capBytes / 2 ** 20} MiB + one transaction`);
      print('WAL back to 0 bytes after the last write (ms)', walSize() === 0 ? idleMs : `not within ${idleMs}`);
      print('load average before / after', `${load0.toFixed(1)} / ${os.loadavg()[0]!.toFixed(1)}`);
    } finally {
      clearInterval(sampler);
      await s.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  },
};

export default section;
