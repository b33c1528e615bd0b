/**
 * 'chat.tracePage' (issue 12: a 20,000-span trace's Chat tab shows its first message at once): pages
 * concatenated are exactly chat.trace's messages, for the demo's multi-agent turns, every sample
 * emitter and a generated 5,000-span trace; the header equals chat.trace's; the first page of the big
 * trace reads the heavy fields of only a few spans (counted on the store's lazy spans).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { importBuffer } from '../../src/main/service/ingest/buffer.js';
import { loadDemo } from '../../src/main/demo/load.js';
import { call, tempContext } from './chat-fixture.js';
import { repoRoot, samplesDir } from '../helpers/paths.js';
import { bigTrace } from '../helpers/big-trace.js';
import { walkMessages } from '../../src/main/domain/chat/walk.js';
import { openDatabase } from '../../src/main/store/sqlite/open.js';
import { createChatRepo } from '../../src/main/store/sqlite/chat.js';
import { buildTree } from '../../src/main/domain/chat/tree.js';

const ctx = await tempContext();
afterAll(() => ctx.stores.close());

type Page = { turn: Record<string, unknown>; messages: unknown[]; offset: number; has_more: boolean; total_messages: number | null };

async function allPages(project_id: string, trace_id: string, limit: number): Promise<{ messages: unknown[]; pages: Page[] }> {
  const pages: Page[] = [];
  for (let offset = 0; ; offset += limit) {
    const p = (await call('chat.tracePage', { project_id, trace_id, offset, limit, include_feedback: true }, ctx)) as Page;
    pages.push(p);
    if (!p.has_more) break;
    if (pages.length > 10_000) throw new Error('no end');
  }
  return { messages: pages.flatMap((p) => p.messages), pages };
}

async function expectSameAsTrace(project_id: string, trace_id: string, limits: number[]) {
  const whole = (await call('chat.trace', { project_id, trace_id, include_feedback: true }, ctx)) as { messages: unknown[] } & Record<string, unknown>;
  const { messages: _m, ...header } = whole;
  for (const limit of limits) {
    const { messages, pages } = await allPages(project_id, trace_id, limit);
    expect(messages).toEqual(whole.messages);
    for (const p of pages) expect(p.turn).toEqual(header);
    expect(pages[pages.length - 1]!.total_messages).toBe(whole.messages.length);
  }
  return whole.messages.length;
}

describe('chat.tracePage', () => {
  it('pages of the demo turns (agents, handoffs, tools, compaction, errors) concatenate to chat.trace', async () => {
    await loadDemo(ctx, { projectId: 'local/demo' });
    const traces = (await call('chat.conversation', { project_id: 'local/demo', conversation_id: 'conv-order-a1187', limit: 50 }, ctx)) as { turns: { trace_id: string }[] };
    expect(traces.turns.length).toBeGreaterThan(3);
    for (const t of traces.turns) await expectSameAsTrace('local/demo', t.trace_id, [1, 2, 3, 100]);
  });

  it('every sample emitter pages the same as chat.trace', async () => {
    for (const f of readdirSync(samplesDir).filter((x) => x.endsWith('.json'))) {
      const project = `page/${f}`;
      await importBuffer(ctx.traces, readFileSync(path.join(samplesDir, f)), { contentType: 'application/json', projectId: project });
      const ids = [...new Set([...readFileSync(path.join(samplesDir, f), 'utf8').matchAll(/"traceId":"([0-9a-fA-F]{32})"/g)].map((m) => m[1]!.toLowerCase()))];
      for (const id of ids) expect(await expectSameAsTrace(project, id, [1, 2, 50])).toBeGreaterThan(0);
    }
  });

  it('every trace of the emitter corpus (real framework output) pages the same as chat.trace', async () => {
    const root = path.join(repoRoot, 'test/fixtures/emitters');
    let traces = 0;
    for (const name of readdirSync(root).filter((n) => existsSync(path.join(root, n, 'trace.json')))) {
      const project = `page/corpus/${name}`;
      const body = readFileSync(path.join(root, name, 'trace.json'));
      await importBuffer(ctx.traces, body, { contentType: 'application/json', projectId: project });
      const ids = [...new Set([...body.toString('utf8').matchAll(/"traceId"\s*:\s*"([0-9a-fA-F]{32})"/g)].map((m) => m[1]!.toLowerCase()))];
      for (const id of ids) {
        await expectSameAsTrace(project, id, [1, 3]);
        traces++;
      }
    }
    expect(traces).toBeGreaterThanOrEqual(15);
  });

  it('a 5,000-span trace: the first page comes from a bounded walk, and all pages equal chat.trace', async () => {
    const TRACE = 'b'.repeat(32);
    await importBuffer(ctx.traces, Buffer.from(JSON.stringify(bigTrace(TRACE, 5_000))), { contentType: 'application/json', projectId: 'page/big' });
    // The SQLite adapter's lazy spans (what its read workers walk) read heavy fields on first touch:
    // count the spans a bounded walk touches, on a read-only connection like a read worker's.
    const db = openDatabase(ctx.stores.file, { readonly: true });
    const chat = createChatRepo(db);
    const spans = chat.traceSpansLazy('page/big', TRACE);
    expect(spans.length).toBeGreaterThanOrEqual(5_000); // big-trace.ts always writes its 200 agent spans
    const hints = chat.traceMessageHints('page/big', TRACE);
    expect(hints).toEqual({ userInput: false, toolPartSpans: new Set() });
    const bounded = walkMessages(spans, buildTree(spans), { limit: 51, noUserInput: true, toolPartSpans: hints.toolPartSpans });
    expect(bounded.complete).toBe(false);
    const touched = spans.filter((x) => (x as unknown as { heavyLoaded: boolean }).heavyLoaded).length;
    db.close();
    expect(touched).toBeGreaterThan(0);
    expect(touched).toBeLessThan(200);
    let t = performance.now();
    const first = (await call('chat.tracePage', { project_id: 'page/big', trace_id: TRACE, limit: 50, include_feedback: true }, ctx)) as Page;
    const firstMs = performance.now() - t;
    expect(first.messages).toHaveLength(50);
    expect(first.has_more).toBe(true);
    expect(first.total_messages).toBeNull();
    t = performance.now();
    const whole = (await call('chat.trace', { project_id: 'page/big', trace_id: TRACE, include_feedback: true }, ctx)) as { messages: unknown[] };
    const wholeMs = performance.now() - t;
    expect(first.messages).toEqual(whole.messages.slice(0, 50));
    console.log(`[chat.tracePage] 5,000 spans: first page of 50 in ${firstMs.toFixed(0)} ms; chat.trace (${whole.messages.length} messages) in ${wholeMs.toFixed(0)} ms`);
    const { messages } = await allPages('page/big', TRACE, 5000);
    expect(messages).toEqual(whole.messages);
  }, 60_000);
});
