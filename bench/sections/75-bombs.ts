/**
 * Decode bombs (issue 23.2: "each bomb shape answered 4xx in ≤ 1 s with RSS bounded while valid
 * bodies beside it are answered"). A real `loupe serve`; for each bomb of test/helpers/bombs.ts (the
 * bodies the fault suite refuses): the time to its 413, the server's CPU time for it, the server's
 * peak memory over its RSS before (the high-water mark reset through /proc/PID/clear_refs), and how
 * long a valid 650 KB body sent right behind it (same ingest worker) waited for its answer.
 * Wall times depend on the load of this shared machine (printed beside them); CPU time less so.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnServe } from '../../test/helpers/spawn-loupe.js';
import { BOMBS, validBody } from '../../test/helpers/bombs.js';
import type { BenchSection } from '../lib/section.js';

const statusMb = (pid: number, field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;
/** utime + stime of the process, ms (clock ticks of 10 ms). */
const cpuMs = (pid: number) => {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
};

const section: BenchSection = {
  title: 'Decode bombs: time to the 413, memory, a valid body behind it (issue 23.2)',
  async run({ print }) {
    if (!fs.existsSync('/proc/self/status')) {
      print('decode bombs', 'not measured: no /proc here (CPU and peak memory are read from it)');
      return;
    }
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-bench-bombs-'));
    const s = await spawnServe(['--data-dir', dataDir, '--port', '0']);
    const pid = s.child.pid!;
    const post = async (body: Buffer, headers: Record<string, string>) => {
      const t = performance.now();
      const res = await fetch(`${s.url}/v1/traces`, { method: 'POST', headers, body });
      await res.arrayBuffer();
      return { status: res.status, ms: performance.now() - t };
    };
    try {
      const warm = validBody(650 * 1024, 3);
      await post(warm, { 'content-type': 'application/json', 'x-project-id': 'bench/warm' });
      let worst = 0;
      for (const make of BOMBS) {
        const bomb = make();
        const valid = validBody(650 * 1024, BOMBS.indexOf(make) + 10);
        fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
        const before = statusMb(pid, 'VmRSS');
        const cpu0 = cpuMs(pid);
        const refused = post(bomb.body, { 'content-type': bomb.contentType, ...(bomb.gzip ? { 'content-encoding': 'gzip' } : {}), 'x-project-id': 'bench/bomb' });
        const behind = post(valid, { 'content-type': 'application/json', 'x-project-id': 'bench/valid' });
        const [r, v] = await Promise.all([refused, behind]);
        const grew = statusMb(pid, 'VmHWM') - before;
        worst = Math.max(worst, r.ms);
        print(`${bomb.name}: status, ms to answer`, `${r.status} in ${r.ms.toFixed(0)}`, '413 in ≤ 1000');
        print(`${bomb.name}: server CPU for both (ms), peak MiB`, `${cpuMs(pid) - cpu0}, +${grew.toFixed(0)}`, 'peak < +256');
        print(`${bomb.name}: valid 650 KB behind it`, `${v.status} in ${v.ms.toFixed(0)} ms`);
      }
      print('slowest 413 (ms)', worst.toFixed(0), '≤ 1000');
      print('load average while measured', os.loadavg().map((x) => x.toFixed(1)).join(' '));
    } finally {
      s.child.kill('SIGTERM');
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  },
};

export default section;
