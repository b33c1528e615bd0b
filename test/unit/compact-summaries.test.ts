/**
 * Migration 0013 (compact summaries) on real SQLite files: a store holding migration 12's rows is
 * converted at its next open to exactly the rows a fresh import makes — turn rows naming their preview
 * candidates by span id (chosen in SQL as turnContribution chooses them: ties, open spans, a trace
 * split over two conversations), trace rows cut to retention's columns — and the conversations list
 * answers the same before and after a later write re-aggregates the rows from the stored bodies.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dispatch } from '../../src/main/transport/dispatch.js';
import { EventBus } from '../../src/main/service/events.js';
import type { ServiceContext } from '../../src/main/service/context.js';
import { migrate } from '../../src/main/store/sqlite/migrate.js';
import { migrations } from '../../src/main/store/migrations/index.js';
import { importFile } from '../../src/main/service/ingest/index.js';
import { generateJsonl } from '../../bench/lib/generate.js';
import { chatAttributes, importRequest, traceBuilder } from '../helpers/otlp.js';
import { openTestStores, tempStores, type TestStores } from '../helpers/temp-store.js';
import { asOlderWriter, openStoreFile } from '../helpers/sqlite.js';

const P = 'bench/genai';
const freshStore = tempStores('loupe-compact-');
const dir = mkdtempSync(path.join(tmpdir(), 'loupe-compact-data-'));
const ctxOf = (store: TestStores): ServiceContext => ({ traces: store.traces, app: store.app, events: new EventBus(), dataDir: tmpdir(), apiKey: 'test' });
const list = async (store: TestStores) =>
  (await dispatch('conversations.list', { project_id: P, limit: 500, offset: 0, sort_by: [{ field: 'last_activity', direction: 'desc' }] }, ctxOf(store))) as {
    conversations: unknown[];
  };

/** Traces whose preview candidates need the tie rules: equal starts and ends, an open span, two conversations. */
async function edgeTraces(store: TestStores, round: number): Promise<void> {
  const t = traceBuilder({ seed: `edge-${round}`, start: `2026-12-0${round}T10:00:00Z` });
  const root = t.span('invoke_agent edge', { durationMs: 900, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'edge', 'gen_ai.conversation.id': 'conv-edge' } });
  for (const [i, q] of ['same start one', 'same start two', 'same start three'].entries()) {
    t.span('chat m', {
      parent: root, at: 10, durationMs: 50,
      attributes: chatAttributes({ model: 'm', conversationId: i === 2 ? 'conv-other' : undefined, input: [{ role: 'user', content: `${q} r${round}` }], output: [{ role: 'assistant', content: `answer ${i} r${round}` }], inputTokens: 5, outputTokens: 2 }),
    });
  }
  t.span('chat open', { parent: root, at: 20, durationMs: null, attributes: chatAttributes({ model: 'm', input: [{ role: 'user', content: 'still open' }], output: [{ role: 'assistant', content: `open answer r${round}` }] }) });
  await importRequest(store, P, t.request());
}

describe('migration 0013: compact summaries', () => {
  it('converts a store of migration 12 to the rows a fresh import makes, and later writes keep them equal', async () => {
    const file = path.join(dir, 'gen.jsonl');
    await generateJsonl(file, { conversations: 20, agents: 4, minSpans: 800, seed: 13 });
    const fresh = await freshStore();
    await importFile(fresh.traces, file);
    await edgeTraces(fresh, 1);

    // Migration 12's schema holding the same rows. Tables 0013 leaves alone are copied as they are;
    // trace and turn rows get the columns 0013 drops filled as the old writer filled them (values
    // the conversion must ignore: the old preview texts are marked stale).
    const dbFile = path.join(mkdtempSync(path.join(tmpdir(), 'loupe-compact-old-')), 'loupe.db');
    const old = openStoreFile(dbFile);
    migrate(old, migrations.slice(0, 12));
    const src = openStoreFile(fresh.file, { readonly: true });
    const cols = (db: typeof src, t: string) => db.prepare(`SELECT name FROM pragma_table_info('${t}')`).pluck().all() as string[];
    const copy = (t: string, extra: Record<string, string> = {}) => {
      const mine = cols(src, t).filter((c) => cols(old, t).includes(c));
      const names = [...mine, ...Object.keys(extra)];
      const ins = old.prepare(`INSERT INTO ${t} (${names.join(', ')}) SELECT ${names.map(() => '?').join(', ')}`);
      const rows = src.prepare(`SELECT ${[...mine.map((c) => asOlderWriter(t, c)), ...Object.values(extra)].join(', ')} FROM ${t}`).raw().safeIntegers(true).all();
      old.transaction(() => rows.forEach((r) => ins.run(r)))();
      return rows.length;
    };
    // No span_rollups: migration 0020 drops that table and rolls the spans up again at the next open.
    for (const t of ['spans', 'span_bodies', 'dictionaries', 'resources', 'agent_trace_stats', 'agent_summaries', 'conversation_summaries', 'project_values', 'project_summaries']) {
      expect(copy(t), t).toBeGreaterThanOrEqual(1);
    }
    copy('trace_summaries', { error_count: '0', conversation_ids: "'[]'" });
    copy('conversation_turns', { root_span_id: "'x'", status_code: "'UNSET'", first_text: "'stale'", last_text: "'stale'" });
    expect(old.prepare('SELECT COUNT(*) FROM pragma_table_info(?) WHERE name = ?').pluck().get('conversation_turns', 'first_text')).toBe(1);
    src.close();
    old.close();

    const migrated = await openTestStores(path.dirname(dbFile));
    try {
      const dump = (s: TestStores) => {
        const db = openStoreFile(s.file, { readonly: true });
        try {
          return {
            turns: db.prepare('SELECT * FROM conversation_turns ORDER BY project_id, conversation_id, trace_id').all(),
            traces: db.prepare('SELECT * FROM trace_summaries ORDER BY project_id, trace_id').all(),
            conversations: db.prepare('SELECT * FROM conversation_summaries ORDER BY project_id, kind, conversation_id').all().map((r) => ({ ...(r as object), id: 0 })),
            indexes: db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ('spans', 'trace_summaries', 'conversation_turns') ORDER BY name").pluck().all(),
          };
        } finally {
          db.close();
        }
      };
      const [a, b] = [dump(migrated), dump(fresh)];
      expect(a.turns.length).toBeGreaterThan(100);
      expect(a.turns.filter((t) => (t as { first_span_id: string | null }).first_span_id !== null).length).toBe(a.turns.length);
      expect(a).toEqual(b);
      expect((await list(migrated)).conversations).toEqual((await list(fresh)).conversations);

      // A later write re-aggregates the conversations it touches: previews are read from stored bodies.
      for (const s of [migrated, fresh]) await edgeTraces(s, 2);
      const [c, d] = [dump(migrated), dump(fresh)];
      expect(c).toEqual(d);
      const rows = (await list(migrated)).conversations as { conversation_id: string; first_message: { text: string }; last_message: { text: string } | null }[];
      expect(rows).toEqual((await list(fresh)).conversations);
      const edge = rows.find((r) => r.conversation_id === 'conv-edge')!;
      // Earliest input among equal starts: the smaller span id. The latest output is the open span's
      // (no end ranks latest), whose turn then has no output end: no last message, as before 0013.
      expect(edge.first_message.text).toMatch(/^same start (one|two) r1$/);
      expect(edge.last_message).toBeNull();
    } finally {
      await migrated.close();
    }
  }, 90_000);
});
