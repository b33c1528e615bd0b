/**
 * Full-text search (issue 8 item 4) on real SQLite files: the conversations list's search finds every
 * conversation with a span whose message, tool text or attribute value holds the query as a
 * substring (checked against a scan of the spans as received), with the excerpt; short queries, a
 * common query (the walk), deletes and re-imports keep it exact, and a store made before the index
 * (migration 0010) is indexed at its next open.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dispatch } from '../../src/main/transport/dispatch.js';
import { EventBus } from '../../src/main/service/events.js';
import type { ServiceContext } from '../../src/main/service/context.js';
import { openStores } from '../../src/main/store/index.js';
import { migrate } from '../../src/main/store/sqlite/migrate.js';
import { migrations } from '../../src/main/store/migrations/index.js';
import type { Stores } from '../../src/main/store/ports.js';
import { importFile } from '../../src/main/service/ingest/index.js';
import { conversationsPlan } from '../../src/main/service/conversations/handlers.js';
import { createConversationsRepo } from '../../src/main/store/sqlite/conversations.js';
import { gatherBound } from '../../src/main/store/sqlite/conversation-search.js';
import { GATHER_DOCS } from '../../src/main/domain/gather-bound.js';
import { FTS_SQL, ftsQuery, registerSearchFunctions, searchSql, storedTexts, type StoredSearchRow } from '../../src/main/store/sqlite/fts.js';
import { generateJsonl } from '../../bench/lib/generate.js';
import { chatAttributes, importRequest, otlpRequest, traceBuilder } from '../helpers/otlp.js';
import { tempStores } from '../helpers/temp-store.js';
import { asOlderWriter, openStoreFile } from '../helpers/sqlite.js';

const freshStore = tempStores('loupe-search-');
const dir = mkdtempSync(path.join(tmpdir(), 'loupe-search-data-'));
const P = 'bench/genai';
const call = async (store: Stores, op: string, body: unknown): Promise<any> =>
  dispatch(op, body, { traces: store.traces, app: store.app, events: new EventBus(), dataDir: tmpdir(), apiKey: 'test' } satisfies ServiceContext);
const list = async (store: Stores, body: Record<string, unknown> = {}) => call(store, 'conversations.list', { project_id: P, limit: 1000, ...body });

let workloadFile: string | null = null;
async function workload(): Promise<string> {
  if (!workloadFile) {
    workloadFile = path.join(dir, 'gen.jsonl');
    await generateJsonl(workloadFile, { conversations: 30, agents: 5, minSpans: 1500, seed: 7 });
  }
  return workloadFile;
}

/** Two traces without a conversation id: one with a rare word in a tool result, one in a user message. */
async function loneTraces(store: Stores, texts = ['the kumquat crate is at dock 7', 'where is order A-1187?']): Promise<string[]> {
  const ids: string[] = [];
  for (const [i, text] of texts.entries()) {
    const t = traceBuilder({ seed: `lone-${text}`, start: '2026-12-01T10:00:00Z' });
    const root = t.span('invoke_agent helper', { durationMs: 500, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'helper' } });
    if (i === 0) {
      t.span('execute_tool find_crate', { parent: root, at: 5, durationMs: 20, attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'find_crate', 'gen_ai.tool.call.result': JSON.stringify({ where: text }) } });
    } else {
      t.span('chat gpt-4o-mini', {
        parent: root, at: 10, durationMs: 300,
        attributes: chatAttributes({ model: 'gpt-4o-mini', input: [{ role: 'user', content: text }], output: [{ role: 'assistant', content: 'on its way' }], inputTokens: 40, outputTokens: 9 }),
      });
    }
    await importRequest(store, P, t.request());
    ids.push(t.traceId);
  }
  return ids;
}

/**
 * The rows a query should find, from a scan of the spans as received: a span matches when its OTLP
 * JSON holds the query (the needles below occur only in values, never in keys or ids, and need no
 * JSON escaping); its row is its conversation, else its trace.
 */
function expectedRows(file: string, needle: string): string[] {
  const db = openStoreFile(file, { readonly: true });
  try {
    const rows = db.prepare(`SELECT s.trace_id, s.conversation_id, d.raw_span_dump FROM spans s JOIN span_details d ON d.span_rowid = s.id WHERE s.project_id = ?`).all(P) as { trace_id: string; conversation_id: string | null; raw_span_dump: string }[];
    const keys = rows.filter((r) => r.raw_span_dump.toLowerCase().includes(needle.toLowerCase())).map((r) => (r.conversation_id ? `conversation:${r.conversation_id}` : `trace:${r.trace_id}`));
    return [...new Set(keys)].sort();
  } finally {
    db.close();
  }
}

const keysOf = (rows: { kind: string; conversation_id: string }[]) => rows.map((r) => `${r.kind}:${r.conversation_id}`).sort();

function expectSnippets(rows: { snippet: { text: string; matches: [number, number][] } | null }[], needle: string): void {
  for (const r of rows) {
    expect(r.snippet, 'every found row has an excerpt').not.toBeNull();
    const [a, b] = r.snippet!.matches[0]!;
    expect(r.snippet!.text.slice(a, b).toLowerCase()).toBe(needle.toLowerCase());
  }
}

describe('full-text search', () => {
  it('finds every conversation whose messages, tool text or attribute values hold the query, with the excerpt', async () => {
    const store = await freshStore();
    await importFile(store.traces, await workload());
    const lone = await loneTraces(store);
    // A rare word in a tool result, an id in a user message (and maybe in generated tool arguments),
    // a word of the generator's vocabulary, a substring across two words, case folded.
    for (const needle of ['kumquat', 'A-1187', 'warehouse', 'ess car', 'SHIPMENT', 'a-12']) {
      const want = expectedRows(store.file, needle);
      const got = await list(store, { search: needle });
      expect(keysOf(got.conversations), needle).toEqual(want);
      expect(got.total_count, needle).toBe(want.length);
      expectSnippets(got.conversations, needle);
    }
    expect(keysOf((await list(store, { search: 'kumquat' })).conversations)).toEqual([`trace:${lone[0]}`]);
    expect((await list(store, { search: 'kumquat' })).conversations[0].snippet.text).toContain('kumquat crate');
    // Filters and sorts still apply to the found rows; paging concatenates.
    const all = (await list(store, { search: 'warehouse', sort_by: [{ field: 'total_cost_usd', direction: 'desc' }] })).conversations;
    expect(all.length).toBeGreaterThan(5);
    const pages = [];
    for (let offset = 0; offset < all.length; offset += 4) pages.push(...(await list(store, { search: 'warehouse', sort_by: [{ field: 'total_cost_usd', direction: 'desc' }], limit: 4, offset })).conversations);
    expect(pages).toEqual(all);
    const agent = (await list(store, { search: 'warehouse', filters: { agent_names: ['agent-01'] } })).conversations;
    expect(agent.length).toBeGreaterThan(0);
    expect(agent.every((r: { agent_names: string[] }) => r.agent_names.includes('agent-01'))).toBe(true);
    // Nothing found: an empty page, not an error.
    expect(await list(store, { search: 'zzqqxx' })).toEqual({ conversations: [], total_count: 0, total_count_exact: true, search_scope: 'everything', next_cursor: null });
  }, 90_000);

  it('a query under 3 characters matches what the rows show; a common query walks the list order', async () => {
    const store = await freshStore();
    await importFile(store.traces, await workload());
    await loneTraces(store);
    const short = (await list(store, { search: 'A-' })).conversations;
    expect(short.length).toBeGreaterThan(0);
    expectSnippets(short, 'A-');
    // With room for only 3 candidate documents, 'order' (in most conversations) is answered by the
    // walk: the same rows in the same order as the full answer, the count a lower bound.
    const db = openStoreFile(store.file, { readonly: true });
    try {
      const walk = createConversationsRepo(db, { gatherBound: () => 3 });
      const full = createConversationsRepo(db);
      for (const sort of ['last_activity', 'turn_count'] as const) {
        const plan = conversationsPlan({ project_id: P, search: 'order', sort_by: [{ field: sort, direction: 'desc' }], limit: 10, offset: 3 });
        const a = walk.list(plan);
        const b = full.list(plan);
        expect(a.conversations).toEqual(b.conversations);
        expect(a.conversations).toHaveLength(10);
        expect(a.total_count).toBeLessThanOrEqual(b.total_count);
        expect(a.total_count).toBeGreaterThanOrEqual(13);
      }
    } finally {
      db.close();
    }
  }, 90_000);

  it('a needle just over the gather floor is gathered when the walk would pass most rows to fill its page', async () => {
    // The 10M-span cliff: `A-1187` had 1,022 candidate documents for ~200 matching rows of 500,210, one
    // over a fixed bound of 1,000, and was walked through nearly every row (over 3 minutes).
    expect(gatherBound(500_210, 201)).toBeGreaterThan(1_022);
    expect(gatherBound(84, 11)).toBe(GATHER_DOCS);
    // The same decision on a real store, the floor lowered to 3: 'A-11' has more candidate documents than
    // that, and few of the list's rows hold it, so the bound for a 10-row page lets it be gathered.
    const store = await freshStore();
    await importFile(store.traces, await workload());
    const db = openStoreFile(store.file, { readonly: true });
    try {
      const docs = db.prepare(FTS_SQL.candidateCount).pluck().get(ftsQuery('A-11'), 1_000) as number;
      const rows = db.prepare(`SELECT rows FROM conversation_counts WHERE project_id = ?`).pluck().get(P) as number;
      expect(docs).toBeGreaterThan(3);
      expect(docs).toBeLessThanOrEqual(gatherBound(rows, 11, 3));
      const plan = conversationsPlan({ project_id: P, search: 'A-11', limit: 10, offset: 0 });
      const weighed = createConversationsRepo(db, { gatherBound: (r, need) => gatherBound(r, need, 3) }).list(plan);
      const full = createConversationsRepo(db).list(plan);
      expect(weighed).toEqual(full);
      expect(weighed.total_exact).toBe(true);
      expect(weighed.total_count).toBe(expectedRows(store.file, 'A-11').length);
      // A fixed bound of 3 (the old rule) walks it: the same rows, a count that is only a lower bound.
      const fixed = createConversationsRepo(db, { gatherBound: () => 3 }).list(plan);
      expect(fixed.conversations).toEqual(full.conversations);
      expect(fixed.total_exact).toBe(false);
    } finally {
      db.close();
    }
  }, 90_000);

  it('deletes and re-imports keep the index exact', async () => {
    const store = await freshStore();
    await importFile(store.traces, await workload());
    const lone = await loneTraces(store);
    const warehouse = expectedRows(store.file, 'warehouse');
    await call(store, 'spans.delete', { project_id: P, trace_ids: [lone[0]] });
    expect((await list(store, { search: 'kumquat' })).conversations).toEqual([]);
    // The deleted trace imported again is found again.
    await loneTraces(store, ['the kumquat crate is at dock 7']);
    expect(keysOf((await list(store, { search: 'kumquat' })).conversations)).toEqual([`trace:${lone[0]}`]);
    // A re-import that changes a message: the old text is no longer found, the new one is.
    const t = traceBuilder({ seed: 'lone-where is order A-1187?', start: '2026-12-01T10:00:00Z' });
    const root = t.span('invoke_agent helper', { durationMs: 500, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'helper' } });
    t.span('chat gpt-4o-mini', { parent: root, at: 10, durationMs: 300, attributes: chatAttributes({ model: 'gpt-4o-mini', input: [{ role: 'user', content: 'where is parcel B-2299?' }], output: [{ role: 'assistant', content: 'on its way' }] }) });
    await importRequest(store, P, t.request());
    expect(keysOf((await list(store, { search: 'B-2299' })).conversations)).toEqual([`trace:${lone[1]}`]);
    expect(keysOf((await list(store, { search: 'A-1187' })).conversations)).toEqual(expectedRows(store.file, 'A-1187'));
    expect(keysOf((await list(store, { search: 'A-1187' })).conversations)).not.toContain(`trace:${lone[1]}`);
    // Deleting by age everything but the lone traces: the generated conversations are no longer found,
    // and no document of a deleted trace is left.
    await call(store, 'spans.delete', { project_id: P, older_than: '2026-11-30T00:00:00Z' });
    expect(warehouse.length).toBeGreaterThan(0);
    expect((await list(store, { search: 'warehouse' })).conversations).toEqual([]);
    const db = openStoreFile(store.file, { readonly: true });
    try {
      const orphans = db.prepare('SELECT COUNT(*) FROM search_doc_traces d WHERE NOT EXISTS (SELECT 1 FROM spans s WHERE s.id = d.trace_rowid)').pluck().get();
      expect(orphans).toBe(0);
      // A document goes with its last trace: none is left that maps no trace.
      expect(db.prepare('SELECT COUNT(*) FROM search_text_docsize WHERE NOT EXISTS (SELECT 1 FROM search_doc_traces d WHERE d.doc = id)').pluck().get()).toBe(0);
      expect(db.prepare('SELECT COUNT(*) FROM search_text WHERE search_text MATCH ?').pluck().get(ftsQuery('warehouse'))).toBe(0);
    } finally {
      db.close();
    }
  }, 90_000);

  it('$search as SQL finds exactly the spans whose texts hold the query, short queries included', async () => {
    const store = await freshStore();
    await importFile(store.traces, await workload());
    await loneTraces(store);
    const db = openStoreFile(store.file, { readonly: true });
    registerSearchFunctions(db);
    try {
      const spansOf = (needle: string) => {
        const { sql, params } = searchSql(needle);
        return (db.prepare(`SELECT s.trace_id || '/' || s.span_id FROM spans s WHERE s.project_id = ? AND ${sql} ORDER BY 1`).pluck().all(P, ...params) as string[]);
      };
      const scan = (needle: string) =>
        (db.prepare(`SELECT s.trace_id || '/' || s.span_id AS k, d.raw_span_dump AS r FROM spans s JOIN span_details d ON d.span_rowid = s.id WHERE s.project_id = ? ORDER BY 1`).all(P) as { k: string; r: string }[])
          .filter((x) => x.r.toLowerCase().includes(needle.toLowerCase())).map((x) => x.k);
      for (const needle of ['kumquat', 'A-1187', 'ess car', 'warehouse', 'dock']) {
        const got = spansOf(needle);
        expect(got, needle).toEqual(scan(needle));
        expect(got.length, needle).toBeGreaterThan(0);
      }
      // Two characters: no trigram, every span's texts checked ('7?' ends a user question in one lone trace only).
      expect(spansOf('7?')).toEqual(scan('7?'));
      const rare = searchSql('kumquat');
      expect(db.prepare(`EXPLAIN QUERY PLAN SELECT 1 FROM spans s WHERE ${rare.sql}`).all(...rare.params).map((r) => (r as { detail: string }).detail).join('\n')).toMatch(/search_text VIRTUAL TABLE/);
    } finally {
      db.close();
    }
  }, 90_000);

  it('a store made before migrations 0010 and 0011 is indexed and compressed at its next open, and reads the same', async () => {
    const fresh = await freshStore();
    await importFile(fresh.traces, await workload());
    await loneTraces(fresh);
    // The schema of migration 9 holding the same spans, as that schema's writer stored them.
    const dbFile = path.join(mkdtempSync(path.join(tmpdir(), 'loupe-search-old-')), 'loupe.db');
    const old = openStoreFile(dbFile);
    migrate(old, migrations.slice(0, 9));
    const src = openStoreFile(fresh.file, { readonly: true });
    for (const t of ['spans', 'span_details']) {
      const c = src.prepare(`SELECT name FROM pragma_table_info('${t}')`).pluck().all() as string[];
      const ins = old.prepare(`INSERT INTO ${t} (${c.join(', ')}) VALUES (${c.map(() => '?').join(', ')})`);
      old.transaction(() => {
        for (const r of src.prepare(`SELECT ${c.map((x) => asOlderWriter(t, x)).join(', ')} FROM ${t}`).raw().safeIntegers(true).all()) ins.run(r);
      })();
    }
    const details = src.prepare('SELECT * FROM span_details ORDER BY span_rowid').all();
    src.close();
    old.close();
    const reopened = await openStores(dbFile);
    try {
      for (const needle of ['kumquat', 'warehouse', 'A-1187']) expect(await list(reopened, { search: needle }), needle).toEqual(await list(fresh, { search: needle }));
      const db = openStoreFile(dbFile, { readonly: true });
      try {
        // Every body compressed and read back equal; the old table gone.
        expect(db.prepare('SELECT * FROM span_details ORDER BY span_rowid').all()).toEqual(details);
        expect(db.prepare("SELECT COUNT(*) FROM sqlite_master WHERE name = 'span_details_legacy'").pluck().get()).toBe(0);
        expect(db.prepare('SELECT COUNT(*) FROM span_bodies WHERE dict_id <> 0').pluck().get()).toBeGreaterThan(details.length / 2);
      } finally {
        db.close();
      }
    } finally {
      await reopened.close();
    }
  }, 90_000);

  it('a store of migration 14 (one document per trace, mapped by project and trace id) finds the same after 0015, and deletes still drop its documents', async () => {
    const fresh = await freshStore();
    await importFile(fresh.traces, await workload());
    await loneTraces(fresh);
    // Migration 14's schema holding the same rows, its index written as that schema's writer wrote it:
    // one document per trace (the workload's traces each arrive in one batch), numbered in order.
    const dbFile = path.join(mkdtempSync(path.join(tmpdir(), 'loupe-search-14-')), 'loupe.db');
    const old = openStoreFile(dbFile);
    migrate(old, migrations.slice(0, 14));
    const src = openStoreFile(fresh.file, { readonly: true });
    // No span_rollups: migration 0020 drops that table and rolls the spans up again at the next open.
    for (const t of ['spans', 'span_bodies', 'dictionaries', 'resources', 'trace_summaries', 'conversation_turns', 'conversation_summaries', 'agent_trace_stats', 'agent_summaries', 'project_values', 'project_summaries']) {
      // The columns migration 14 has (later ones add some: trace_summaries.conversation_ids, 0017).
      const has = new Set(old.prepare(`SELECT name FROM pragma_table_info('${t}')`).pluck().all() as string[]);
      const c = (src.prepare(`SELECT name FROM pragma_table_info('${t}')`).pluck().all() as string[]).filter((n) => has.has(n));
      const ins = old.prepare(`INSERT INTO ${t} (${c.join(', ')}) VALUES (${c.map(() => '?').join(', ')})`);
      old.transaction(() => {
        for (const r of src.prepare(`SELECT ${c.map((x) => asOlderWriter(t, x)).join(', ')} FROM ${t}`).raw().safeIntegers(true).all()) ins.run(r);
      })();
    }
    registerSearchFunctions(old);
    const traces = src.prepare('SELECT project_id, trace_id FROM spans GROUP BY project_id, trace_id ORDER BY MIN(id)').all() as { project_id: string; trace_id: string }[];
    const spansOf = src.prepare(FTS_SQL.traceSpans);
    old.transaction(() => {
      for (const t of traces) {
        const texts = new Set((spansOf.all(t.project_id, t.trace_id) as StoredSearchRow[]).flatMap(storedTexts));
        const doc = old.prepare('INSERT INTO search_docs (project_id, trace_id) VALUES (?, ?)').run(t.project_id, t.trace_id).lastInsertRowid;
        old.prepare('INSERT INTO search_text (rowid, text) VALUES (?, ?)').run(doc, [...texts].join('\n'));
      }
    })();
    src.close();
    old.close();
    const reopened = await openStores(dbFile);
    try {
      for (const needle of ['kumquat', 'warehouse', 'A-1187', 'ess car']) {
        expect(keysOf((await list(reopened, { search: needle })).conversations), needle).toEqual(expectedRows(fresh.file, needle));
      }
      const db = openStoreFile(dbFile, { readonly: true });
      try {
        expect(db.prepare('SELECT COUNT(*) FROM search_doc_traces').pluck().get()).toBe(traces.length);
        expect(db.prepare("SELECT COUNT(*) FROM sqlite_master WHERE name = 'search_docs'").pluck().get()).toBe(0);
      } finally {
        db.close();
      }
      await call(reopened, 'spans.delete', { project_id: P, older_than: '2026-11-30T00:00:00Z' });
      expect((await list(reopened, { search: 'warehouse' })).conversations).toEqual([]);
      const after = openStoreFile(dbFile, { readonly: true });
      try {
        expect(after.prepare('SELECT COUNT(*) FROM search_text_docsize').pluck().get()).toBe(after.prepare('SELECT COUNT(DISTINCT doc) FROM search_doc_traces').pluck().get());
      } finally {
        after.close();
      }
    } finally {
      await reopened.close();
    }
  }, 90_000);

  it('a needle in a continued input is found in every span whose rebuilt history holds it; one in an earlier span\'s own text, only there; a row\'s excerpt does not depend on how inputs are stored', async () => {
    // One import: three turns of a conversation whose chat calls continue each other (each input is the
    // previous call's messages, its answer and a new question: stored as base + tail, migration 0021).
    // 'Q-7731' is said once, in turn 1: turns 2 and 3 hold it only in their rebuilt history (turn 3
    // two bases back). 'R-5520' is a tool result of turn 1 that no later input repeats. 'P-3300' is said
    // in turn 1 and again in turn 3's answer: the row's excerpt is the first text of turn 3's call that
    // holds it — turn 1's message, which its input repeats — as when every input is stored whole (the
    // same turns imported one request at a time are: a history is kept per import).
    const store = await freshStore();
    const conversationId = 'conv-history';
    const say = (content: string) => ({ role: 'user', content });
    const answer = (content: string) => ({ role: 'assistant', content });
    const inputs = [[say('where is parcel Q-7731? ref P-3300')]];
    inputs.push([...inputs[0]!, answer('it left the depot'), say('and the invoice?')]);
    inputs.push([...inputs[1]!, answer('sent yesterday'), say('thanks, that is all')]);
    const spans: Record<string, unknown>[] = [];
    const chats: string[] = [];
    const requests: ReturnType<typeof otlpRequest>[] = [];
    let tool = '';
    inputs.forEach((input, i) => {
      const t = traceBuilder({ seed: `history-${i}`, start: Date.parse('2026-12-02T10:00:00Z') + i * 60_000 });
      const root = t.span('invoke_agent courier', { durationMs: 900, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'courier', 'gen_ai.conversation.id': conversationId } });
      if (i === 0) {
        tool = t.span('execute_tool print_label', {
          parent: root, at: 5, durationMs: 20,
          attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'print_label', 'gen_ai.conversation.id': conversationId, 'gen_ai.tool.call.result': 'label printed: R-5520' },
        }).spanId;
      }
      chats.push(t.span('chat gpt-4o-mini', {
        parent: root, at: 100, durationMs: 300,
        attributes: chatAttributes({ model: 'gpt-4o-mini', conversationId, agentName: 'courier', input, output: [answer(['it left the depot', 'sent yesterday', 'bye, ref P-3300'][i]!)] }),
      }).spanId);
      spans.push(...t.spans());
      requests.push(t.request());
    });
    await importRequest(store, P, otlpRequest(spans));
    await loneTraces(store);

    const db = openStoreFile(store.file, { readonly: true });
    registerSearchFunctions(db);
    try {
      // Turns 2 and 3 are stored continued (the rebuilt history is what the check must look through).
      const base = db.prepare(`SELECT b.input_base FROM span_bodies b JOIN spans s ON s.id = b.span_rowid WHERE s.span_id = ?`).pluck();
      expect(chats.map((id) => base.get(id) != null)).toEqual([false, true, true]);
      const spansOf = (needle: string) => {
        const { sql, params } = searchSql(needle);
        return db.prepare(`SELECT s.span_id FROM spans s WHERE s.project_id = ? AND ${sql} ORDER BY 1`).pluck().all(P, ...params) as string[];
      };
      const cases = [['Q-7731', chats, 'where is parcel Q-7731? ref P-3300'], ['R-5520', [tool], 'label printed: R-5520'], ['P-3300', chats, 'where is parcel Q-7731? ref P-3300']] as const;
      for (const [needle, owners, excerpt] of cases) {
        // The spans: each whose texts (its whole input included) hold it, by the index's check and by $search.
        const hits = await store.traces.search({ project_id: P, text: needle, limit: 100 });
        expect(hits.map((h) => h.span_id).sort(), needle).toEqual([...owners].sort());
        expect(spansOf(needle), needle).toEqual([...owners].sort());
        // The conversation's row, gathered and walked alike, with the excerpt of the text that holds it.
        const got = await list(store, { search: needle });
        expect(keysOf(got.conversations), needle).toEqual([`conversation:${conversationId}`]);
        expect(got.total_count).toBe(1);
        expect(got.conversations[0].snippet.text, needle).toBe(excerpt);
        const plan = conversationsPlan({ project_id: P, search: needle, limit: 10, offset: 0 });
        const walked = createConversationsRepo(db, { gatherBound: () => 0 }).list(plan);
        expect(walked.total_exact, needle).toBe(false);
        expect(walked.conversations, needle).toEqual(createConversationsRepo(db).list(plan).conversations);
      }
    } finally {
      db.close();
    }
    // The same turns one request at a time: every input stored whole (a history is kept per import), the same answers.
    const whole = await freshStore();
    for (const r of requests) await importRequest(whole, P, r);
    await loneTraces(whole);
    const wdb = openStoreFile(whole.file, { readonly: true });
    try {
      expect(wdb.prepare(`SELECT COUNT(*) FROM span_bodies WHERE input_base IS NOT NULL`).pluck().get()).toBe(0);
    } finally {
      wdb.close();
    }
    for (const needle of ['Q-7731', 'R-5520', 'P-3300']) expect(await list(whole, { search: needle }), needle).toEqual(await list(store, { search: needle }));
  }, 90_000);
});
