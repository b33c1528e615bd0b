/**
 * MCP tools (issue 17) on the shared ≥1M-span store: each read tool called through the real server
 * (`/mcp` on a started Loupe, the SDK's own Client on 2026-07-28), so a figure is what a coding
 * agent waits for: HTTP, the per-request server instance, the operations, the answer's fitting.
 * Targets: search_conversations and get_conversation p50 ≤ 100 ms, get_trace first page ≤ 100 ms,
 * query_spans grouped by agent (answered from the rollups) ≤ 1 s.
 *
 * `npm run bench -- mcp`. MCP_BENCH_DATA_DIR measures another store (a smaller one on a loaded
 * machine; its project must be bench/genai, as bench/lib/generate.ts writes it).
 */
import Database from 'better-sqlite3';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { BenchSection } from '../lib/section.js';
import { ensureBenchStore } from '../lib/bench-store.js';
import { loadAverage } from '../lib/timing.js';
import { RARE_WORD } from '../lib/generate.js';
import { DB_FILE_NAME } from '../../src/main/store/index.js';
import { startLoupe } from '../../src/main/serve.js';
import { percentileOf as pct } from '../../src/shared/stats.js';

const PROJECT = 'bench/genai';
const CALLS = Number(process.env.MCP_BENCH_CALLS ?? 60);

/** Random conversations, traces and failing spans of the store (seeded, so runs compare). */
function sample(dataDir: string, n: number) {
  const db = new Database(path.join(dataDir, DB_FILE_NAME), { readonly: true });
  try {
    const turns = db.prepare('SELECT conversation_id, trace_id FROM conversation_turns WHERE project_id = ? LIMIT 200000').all(PROJECT) as { conversation_id: string; trace_id: string }[];
    if (!turns.length) throw new Error(`the store has no turns of project ${PROJECT}`);
    let seed = 7;
    const rand = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    const pick = () => turns[Math.floor(rand() * turns.length)]!;
    return { conversations: Array.from({ length: n }, () => pick().conversation_id), traces: Array.from({ length: n }, () => pick().trace_id) };
  } finally {
    db.close();
  }
}

const section: BenchSection = {
  title: 'MCP tools through /mcp on the 1M-span store',
  async run({ workDir, print }) {
    const { dataDir, spans } = process.env.MCP_BENCH_DATA_DIR ? { dataDir: process.env.MCP_BENCH_DATA_DIR, spans: Number.NaN } : await ensureBenchStore(workDir);
    print('store spans', Number.isNaN(spans) ? `(${dataDir})` : spans);
    const ids = sample(dataDir, CALLS);
    const loupe = await startLoupe({ dataDir, port: 0, rendererDir: null });
    const c = new Client({ name: 'bench', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await c.connect(new StreamableHTTPClientTransport(new URL(`${loupe.url}/mcp`)));
    try {
      print('load average before', loadAverage());
      const time = async (name: string, args: (i: number) => Record<string, unknown>, n: number, target?: string) => {
        for (let i = 0; i < Math.min(3, n); i++) await c.callTool({ name, arguments: args(i) }); // warm caches
        const ms: number[] = [];
        let bytes = 0;
        for (let i = 0; i < n; i++) {
          const t = performance.now();
          const r = await c.callTool({ name, arguments: args(i) });
          ms.push(performance.now() - t);
          if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content)}`);
          bytes += JSON.stringify(r).length;
        }
        print(`${name}: p50 / p95 ms`, `${pct(ms, 0.5).toFixed(1)} / ${pct(ms, 0.95).toFixed(1)}`, target);
        print(`${name}: answer bytes (mean)`, Math.round(bytes / n));
      };
      await time('search_conversations', () => ({ project: PROJECT }), CALLS, 'p50 ≤ 100 ms');
      await time('search_conversations', () => ({ project: PROJECT, query: RARE_WORD }), CALLS, 'p50 ≤ 100 ms');
      await time('get_conversation', (i) => ({ project: PROJECT, conversation_id: ids.conversations[i] }), CALLS, 'p50 ≤ 100 ms');
      await time('get_trace', (i) => ({ project: PROJECT, trace_id: ids.traces[i] }), CALLS, 'first page p50 ≤ 100 ms');
      await time('query_spans', () => ({ project: PROJECT, group_by: ['agent_name'] }), Math.min(CALLS, 10), '≤ 1 s (rollups)');
      await time('list_agents', () => ({ project: PROJECT }), Math.min(CALLS, 20));
      await time('recent_errors', () => ({ project: PROJECT }), Math.min(CALLS, 10));
      await time('compare', (i) => ({ project: PROJECT, a: ids.traces[i], b: ids.traces[(i + 1) % CALLS] }), Math.min(CALLS, 20));
      const tree = await c.callTool({ name: 'get_trace', arguments: { project: PROJECT, trace_id: ids.traces[0] } });
      const span = (tree.structuredContent as { spans: { span_id: string }[] }).spans[0]!.span_id;
      await time('get_span', () => ({ project: PROJECT, trace_id: ids.traces[0], span_id: span }), Math.min(CALLS, 20));
      print('load average after', loadAverage());
    } finally {
      await c.close();
      await loupe.close();
    }
  },
};

export default section;
