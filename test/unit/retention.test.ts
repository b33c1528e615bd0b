/**
 * Retention (spans.delete, issue 8 item 5) on real SQLite files: after deleting by trace ids, by age,
 * by project and down to a size cap, every summary equals a full recomputation from the spans left
 * (the open-time backfill rebuilding them all on a copy of the file), and incremental vacuum gives
 * the freed pages back to the disk.
 */
import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { copyFileSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dispatch } from '../../src/main/transport/dispatch.js';
import { EventBus } from '../../src/main/service/events.js';
import type { ServiceContext } from '../../src/main/service/context.js';
import { openStores } from '../../src/main/store/index.js';
import { importFile } from '../../src/main/service/ingest/index.js';
import { ServiceError } from '../../src/shared/errors.js';
import { generateJsonl } from '../../bench/lib/generate.js';
import { chatAttributes, importRequest, traceBuilder } from '../helpers/otlp.js';
import { tempStores, type TestStores } from '../helpers/temp-store.js';

const freshStore = tempStores('loupe-retention-');
const P = 'bench/genai';
const Q = 'other/project';

/** Table by table, so a failure names the table and the first differing row. */
function expectSame(a: ReturnType<typeof summaries>, b: ReturnType<typeof summaries>): void {
  for (const k of Object.keys(a) as (keyof typeof a)[]) {
    const i = a[k].findIndex((x, j) => JSON.stringify(x, (_k, v) => (typeof v === 'bigint' ? String(v) : v)) !== JSON.stringify(b[k][j], (_k, v) => (typeof v === 'bigint' ? String(v) : v)));
    expect(a[k].length, k).toBe(b[k].length);
    expect(a[k][i], `${k} row ${i}`).toEqual(b[k][i]);
  }
}

function summaries(file: string) {
  const db = new Database(file, { readonly: true });
  db.defaultSafeIntegers(true);
  try {
    const q = (sql: string) => db.prepare(sql).all().map((r) => Object.fromEntries(Object.entries(r as object).map(([k, v]) => [k, typeof v === 'number' ? Number(v.toPrecision(12)) : v])));
    return {
      counted: q('SELECT project_id, trace_id, span_id, counted FROM spans ORDER BY 1, 2, 3'),
      traces: q('SELECT * FROM trace_summaries ORDER BY project_id, trace_id'),
      turns: q('SELECT * FROM conversation_turns ORDER BY project_id, conversation_id, trace_id'),
      conversations: q('SELECT * FROM conversation_summaries ORDER BY project_id, conversation_id, kind').map((r): Record<string, unknown> => ({ ...r, id: 0 })),
      agentTraces: q('SELECT * FROM agent_trace_stats ORDER BY project_id, trace_id, agent_name'),
      agents: q('SELECT * FROM agent_summaries ORDER BY project_id, agent_name'),
    };
  } finally {
    db.close();
  }
}

/** Every summary rebuilt from the stored spans alone, on a copy of the file. */
async function recomputed(store: TestStores) {
  const copy = path.join(mkdtempSync(path.join(tmpdir(), 'loupe-recompute-')), 'loupe.db');
  const db = new Database(store.file);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  copyFileSync(store.file, copy);
  const raw = new Database(copy);
  raw.prepare("INSERT INTO summary_backfill (name) VALUES ('conversations')").run();
  raw.close();
  await (await openStores(copy, { readers: 0 })).close();
  return summaries(copy);
}

async function loaded(): Promise<{ store: TestStores; ctx: ServiceContext; events: { project_id: string | null; tables: string[] }[] }> {
  const store = await freshStore();
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'loupe-retention-data-')), 'gen.jsonl');
  await generateJsonl(file, { conversations: 12, agents: 3, minSpans: 600, seed: 21 });
  await importFile(store.traces, file);
  for (let i = 0; i < 3; i++) {
    const t = traceBuilder({ seed: `q-${i}`, start: '2026-12-01T10:00:00Z' });
    const root = t.span('invoke_agent helper', { attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'helper', 'gen_ai.conversation.id': `q-conv-${i % 2}`, 'gen_ai.usage.input_tokens': 10 } });
    t.span('chat m', { parent: root, attributes: chatAttributes({ model: 'gpt-4o-mini', input: [{ role: 'user', content: 'hi' }], output: [{ role: 'assistant', content: 'yo' }], inputTokens: 10, outputTokens: 2 }) });
    await importRequest(store, Q, t.request());
  }
  const ctx: ServiceContext = { traces: store.traces, app: store.app, events: new EventBus(), dataDir: tmpdir(), apiKey: 'test' };
  const events: { project_id: string | null; tables: string[] }[] = [];
  ctx.events.on((e) => void (e.type === 'data.changed' && events.push(e)));
  return { store, ctx, events };
}

/** system.projects (from project_summaries) equals a count over the spans. */
async function expectProjectsExact(store: TestStores, ctx: ServiceContext): Promise<void> {
  const db = new Database(store.file, { readonly: true });
  const counted = db.prepare('SELECT project_id, COUNT(*) AS span_count FROM spans GROUP BY project_id ORDER BY project_id').all();
  db.close();
  const listed = ((await dispatch('system.projects', {}, ctx)) as { projects: { project_id: string; span_count: number }[] }).projects;
  expect(listed.map((p) => ({ project_id: p.project_id, span_count: p.span_count })).sort((a, b) => (a.project_id < b.project_id ? -1 : 1))).toEqual(counted);
}

const del = (ctx: ServiceContext, body: unknown): Promise<any> => dispatch('spans.delete', body, ctx);

describe('spans.delete', () => {
  it('keeps every summary equal to a full recomputation, by trace ids, by age, by project', async () => {
    const { store, ctx, events } = await loaded();
    const before = summaries(store.file);
    await expectProjectsExact(store, ctx);
    // Two turns of one conversation and one of another: conversations lose turns, agents lose spans.
    const turns = before.turns.filter((t) => t.project_id === P);
    const victims = [turns[0]!.trace_id, turns[1]!.trace_id, turns.at(-1)!.trace_id] as string[];
    const r1 = await del(ctx, { project_id: P, trace_ids: [...victims, 'ffffffffffffffffffffffffffffffff'] });
    expect(r1).toMatchObject({ deleted_traces: 3, projects: [P] });
    expect(r1.deleted_spans).toBe(before.counted.filter((s) => victims.includes(s.trace_id as string)).length);
    expect(events).toEqual([{ type: 'data.changed', project_id: P, tables: ['spans'] }]);
    expectSame(summaries(store.file), await recomputed(store));
    await expectProjectsExact(store, ctx);

    // By age: traces whose last activity is before the middle of the data.
    const ends = summaries(store.file).traces.filter((t) => t.project_id === P).map((t) => t.last_end_ns as bigint).sort((a, b) => (a < b ? -1 : 1));
    const cut = ends[Math.floor(ends.length / 2)]!;
    const r2 = await del(ctx, { project_id: P, older_than: new Date(Number(cut / 1_000_000n)).toISOString() });
    expect(r2.deleted_traces).toBeGreaterThan(10);
    const left = summaries(store.file);
    expect(left.traces.filter((t) => t.project_id === P).every((t) => (t.last_end_ns as bigint) >= cut - 1_000_000n)).toBe(true);
    expect(left.traces.filter((t) => t.project_id === Q)).toHaveLength(3);
    expectSame(left, await recomputed(store));

    // A whole project: nothing of it is left in any summary; the other project is untouched.
    const qBefore = (s: ReturnType<typeof summaries>) => Object.values(s).flat().filter((r) => r.project_id === P);
    const keep = qBefore(left);
    const r3 = await del(ctx, { project_id: Q });
    expect(r3).toMatchObject({ deleted_traces: 3, deleted_spans: 6, projects: [Q] });
    const after = summaries(store.file);
    expect(Object.values(after).flat().filter((r) => r.project_id === Q)).toEqual([]);
    expect(qBefore(after)).toEqual(keep);
    expectSame(after, await recomputed(store));
    await expectProjectsExact(store, ctx);
    // Filter choices follow: the models of the spans left.
    const models = new Database(store.file, { readonly: true }).prepare('SELECT DISTINCT request_model FROM spans WHERE project_id = ? AND request_model IS NOT NULL ORDER BY 1').pluck().all(P);
    expect(((await dispatch('conversations.facets', { project_id: P }, ctx)) as { request_models: string[] }).request_models).toEqual(models);
    expect(await dispatch('conversations.facets', { project_id: Q }, ctx)).toEqual({ agent_names: [], request_models: [] });
    const storage = await dispatch('system.storage', {}, ctx);
    expect(storage).toMatchObject({ projects: [{ project_id: P, span_count: after.counted.length }] });
  }, 60_000);

  it('deletes the oldest traces down to a size cap and gives the pages back to the disk', async () => {
    const { store, ctx } = await loaded();
    const size = () => {
      const db = new Database(store.file);
      db.pragma('wal_checkpoint(TRUNCATE)');
      db.close();
      return statSync(store.file).size;
    };
    const full = size();
    // The same store emptied (every table and index keeps a page or more, a dictionary stays): the cap
    // asks for half of what the spans add on top of that.
    const twin = await loaded();
    await del(twin.ctx, { project_id: P });
    await del(twin.ctx, { project_id: Q });
    const emptyBytes = (() => {
      const db = new Database(twin.store.file);
      db.pragma('wal_checkpoint(TRUNCATE)');
      db.close();
      return statSync(twin.store.file).size;
    })();
    expect(full - emptyBytes).toBeGreaterThan(256 * 1024);
    const cap = Math.floor(emptyBytes + (full - emptyBytes) / 2);
    const ends = new Map(summaries(store.file).traces.map((t) => [t.trace_id, t.last_end_ns as bigint]));
    const r = await del(ctx, { max_bytes: cap });
    expect(r.deleted_traces).toBeGreaterThan(0);
    expect(size()).toBeLessThanOrEqual(cap + 64 * 1024);
    // Not everything: the cap is met with traces left (pages are 16 KiB, so "how much" is coarse here).
    expect(summaries(store.file).traces.length).toBeGreaterThan(0);
    const left = summaries(store.file);
    // Oldest first: every trace left ends no earlier than every trace deleted.
    const kept = new Set(left.traces.map((t) => t.trace_id));
    const deleted = [...ends].filter(([id]) => !kept.has(id)).map(([, e]) => e);
    expect(deleted).toHaveLength(r.deleted_traces);
    const newestDeleted = deleted.reduce((a, b) => (a > b ? a : b));
    expect(left.traces.every((t) => (t.last_end_ns as bigint) >= newestDeleted)).toBe(true);
    expectSame(left, await recomputed(store));
    expect(left.traces.length).toBeGreaterThan(0);
  }, 60_000);

  it('refuses a request that names no selection or mixes them (422)', async () => {
    const { ctx } = await loaded();
    for (const body of [{}, { max_bytes: 10, project_id: P }, { trace_ids: ['a'] }, { older_than: 'x' }]) {
      await expect(del(ctx, body)).rejects.toSatisfy((e: unknown) => e instanceof ServiceError && e.status === 422);
    }
  }, 60_000);
});
