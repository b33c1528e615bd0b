/**
 * Page requests on a ClickHouse store that exists already (e.g. a scale bench store kept under
 * LOUPE_BENCH_DIR), timed with the code as it is now and without importing anything — the ClickHouse
 * counterpart of scale-reads.ts. The server is started on the store's folder (a private server, never the
 * system service) and stopped after:
 *
 *   tsx bench/lib/clickhouse-reads.ts <LOUPE_BENCH_DIR>/clickhouse/server <database, e.g. scale_10000000> [runs] [pages | search]
 *
 * `pages` (default): every request a page sends when it opens (ui-requests.ts `uiRequests`), per-id requests
 * rotating over 10 sampled conversations. `search`: the conversations list searched for an id-like word, a
 * common word and a short prefix. Prints per request p50 / p95 wall and p50 CPU (ms), and what the server read
 * for one call (statements, rows, MiB: system.query_log), with the load average. Opening the store runs its
 * migrations: give it a store you may change (a copy if someone else reads it).
 *
 * Also the helpers the scale section shares: `sampleIds` and `serverReads`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadAverage, timeOp } from './timing.js';
import { uiRequests, type UiIds, type UiRequest } from './ui-requests.js';
import { startClickHouse, stopClickHouse } from '../../test/helpers/clickhouse-server.js';
import { ClickHouse, parseStoreUrl } from '../../src/main/store/clickhouse/connection.js';
import { raw, sql, str } from '../../src/main/store/clickhouse/sql.js';
import { openStores } from '../../src/main/store/index.js';
import { EventBus } from '../../src/main/service/events.js';
import type { ServiceContext } from '../../src/main/service/context.js';

const PROJECT = 'bench/genai';

export interface ServerReads {
  statements: number;
  rows: number;
  bytes: number;
  /** The server's CPU for them (query_log ProfileEvents: user + system time), ms. */
  cpuMs: number;
}

/** Conversations and traces to open (from the list itself, spread over its first 200 rows), and an agent. */
export async function sampleIds(ctx: ServiceContext, n: number, project = PROJECT): Promise<UiIds[]> {
  const list = (await ctx.traces.conversations({
    project_id: project, active_after_ns: null, active_before_ns: null, agent_names: null, models: null, status: 'all', search: null,
    sort: [{ field: 'last_activity', direction: 'desc' }, { field: 'conversation_id', direction: 'asc' }], limit: 200, offset: 0, after: null,
  })).conversations;
  const out: UiIds[] = [];
  for (let i = 0; i < list.length && out.length < n; i += Math.max(1, Math.floor(list.length / n))) {
    const c = list[i]!;
    const turns = await ctx.traces.conversationTurns({ project_id: project, conversation_id: c.conversation_id, limit: 1, offset: 0 });
    const trace = turns.trace_ids[0];
    if (trace) out.push({ project, conversation: c.conversation_id, trace, agent: c.agent_names[0] ?? 'agent-00' });
  }
  if (!out.length) throw new Error(`no conversations of ${project} in the ClickHouse store`);
  return out;
}

/**
 * The statements one call sends and the rows and bytes they read on the server (system.query_log): the
 * call runs alone, a second after a mark (the log's times are whole seconds), and the log is flushed after.
 */
export async function serverReads(url: string, call: () => Promise<unknown>): Promise<ServerReads> {
  const ch = await ClickHouse.connect(parseStoreUrl(url));
  try {
    const t = (await ch.rows<{ t: string }>(raw('SELECT toString(now()) AS t')))[0]!.t;
    await new Promise((r) => setTimeout(r, 1100));
    await call();
    await ch.command(raw('SYSTEM FLUSH LOGS'));
    const [r] = await ch.rows<{ n: string; rows: string; bytes: string; cpu: string }>(
      sql`SELECT count() AS n, sum(read_rows) AS rows, sum(read_bytes) AS bytes,
            sum(arraySum(arrayMap((k, v) -> if(k IN ('UserTimeMicroseconds', 'SystemTimeMicroseconds'), v, 0), ProfileEvents.Names, ProfileEvents.Values))) AS cpu
          FROM system.query_log
          WHERE type = 2 AND event_time > toDateTime(${str(t)}) AND query NOT LIKE '%system.%' AND query NOT LIKE 'SYSTEM%'`,
    );
    return { statements: Number(r!.n), rows: Number(r!.rows), bytes: Number(r!.bytes), cpuMs: Number(r!.cpu) / 1000 };
  } finally {
    await ch.close();
  }
}

function searches(ids: UiIds): UiRequest[] {
  const list = uiRequests(ids).find((r) => r.name === 'conversations list, search')!;
  return ['A-1187', 'warehouse', 'A-'].map((word) => ({ ...list, name: `conversations list, search '${word}'`, input: { ...list.input, search: word } }));
}

async function main(): Promise<void> {
  const [serverDir, database, runsArg, mode] = process.argv.slice(2);
  if (!serverDir || !database) throw new Error('usage: tsx bench/lib/clickhouse-reads.ts <server folder> <database> [runs] [pages | search]');
  const runs = Number(runsArg ?? 5);
  const server = await startClickHouse({ dir: path.resolve(serverDir), zstdLevel: 1 });
  const url = `clickhouse://default@127.0.0.1:${server.httpPort}/${database}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-ch-reads-'));
  try {
    const stores = await openStores(dataDir, { traceStore: url });
    const ctx: ServiceContext = { traces: stores.traces, app: stores.app, events: new EventBus(), dataDir, apiKey: 'bench' };
    try {
      console.log(`load average (1, 5, 15 min) before: ${loadAverage()}`);
      const ids = await sampleIds(ctx, 10);
      const reads = mode === 'search' ? searches(ids[0]!) : uiRequests(ids[0]!);
      for (const r of reads) {
        try {
          const perId = ['chat.conversation', 'chat.trace', 'traces.timeline'].includes(r.op);
          const ms: number[] = [];
          const cpu: number[] = [];
          for (let i = 0; i < runs; i++) {
            const input = perId ? uiRequests(ids[i % ids.length]!).find((x) => x.name === r.name)!.input : r.input;
            const t = await timeOp(ctx, r.op, input, 1);
            ms.push(t.p50);
            cpu.push(t.cpuP50);
          }
          const reads = await serverReads(url, () => timeOp(ctx, r.op, r.input, 0));
          const mid = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
          const p95 = [...ms].sort((a, b) => a - b)[Math.min(ms.length - 1, Math.ceil(ms.length * 0.95) - 1)]!;
          console.log(`${r.page}: ${r.name}: p50 ${mid(ms).toFixed(1)} · p95 ${p95.toFixed(1)} · CPU p50 ${mid(cpu).toFixed(1)} ms (${runs} runs) · ${reads.statements} stmts, ${(reads.rows / 1000).toFixed(0)}k rows, ${(reads.bytes / 2 ** 20).toFixed(1)} MiB read, server CPU ${reads.cpuMs.toFixed(0)} ms (load ${loadAverage().split(' ')[0]})`);
        } catch (e) {
          console.log(`${r.page}: ${r.name}: FAILED: ${(e instanceof Error ? e.message : String(e)).slice(0, 300)}`);
        }
      }
      console.log(`load average (1, 5, 15 min) after: ${loadAverage()}`);
    } finally {
      await stores.close();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
    await stopClickHouse(server);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
