/** Timing helpers shared by the query sections: one call through `dispatch`, drained as HTTP would send it. */
import os from 'node:os';
import { dispatch } from '../../src/main/transport/dispatch.js';
import type { ServiceContext } from '../../src/main/service/context.js';
import { percentileOf } from '../../src/shared/stats.js';

/** Consumes a result as the transport would (streams line by line); returns the bytes or lines seen. */
export async function drain(result: unknown): Promise<number> {
  if (result && typeof result === 'object' && Symbol.asyncIterator in result) {
    let n = 0;
    for await (const line of result as AsyncIterable<unknown>) n += JSON.stringify(line).length > 0 ? 1 : 0;
    return n;
  }
  return JSON.stringify(result).length;
}

export interface Timed {
  ms: number[];
  cpu: number[];
  p50: number;
  p95: number;
  cpuP50: number;
}

/** Calls `op` `runs` times after one warm-up call; wall and CPU milliseconds of each. */
export async function timeOp(ctx: ServiceContext, op: string, body: unknown, runs: number): Promise<Timed> {
  await drain(await dispatch(op, body, ctx, { trusted: true })); // warm the page cache and statement cache
  const ms: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const c = process.cpuUsage();
    await drain(await dispatch(op, body, ctx, { trusted: true }));
    const u = process.cpuUsage(c);
    ms.push(performance.now() - t);
    cpu.push((u.user + u.system) / 1000);
  }
  return { ms, cpu, p50: percentileOf(ms, 0.5), p95: percentileOf(ms, 0.95), cpuP50: percentileOf(cpu, 0.5) };
}

/** The 1-minute load average, as printed beside figures (the machine is shared). */
export const loadAverage = (): string => os.loadavg().map((x) => x.toFixed(1)).join(' ');
