/**
 * conversations.list (issue 8 item 3) on real SQLite files: every row equals what the chat views and
 * the spans query compute for that conversation; every sort reads an index; filters, search and
 * paging; summaries stay exact across batch boundaries and re-imports; a database made with the
 * schema before migration 0006 migrates and gets the same rows. And "one count everywhere" (issue 10
 * item 4): one conversation's tokens and cost are equal in the conversations list, the chat header,
 * agents, threads and a group-by over its spans.
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
import { conversationsPlan } from '../../src/main/service/conversations/handlers.js';
import { CONVERSATION_SORT_FIELDS } from '../../src/shared/contract/conversations.js';
import { generateJsonl } from '../../bench/lib/generate.js';
import { chatAttributes, importRequest, otlpRequest, traceBuilder } from '../helpers/otlp.js';
import { openTestStores, tempStores, type TestStores } from '../helpers/temp-store.js';
import { openDatabase } from '../../src/main/store/sqlite/open.js';
import { explainConversations } from '../../src/main/store/sqlite/explain.js';
import { createConversationsRepo } from '../../src/main/store/sqlite/conversations.js';
import { asOlderWriter, openStoreFile } from '../helpers/sqlite.js';

const freshStore = tempStores('loupe-conversations-');
const dir = mkdtempSync(path.join(tmpdir(), 'loupe-conversations-data-'));
const ctxOf = (store: TestStores): ServiceContext => ({ traces: store.traces, app: store.app, events: new EventBus(), dataDir: tmpdir(), apiKey: 'test' });
const call = async (store: TestStores, op: string, body: unknown): Promise<any> => {
  const out = await dispatch(op, body, ctxOf(store));
  if (out && typeof out === 'object' && Symbol.asyncIterator in out) {
    const rows: unknown[] = [];
    for await (const r of out as AsyncIterable<unknown>) rows.push(r);
    return rows;
  }
  return out;
};
const P = 'bench/genai';

/** A generated workload (every span tagged with its conversation) plus two traces without a conversation id. */
async function workload(): Promise<string> {
  const file = path.join(dir, 'gen.jsonl');
  await generateJsonl(file, { conversations: 30, agents: 5, minSpans: 1200, seed: 11 });
  return file;
}

async function loneTraces(store: TestStores): Promise<string[]> {
  const ids: string[] = [];
  for (const [i, q] of ['where is order A-1187?', 'cancel my subscription'].entries()) {
    const t = traceBuilder({ seed: `lone-${i}`, start: '2026-12-01T10:00:00Z' });
    const root = t.span('invoke_agent helper', { durationMs: 500, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'helper' } });
    t.span('chat gpt-4o-mini', {
      parent: root, at: 10, durationMs: 300, status: i ? 'ERROR' : 'UNSET',
      attributes: chatAttributes({ model: 'gpt-4o-mini', input: [{ role: 'user', content: q }], output: [{ role: 'assistant', content: `answer ${i}` }], inputTokens: 40, outputTokens: 9 }),
    });
    await importRequest(store, P, t.request());
    ids.push(t.traceId);
  }
  return ids;
}

const list = async (store: TestStores, body: Record<string, unknown> = {}) => call(store, 'conversations.list', { project_id: P, limit: 1000, ...body });

describe('conversations.list', () => {
  it('every row equals what the chat views and the spans query compute for it', async () => {
    const store = await freshStore();
    await importFile(store.traces, await workload());
    const lone = await loneTraces(store);
    const { conversations: rows, total_count } = await list(store);
    const conversationIds = (await call(store, 'threads.query', { project_id: P, limit: 1000 })).length;
    expect(conversationIds).toBeGreaterThan(20);
    expect(total_count).toBe(conversationIds + 2);
    expect(rows.filter((r: { kind: string }) => r.kind === 'trace').map((r: { conversation_id: string }) => r.conversation_id).sort()).toEqual([...lone].sort());
    const groups = (await call(store, 'spans.query', { project_id: P, group_by: [{ key: 'conversation_id', source: 'field' }], include_costs: true, limit: 1000,
      query: { $expr: { $not: { $eq: [{ $getField: 'conversation_id' }, { $literal: null }] } } } })).groups;
    for (const row of rows) {
      if (row.kind === 'trace') {
        const chat = await call(store, 'chat.trace', { project_id: P, trace_id: row.conversation_id });
        expect(row).toMatchObject({ turn_count: 1, total_input_tokens: chat.total_input_tokens, total_output_tokens: chat.total_output_tokens, total_cost_usd: chat.total_cost_usd });
        expect(row.first_message.text).toMatch(/A-1187|subscription/);
        continue;
      }
      const chat = await call(store, 'chat.conversation', { project_id: P, conversation_id: row.conversation_id, limit: 50 });
      const g = groups.find((x: { group_keys: { conversation_id: string } }) => x.group_keys.conversation_id === row.conversation_id);
      const sum = (k: string) => chat.turns.reduce((n: number, t: Record<string, number>) => n + t[k]!, 0);
      expect(row).toMatchObject({
        turn_count: chat.total_turns, span_count: g.span_count, error_count: g.error_count, agent_names: g.agent_names, request_models: g.request_models,
        total_input_tokens: sum('total_input_tokens'), total_output_tokens: sum('total_output_tokens'),
        first_message: g.first_message, last_message: g.last_message, first_activity: g.first_seen,
      });
      expect(row.total_cost_usd).toBeCloseTo(chat.total_cost_usd, 12);
    }
  }, 60_000);

  it('sorts by every column through an index, filters, searches and pages', async () => {
    const store = await freshStore();
    await importFile(store.traces, await workload());
    await loneTraces(store);
    const all = (await list(store)).conversations as Record<string, unknown>[];
    const column: Record<string, string> = { first_activity: 'first_activity', last_activity: 'last_activity' };
    for (const field of CONVERSATION_SORT_FIELDS) {
      for (const direction of ['asc', 'desc'] as const) {
        const rows = (await list(store, { sort_by: [{ field, direction }] })).conversations as Record<string, unknown>[];
        expect(rows).toHaveLength(all.length);
        const v = rows.map((r) => r[column[field] ?? field] as number | string | null);
        for (let i = 1; i < v.length; i++) {
          const [a, b] = [v[i - 1]!, v[i]!];
          if (a === null || b === null) continue;
          expect(direction === 'asc' ? a <= b : a >= b, `${field} ${direction} at ${i}: ${a} then ${b}`).toBe(true);
        }
        const db = openDatabase(store.file);
        const plan = explainConversations(db, conversationsPlan({ project_id: P, sort_by: [{ field, direction }], limit: 100, offset: 0 }));
        db.close();
        expect(plan.join('\n'), `${field} ${direction}`).toMatch(/USING (COVERING )?INDEX conversation_summaries_/);
        expect(plan.join('\n'), `${field} ${direction}`).not.toMatch(/USE TEMP B-TREE FOR ORDER BY/);
      }
    }
    // Paging: pages concatenate to the whole list.
    const pages = [];
    for (let offset = 0; offset < all.length; offset += 7) pages.push(...(await list(store, { limit: 7, offset })).conversations);
    expect(pages).toEqual(all);
    // Filters agree with the rows' own columns.
    const byAgent = (await list(store, { filters: { agent_names: ['agent-01', 'helper'] } })).conversations as { agent_names: string[] }[];
    expect(byAgent.length).toBe(all.filter((r) => (r.agent_names as string[]).some((a) => a === 'agent-01' || a === 'helper')).length);
    expect(byAgent.length).toBeGreaterThan(2);
    const errors = await list(store, { filters: { status: 'error' } });
    const ok = await list(store, { filters: { status: 'ok' } });
    expect(errors.total_count + ok.total_count).toBe(all.length);
    expect(errors.conversations.every((r: { error_count: number }) => r.error_count > 0)).toBe(true);
    // A status filter alone: the same rows in the same order whichever way it is read (statusWalks: the errors
    // index for a page of every error row here, a walk of the sort's index for small pages of the ok rows).
    const hasError = (r: Record<string, unknown>) => (r.error_count as number) > 0;
    for (const field of ['turn_count', 'last_activity', 'total_cost_usd'] as const) {
      const sorted = (await list(store, { sort_by: [{ field, direction: 'desc' }] })).conversations as Record<string, unknown>[];
      for (const [status, want] of [['error', sorted.filter(hasError)], ['ok', sorted.filter((r) => !hasError(r))]] as const) {
        expect((await list(store, { filters: { status }, sort_by: [{ field, direction: 'desc' }] })).conversations, `${status} by ${field}`).toEqual(want);
        const paged = [];
        for (let offset = 0; offset < want.length; offset += 2) paged.push(...(await list(store, { filters: { status }, sort_by: [{ field, direction: 'desc' }], limit: 2, offset })).conversations);
        expect(paged, `${status} by ${field}, pages of 2`).toEqual(want);
      }
    }
    const repoDb = openDatabase(store.file);
    try {
      const repo = createConversationsRepo(repoDb);
      const okByTurns = conversationsPlan({ project_id: P, filters: { status: 'ok' }, sort_by: [{ field: 'turn_count', direction: 'desc' }], limit: 2, offset: 0 });
      const read = repo.readPlan(okByTurns);
      expect(read).toMatchObject({ statusTest: true });
      // The page is a walk of the turns index, which holds the whole order (migration 0027): no sort.
      const lines = explainConversations(repoDb, read).join('\n');
      expect(lines).toMatch(/USING INDEX conversation_summaries_turns/);
      expect(lines).not.toMatch(/TEMP B-TREE/);
      expect(repo.readPlan({ ...okByTurns, status: 'error', limit: 1000 })).not.toHaveProperty('statusTest');
    } finally {
      repoDb.close();
    }
    const model = await list(store, { filters: { models: ['gpt-4o'] } });
    expect(model.conversations.every((r: { request_models: string[] }) => r.request_models.includes('gpt-4o'))).toBe(true);
    expect(model.total_count).toBeGreaterThan(0);
    // Filter choices: every agent and model of the project.
    const facets = await call(store, 'conversations.facets', { project_id: P });
    expect(facets.agent_names).toEqual([...new Set(all.flatMap((r) => r.agent_names as string[]))].sort());
    expect(facets.request_models).toEqual([...new Set(all.flatMap((r) => r.request_models as string[]))].sort());
    // Search: a substring of a message, with a plain-text snippet and the match's offsets.
    const found = await list(store, { search: 'a-1187' });
    expect(found.conversations.map((r: { kind: string }) => r.kind)).toEqual(['trace']);
    const snip = found.conversations[0].snippet;
    expect(snip.text.slice(snip.matches[0][0], snip.matches[0][1])).toBe('A-1187');
  }, 60_000);

  it('a database made with the schema before migration 0006 migrates, and gets the rows a fresh import makes', async () => {
    const file = await workload();
    const fresh = await freshStore();
    await importFile(fresh.traces, file);
    // Today's schema (migrations 1–5) holding the same spans, written as that schema's writer stored them.
    const oldDir = mkdtempSync(path.join(tmpdir(), 'loupe-old-schema-'));
    const dbFile = path.join(oldDir, 'loupe.db');
    const old = openStoreFile(dbFile);
    migrate(old, migrations.slice(0, 5));
    const src = openStoreFile(fresh.file, { readonly: true });
    const cols = (t: string) => (src.prepare(`SELECT name FROM pragma_table_info('${t}')`).pluck().all() as string[]).filter((c) => c !== 'counted');
    for (const t of ['spans', 'span_details']) {
      const c = cols(t);
      const ins = old.prepare(`INSERT INTO ${t} (${c.join(', ')}) VALUES (${c.map(() => '?').join(', ')})`);
      old.transaction(() => {
        // Safe integers: nanosecond times are beyond 2^53.
        // The span's own agent and conversation, as that schema's writer stored them (today's columns hold the credited ones, 0018).
        const own = (x: string) => (t !== 'spans' ? x : x === 'agent_name' ? 'CASE WHEN counted & 16 THEN NULL ELSE agent_name END' : x === 'conversation_id' ? 'CASE WHEN counted & 32 THEN NULL ELSE conversation_id END' : asOlderWriter(t, x));
        for (const r of src.prepare(`SELECT ${c.map(own).join(', ')} FROM ${t}`).raw().safeIntegers(true).all()) ins.run(r);
      })();
    }
    src.close();
    old.close();
    const migrated = await openTestStores(oldDir);
    try {
      const dump = (s: TestStores) => {
        const db = openStoreFile(s.file, { readonly: true });
        try {
          return {
            counted: db.prepare('SELECT trace_id, span_id, counted FROM spans ORDER BY trace_id, span_id').all(),
            turns: db.prepare('SELECT * FROM conversation_turns ORDER BY conversation_id, trace_id').all(),
            conversations: db.prepare('SELECT * FROM conversation_summaries ORDER BY kind, conversation_id').all().map((r) => ({ ...(r as object), id: 0 })),
            agents: db.prepare('SELECT * FROM agent_summaries ORDER BY agent_name').all(),
            backfill: db.prepare('SELECT * FROM summary_backfill').all(),
          };
        } finally {
          db.close();
        }
      };
      const [a, b] = [dump(migrated), dump(fresh)];
      for (const k of Object.keys(a) as (keyof typeof a)[]) {
        const i = (a[k] as unknown[]).findIndex((x, j) => JSON.stringify(x) !== JSON.stringify((b[k] as unknown[])[j]));
        expect(a[k][i], `${k} row ${i}`).toEqual(b[k][i]);
      }
      expect((await list(migrated)).conversations).toEqual((await list(fresh)).conversations);
    } finally {
      await migrated.close();
    }
  }, 60_000);

  it('stays exact when a trace arrives in two writes and when a span is re-imported with other values', async () => {
    const whole = await freshStore();
    const parts = await freshStore();
    const t = traceBuilder({ seed: 'split', start: '2026-12-02T09:00:00Z' });
    const root = t.span('invoke_agent triage', { durationMs: 2000, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'triage', 'gen_ai.conversation.id': 'c-split', 'gen_ai.usage.input_tokens': 300, 'gen_ai.usage.output_tokens': 40 } });
    t.span('chat gpt-4o-mini', { parent: root, at: 5, durationMs: 500, attributes: chatAttributes({ model: 'gpt-4o-mini', conversationId: 'c-split', input: [{ role: 'user', content: 'first question' }], output: [{ role: 'assistant', content: 'first answer' }], inputTokens: 100, outputTokens: 10 }) });
    t.span('chat gpt-4o-mini', { parent: root, at: 600, durationMs: 500, attributes: chatAttributes({ model: 'gpt-4o-mini', conversationId: 'c-split', input: [{ role: 'user', content: 'first question' }], output: [{ role: 'assistant', content: 'final answer' }], inputTokens: 200, outputTokens: 30 }) });
    const spans = t.spans();
    await importRequest(whole, P, otlpRequest(spans));
    // The root alone first: its own tokens count (no child yet) …
    await importRequest(parts, P, otlpRequest([spans[0]!]));
    expect((await list(parts)).conversations[0]).toMatchObject({ total_input_tokens: 300, first_message: null });
    // … then the children: they take the leaf role, the root's mirrored tokens stop counting.
    await importRequest(parts, P, otlpRequest(spans.slice(1)));
    expect((await list(parts)).conversations).toEqual((await list(whole)).conversations);
    expect((await list(whole)).conversations[0]).toMatchObject({ total_input_tokens: 300, total_output_tokens: 40, last_message: { text: 'final answer' } });
    // A re-import moving the last chat to another conversation: both rows follow.
    const moved = structuredClone(spans[2]!) as { attributes: { key: string; value: { stringValue?: string } }[] };
    moved.attributes.find((a) => a.key === 'gen_ai.conversation.id')!.value = { stringValue: 'c-other' };
    await importRequest(parts, P, otlpRequest([moved]));
    const rows = (await list(parts, { sort_by: [{ field: 'conversation_id', direction: 'asc' }] })).conversations;
    expect(rows.map((r: { conversation_id: string }) => r.conversation_id)).toEqual(['c-other', 'c-split']);
    expect(rows[1]).toMatchObject({ span_count: 2, total_input_tokens: 100, last_message: { text: 'first answer' } });
  });
});

describe('one count everywhere (issue 10 item 4)', () => {
  it('one conversation shows the same tokens and cost in the conversations list, chat header, agents, threads and a group-by', async () => {
    const store = await freshStore();
    const traceIds: string[] = [];
    for (let turn = 0; turn < 2; turn++) {
      const t = traceBuilder({ seed: `count-${turn}`, start: Date.parse('2026-12-03T10:00:00Z') + turn * 60_000 });
      // The agent span mirrors its children's usage (as many SDKs do) and is priced from it: counted once.
      const root = t.span('invoke_agent support', {
        durationMs: 3000,
        attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'support', 'gen_ai.conversation.id': 'c-count', 'gen_ai.request.model': 'gpt-4o-mini', 'gen_ai.provider.name': 'openai', 'gen_ai.usage.input_tokens': 1200, 'gen_ai.usage.output_tokens': 150 },
      });
      // Only the root carries the conversation id in the second turn: its children still belong to the turn.
      const conv = turn === 0 ? 'c-count' : undefined;
      t.span('chat gpt-4o-mini', { parent: root, at: 10, durationMs: 800, attributes: chatAttributes({ model: 'gpt-4o-mini', conversationId: conv, input: [{ role: 'user', content: `question ${turn}` }], output: [{ role: 'assistant', toolCalls: [{ id: `c${turn}`, name: 'lookup', arguments: { id: 1 } }] }], inputTokens: 500, outputTokens: 50 }) });
      t.span('execute_tool lookup', { parent: root, at: 820, durationMs: 30, attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup', 'gen_ai.conversation.id': conv } });
      t.span('chat gpt-4o-mini', { parent: root, at: 900, durationMs: 900, attributes: chatAttributes({ model: 'gpt-4o-mini', conversationId: conv, input: [{ role: 'user', content: `question ${turn}` }], output: [{ role: 'assistant', content: `answer ${turn}` }], inputTokens: 700, outputTokens: 100 }) });
      await importRequest(store, P, t.request());
      traceIds.push(t.traceId);
    }
    const row = (await list(store)).conversations[0];
    const chat = await call(store, 'chat.conversation', { project_id: P, conversation_id: 'c-count' });
    const traces = await Promise.all(traceIds.map((trace_id) => call(store, 'chat.trace', { project_id: P, trace_id })));
    const agent = (await call(store, 'agents.query', { project_id: P, include_costs: true })).agents.find((a: { agent_name: string }) => a.agent_name === 'support');
    const thread = (await call(store, 'threads.query', { project_id: P }))[0];
    const selection = { $expr: { $in: [{ $getField: 'trace_id' }, { $literal: traceIds }] } };
    const byAgent = (await call(store, 'spans.query', {
      project_id: P, query: selection, include_costs: true, group_by: [{ key: 'trace_id', source: 'field' }],
      measures: [{ alias: 'tokens', aggregation: 'sum', value: { key: 'total_tokens', source: 'derived' } }, { alias: 'cost', aggregation: 'sum', value: { key: 'total_cost_usd', source: 'derived' } }],
    })).groups;
    const sumOf = (xs: Record<string, number>[], k: string) => xs.reduce((n, x) => n + x[k]!, 0);

    const expected = { input: 2 * 1200, output: 2 * 150 };
    expect(row).toMatchObject({ total_input_tokens: expected.input, total_output_tokens: expected.output, turn_count: 2 });
    expect(row.total_cost_usd).toBeGreaterThan(0);
    expect(sumOf(chat.turns, 'total_input_tokens')).toBe(expected.input);
    expect(sumOf(chat.turns, 'total_output_tokens')).toBe(expected.output);
    expect(chat.total_cost_usd).toBeCloseTo(row.total_cost_usd, 12);
    expect(sumOf(traces, 'total_input_tokens')).toBe(expected.input);
    expect(sumOf(traces, 'total_cost_usd')).toBeCloseTo(row.total_cost_usd, 12);
    expect(agent).toMatchObject({ total_input_tokens: expected.input, total_output_tokens: expected.output });
    expect(agent.total_cost_usd).toBeCloseTo(row.total_cost_usd, 12);
    expect(thread).toMatchObject({ thread_id: 'c-count', turn_count: row.turn_count });
    expect(sumOf(byAgent, 'total_input_tokens')).toBe(expected.input);
    expect(sumOf(byAgent, 'total_output_tokens')).toBe(expected.output);
    expect(byAgent.reduce((n: number, g: { total_cost_usd: number }) => n + g.total_cost_usd, 0)).toBeCloseTo(row.total_cost_usd, 12);
    expect(byAgent.reduce((n: number, g: { metrics: { tokens: number } }) => n + g.metrics.tokens, 0)).toBe(expected.input + expected.output);
    expect(byAgent.reduce((n: number, g: { metrics: { cost: number } }) => n + g.metrics.cost, 0)).toBeCloseTo(row.total_cost_usd, 12);
  });
});
