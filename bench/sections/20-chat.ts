/**
 * Chat view figures (issue 3) on the shared ≥1M-span store (20,000 conversations, 50 agents):
 * conversation chat (first page of up to 50 turns) and trace chat, over many random
 * conversations and traces. Each call goes through `dispatch` (zod parse + handler), as HTTP and
 * IPC call it; only JSON serialization of the answer is left out.
 */
import Database from 'better-sqlite3';
import path from 'node:path';
import { openStores, DB_FILE_NAME } from '../../src/main/store/index.js';
import { EventBus } from '../../src/main/service/events.js';
import { dispatch } from '../../src/main/transport/dispatch.js';
import type { ServiceContext } from '../../src/main/service/context.js';
import type { BenchSection } from '../lib/section.js';
import { ensureBenchStore } from '../lib/bench-store.js';
import { percentileOf as pct } from '../../src/shared/stats.js';

const PROJECT = 'bench/genai';


/** Random conversations and traces of the store, from a seeded generator so runs are comparable. */
function sample(dataDir: string, n: number): { conversations: string[]; traces: string[] } {
  const db = new Database(path.join(dataDir, DB_FILE_NAME), { readonly: true });
  try {
    const rows = db.prepare('SELECT conversation_id, trace_id FROM conversation_turns WHERE project_id = ?').all(PROJECT) as { conversation_id: string; trace_id: string }[];
    if (rows.length === 0) throw new Error(`bench store has no turns of project ${PROJECT}`);
    let seed = 42;
    const rand = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    const pick = () => rows[Math.floor(rand() * rows.length)]!;
    return {
      conversations: [...new Set(Array.from({ length: n }, () => pick().conversation_id))],
      traces: Array.from({ length: n }, () => pick().trace_id),
    };
  } finally {
    db.close();
  }
}

const section: BenchSection = {
  title: 'Chat views: conversation chat and trace chat on the 1M-span store',
  async run({ workDir, print }) {
    // CHAT_BENCH_DATA_DIR: measure another store (a small one while developing this section).
    const { dataDir, spans } = process.env.CHAT_BENCH_DATA_DIR
      ? { dataDir: process.env.CHAT_BENCH_DATA_DIR, spans: Number.NaN }
      : await ensureBenchStore(workDir);
    print('store spans', spans);
    const ids = sample(dataDir, 400);
    const store = await openStores(dataDir);
    const ctx: ServiceContext = { traces: store.traces, app: store.app, events: new EventBus(), dataDir, apiKey: 'bench' };
    const measure = async (name: string, op: 'chat.conversation' | 'chat.trace', bodies: Record<string, unknown>[], target: string) => {
      for (const b of bodies.slice(0, 20)) await dispatch(op, b, ctx, { trusted: true }); // warm statement and page caches
      const ms: number[] = [];
      let messages = 0;
      for (const b of bodies) {
        const t = performance.now();
        const r = (await dispatch(op, b, ctx, { trusted: true })) as { turns?: { messages: unknown[] }[]; messages?: unknown[] };
        ms.push(performance.now() - t);
        messages += r.turns ? r.turns.reduce((n, x) => n + x.messages.length, 0) : r.messages!.length;
      }
      print(`${name}: calls`, bodies.length);
      print(`${name}: messages per call (mean)`, (messages / bodies.length).toFixed(1));
      print(`${name} p50 (ms)`, pct(ms, 0.5).toFixed(2), target);
      print(`${name} p95 (ms)`, pct(ms, 0.95).toFixed(2));
    };
    try {
      const conv = ids.conversations.map((conversation_id) => ({ project_id: PROJECT, conversation_id }));
      await measure('conversation chat (limit 50)', 'chat.conversation', conv, 'p50 ≤ 20 ms');
      await measure('conversation chat + feedback', 'chat.conversation', conv.map((b) => ({ ...b, include_feedback: true })), 'p50 ≤ 20 ms');
      await measure('trace chat', 'chat.trace', ids.traces.map((trace_id) => ({ project_id: PROJECT, trace_id })), 'p50 ≤ 10 ms');
    } finally {
      await store.close();
    }
  },
};
export default section;
