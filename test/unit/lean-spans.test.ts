/**
 * Leaner spans rows (migration 0025, issue 19 item 3 bytes per span): empty array and map columns are
 * stored as NULL, and the spans of one agent are counted from the agent's summary row instead of an
 * index of spans by agent. A store written before (rows holding '[]' / '{}', the index present)
 * migrates without its rows being touched and reads exactly the same through every reader of those
 * columns: the spans list (details and custom columns), group-by on a custom attribute, the chat
 * views, search, export; the one-agent count equals the rows it counts, also after deletes and a
 * re-import.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generateJsonl } from '../../bench/lib/generate.js';
import { importFile } from '../../src/main/service/ingest/index.js';
import { dispatch } from '../../src/main/transport/dispatch.js';
import { migrate } from '../../src/main/store/sqlite/migrate.js';
import { migrations } from '../../src/main/store/migrations/index.js';
import { contextOf } from '../helpers/analytics-call.js';
import { openTestStores, tempStores, type TestStores } from '../helpers/temp-store.js';
import { NULLABLE_JSON_COLUMNS as COLUMNS, asOlderWriter, openStoreFile } from '../helpers/sqlite.js';

const freshStore = tempStores('loupe-lean-');
const P = 'bench/genai';

async function imported(): Promise<TestStores & { jsonl: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'loupe-lean-data-'));
  const file = path.join(dir, 'h.jsonl');
  await generateJsonl(file, { conversations: 8, agents: 3, minSpans: 240, seed: 23 });
  const store = await freshStore();
  await importFile(store.traces, file);
  return Object.assign(store, { jsonl: file });
}

/** What the readers of the array and map columns answer for the whole project. */
async function reads(store: TestStores): Promise<Record<string, unknown>> {
  const ctx = contextOf(store);
  const call = async (name: string, body: Record<string, unknown>) => {
    const out = await dispatch(name, body, ctx, { trusted: true });
    if (out && typeof out === 'object' && Symbol.asyncIterator in out) {
      const rows: unknown[] = [];
      for await (const r of out as AsyncIterable<unknown>) rows.push(r);
      return rows;
    }
    return out;
  };
  const list = (await call('spans.query', {
    project_id: P, limit: 10000, include_details: true, include_costs: true,
    custom_attr_columns: [{ key: 'app.region' }, { key: 'app.attempt' }, { key: 'app.cached' }],
    sort_by: [{ field: 'started_at', direction: 'asc' }],
  })) as { spans: { trace_id: string; conversation_id: string | null }[] };
  const traces = [...new Set(list.spans.map((s) => s.trace_id))].sort();
  const conversations = [...new Set(list.spans.map((s) => s.conversation_id).filter((c): c is string => !!c))].sort();
  return {
    list,
    byRegion: await call('spans.query', { project_id: P, group_by: [{ key: 'app.region', source: 'custom_attrs_string' }], limit: 100 }),
    byRegionWhereCached: await call('spans.query', { project_id: P, query: { $expr: { $eq: [{ $getField: 'app.cached' }, { $literal: true }] } }, limit: 10000 }),
    chatTraces: await Promise.all(traces.slice(0, 12).map((t) => call('chat.trace', { project_id: P, trace_id: t }))),
    chatConversations: await Promise.all(conversations.map((c) => call('chat.conversation', { project_id: P, conversation_id: c }))),
    search: await call('conversations.list', { project_id: P, search: 'eu-west-1', limit: 500, offset: 0, sort_by: [{ field: 'conversation_id', direction: 'asc' }] }),
    exported: await call('system.export', { project_id: P }),
  };
}

describe('lean spans rows (migration 0025)', () => {
  it('an older store migrates with its rows untouched: columns nullable, no agent index', { timeout: 120_000 }, async () => {
    // Migration 24's schema holding real spans as the writer before 0025 wrote them ('[]' / '{}').
    const fresh = await imported();
    const dir = mkdtempSync(path.join(tmpdir(), 'loupe-lean-old-'));
    const old = openStoreFile(path.join(dir, 'loupe.db'));
    migrate(old, migrations.slice(0, 24));
    old.exec(`ATTACH '${fresh.file}' AS f`);
    for (const t of ['dictionaries', 'resources']) old.exec(`INSERT INTO ${t} SELECT * FROM f.${t}`);
    const cols = old.prepare("SELECT name FROM pragma_table_info('spans')").pluck().all() as string[];
    old.exec(`INSERT INTO spans (${cols.join(', ')}) SELECT ${cols.map((c) => asOlderWriter('spans', c)).join(', ')} FROM f.spans`);
    old.exec('INSERT INTO span_bodies SELECT * FROM f.span_bodies');
    old.exec('DETACH f');
    const notNull = (db: typeof old) => db.prepare(`SELECT name FROM pragma_table_info('spans') WHERE "notnull" AND name IN (${COLUMNS.map((c) => `'${c}'`).join(', ')})`).pluck().all();
    expect(notNull(old)).toHaveLength(COLUMNS.length);
    expect(old.prepare("SELECT COUNT(*) FROM sqlite_master WHERE name = 'spans_project_agent'").pluck().get()).toBe(1);
    const before = old.prepare('SELECT * FROM spans ORDER BY id').all() as Record<string, unknown>[];
    expect(before.length).toBeGreaterThan(200);
    expect(before.filter((r) => r.content_refs === '[]').length).toBe(before.length);
    old.close();

    const store = await openTestStores(dir);
    const db = openStoreFile(store.file, { readonly: true });
    try {
      expect(notNull(db)).toEqual([]);
      expect(db.prepare("SELECT COUNT(*) FROM sqlite_master WHERE name = 'spans_project_agent'").pluck().get()).toBe(0);
      expect(db.prepare('SELECT * FROM spans ORDER BY id').all()).toEqual(before);
      expect(db.pragma('integrity_check')).toEqual([{ integrity_check: 'ok' }]);
    } finally {
      db.close();
      await store.close();
    }
  });

  it('stores empty array and map columns as NULL, and reads rows holding the old empty values the same', { timeout: 120_000 }, async () => {
    const store = await imported();
    const db = openStoreFile(store.file);
    try {
      // The premise: this workload has both empty and non-empty values in these columns.
      const nulls = db.prepare(`SELECT ${COLUMNS.map((c) => `SUM(${c} IS NULL)`).join(' + ')} FROM spans`).pluck().get() as number;
      const values = db.prepare(`SELECT ${COLUMNS.map((c) => `SUM(${c} IS NOT NULL)`).join(' + ')} FROM spans`).pluck().get() as number;
      expect(nulls).toBeGreaterThan(0);
      expect(values).toBeGreaterThan(0);
      expect(db.prepare(`SELECT COUNT(*) FROM spans WHERE ${COLUMNS.map((c) => `${c} IN ('[]', '{}')`).join(' OR ')}`).pluck().get()).toBe(0);

      const asWritten = await reads(store);
      // The same rows as the writer before 0025 left them.
      db.exec(`UPDATE spans SET ${COLUMNS.map((c) => `${c} = ${asOlderWriter('spans', c)}`).join(', ')}`);
      expect(db.prepare(`SELECT COUNT(*) FROM spans WHERE ${COLUMNS.map((c) => `${c} IS NULL`).join(' OR ')}`).pluck().get()).toBe(0);
      expect(await reads(store)).toEqual(asWritten);
    } finally {
      db.close();
    }
  });

  it("counts the spans of one agent from the agent's summary, equal to its rows after deletes and a re-import", { timeout: 120_000 }, async () => {
    const store = await imported();
    const ctx = contextOf(store);
    const db = openStoreFile(store.file, { readonly: true });
    const check = async () => {
      const agents = db.prepare('SELECT agent_name, COUNT(*) AS n FROM spans WHERE project_id = ? AND agent_name IS NOT NULL GROUP BY agent_name').all(P) as { agent_name: string; n: number }[];
      expect(agents.length).toBeGreaterThan(1);
      for (const a of [...agents, { agent_name: 'no-such-agent', n: 0 }]) {
        const out = (await dispatch('spans.query', { project_id: P, query: { $expr: { $eq: [{ $getField: 'agent_name' }, { $literal: a.agent_name }] } }, limit: 5 }, ctx)) as { total_count: number; spans: unknown[] };
        expect(out.total_count, a.agent_name).toBe(a.n);
        expect(out.spans.length).toBe(Math.min(5, a.n));
      }
    };
    try {
      await check();
      const traces = db.prepare('SELECT DISTINCT trace_id FROM spans WHERE project_id = ? ORDER BY trace_id').pluck().all(P) as string[];
      await dispatch('spans.delete', { project_id: P, trace_ids: traces.filter((_, i) => i % 3 === 0) }, ctx);
      await check();
      // The same file again: the deleted traces come back, the others are replaced.
      await importFile(store.traces, store.jsonl);
      await check();
    } finally {
      db.close();
    }
  });
});
