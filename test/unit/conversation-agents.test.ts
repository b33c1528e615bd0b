/**
 * Counts and filters read from kept rows instead of a pass over a store-sized set (issue 19 item 2):
 * the conversations list filtered by agent (conversation_agents, migration 0026) and by request model
 * (conversation_models, 0029), the list's count when
 * nothing filters it (conversation_counts, 0026), the Spans page's first-page count and the Settings
 * page's per-project spans (project_summaries, 0009). Each answer is compared with the one computed
 * from the rows themselves after imports, a trace arriving in two writes with a late child of another
 * agent, a re-import that moves a span to another agent and conversation, deletes by trace, by age
 * and of a whole project, and after an older store migrates.
 */
import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dispatch } from '../../src/main/transport/dispatch.js';
import { importFile } from '../../src/main/service/ingest/index.js';
import { conversationsPlan } from '../../src/main/service/conversations/handlers.js';
import { generateJsonl } from '../../bench/lib/generate.js';
import { chatAttributes, importRequest, otlpRequest, traceBuilder } from '../helpers/otlp.js';
import { openTestStores, tempStores, type TestStores } from '../helpers/temp-store.js';
import { openDatabase } from '../../src/main/store/sqlite/open.js';
import { explainConversations } from '../../src/main/store/sqlite/explain.js';
import { conversationIndexDiff } from '../helpers/sqlite.js';
import { contextOf } from '../helpers/analytics-call.js';

const freshStore = tempStores('loupe-conversation-agents-');
const P = 'bench/genai';
const Q = 'other/project';
const call = (store: TestStores, op: string, body: unknown): Promise<any> => dispatch(op, body, contextOf(store)) as Promise<any>;
/** An instant in ns as the API takes it (ISO with nanoseconds). */
const isoOfNs = (ns: bigint) => `${new Date(Number(ns / 1_000_000n)).toISOString().slice(0, 19)}.${String(ns % 1_000_000_000n).padStart(9, '0')}Z`;
const list = (store: TestStores, body: Record<string, unknown> = {}, project = P) => call(store, 'conversations.list', { project_id: project, limit: 1000, ...body });

/** A trace of `agent` in conversation `conv` of project `project`: an invocation and a chat under it. */
function agentTrace(seed: string, agent: string, conv: string) {
  const t = traceBuilder({ seed, start: '2026-12-03T10:00:00Z' });
  const root = t.span(`invoke_agent ${agent}`, { durationMs: 900, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': agent, 'gen_ai.conversation.id': conv } });
  t.span('chat gpt-4o-mini', { parent: root, at: 5, durationMs: 300, attributes: chatAttributes({ model: 'gpt-4o-mini', conversationId: conv, input: [{ role: 'user', content: `hello ${seed}` }], output: [{ role: 'assistant', content: 'hi' }], inputTokens: 20, outputTokens: 3 }) });
  return t;
}

/** Every answer that reads kept rows equals the one computed from the rows it stands for. */
async function expectExact(store: TestStores, step: string): Promise<void> {
  const diff = conversationIndexDiff(store.file);
  expect(diff.kept, step).toEqual(diff.computed);
  for (const project of [P, Q]) {
    const all = (await list(store, {}, project)).conversations as { conversation_id: string; kind: string; agent_names: string[]; request_models: string[] }[];
    const key = (r: { conversation_id: string; kind: string }) => `${r.kind}:${r.conversation_id}`;
    // The count of an unfiltered page that does not hold every row (limit 1 reads the kept count).
    expect((await list(store, { limit: 1 }, project)).total_count, `${step}: ${project} count`).toBe(all.length);
    const agents = [...new Set(all.flatMap((r) => r.agent_names))];
    for (const names of [...agents.map((a) => [a]), agents.slice(0, 2), ['nobody'], []]) {
      const want = all.filter((r) => r.agent_names.some((a) => names.includes(a)));
      for (const sort_by of [undefined, [{ field: 'total_cost_usd', direction: 'desc' }]]) {
        const got = await list(store, { filters: { agent_names: names }, ...(sort_by ? { sort_by } : {}) }, project);
        expect(got.conversations.map(key).sort(), `${step}: ${project} ${names.join('+')}`).toEqual(want.map(key).sort());
        expect(got.total_count, `${step}: ${project} ${names.join('+')} count`).toBe(want.length);
        if (want.length > 1) expect((await list(store, { filters: { agent_names: names }, limit: 1 }, project)).total_count).toBe(want.length);
      }
    }
    // The same for request models (conversation_models, migration 0029), alone and with an agent.
    const models = [...new Set(all.flatMap((r) => r.request_models))];
    for (const names of [...models.map((m) => [m]), models.slice(0, 2), ['no-model'], []]) {
      for (const agent of [null, ...agents.slice(0, 1)]) {
        const want = all.filter((r) => r.request_models.some((m) => names.includes(m)) && (agent === null || r.agent_names.includes(agent)));
        const filters = { models: names, ...(agent !== null ? { agent_names: [agent] } : {}) };
        const what = `${step}: ${project} model ${names.join('+')}${agent !== null ? ` agent ${agent}` : ''}`;
        for (const sort_by of [undefined, [{ field: 'turn_count', direction: 'desc' }]]) {
          const got = await list(store, { filters, ...(sort_by ? { sort_by } : {}) }, project);
          expect(got.conversations.map(key).sort(), what).toEqual(want.map(key).sort());
          expect(got.total_count, `${what} count`).toBe(want.length);
        }
        if (want.length > 1) expect((await list(store, { filters, limit: 1 }, project)).total_count, `${what} limit 1`).toBe(want.length);
      }
    }
  }
  // The Spans page's first page (nothing filters it) and the Settings page's spans per project.
  const db = new Database(store.file, { readonly: true });
  const counted = db.prepare('SELECT project_id, COUNT(*) AS span_count FROM spans GROUP BY project_id ORDER BY project_id').all() as { project_id: string; span_count: number }[];
  db.close();
  for (const { project_id, span_count } of counted) {
    const page = await call(store, 'spans.query', { project_id, limit: 3, offset: 0 });
    expect(page.total_count, `${step}: spans of ${project_id}`).toBe(span_count);
  }
  // The Spans page's filters on the rollups' key columns (as the filter bar sends them: an $and of rows),
  // alone and with a time window: the count is summed from the rollup rows (rollupSpanCount), the page is
  // the spans themselves. Each compared with a count of the rows.
  const rows = new Database(store.file, { readonly: true });
  try {
    for (const { project_id } of counted) {
      const values = rows.prepare(`SELECT agent_name, operation_name, status_code, request_model, provider_name, MIN(start_ns) AS lo, MAX(start_ns) AS hi
        FROM spans WHERE project_id = ? GROUP BY 1, 2, 3, 4, 5 ORDER BY COUNT(*) DESC LIMIT 1`).get(project_id) as Record<string, string | bigint | null> | undefined;
      if (!values) continue;
      // One trace's spans (read by its key index, spans_key): every span of it, newest first.
      const trace = rows.prepare('SELECT trace_id FROM spans WHERE project_id = ? ORDER BY id DESC LIMIT 1').pluck().get(project_id) as string;
      const ofTrace = rows.prepare('SELECT span_id FROM spans WHERE project_id = ? AND trace_id = ? ORDER BY start_ns DESC, id DESC').pluck().all(project_id, trace);
      const traceQuery = { $expr: { $and: [{ $eq: [{ $getField: 'trace_id' }, { $literal: trace }] }] } };
      const traceList = await call(store, 'spans.query', { project_id, limit: 100, offset: 0, query: traceQuery, sort_by: [{ field: 'started_at', direction: 'desc' }] });
      expect(traceList.spans.map((x: { span_id: string }) => x.span_id), `${step}: trace ${trace}`).toEqual(ofTrace);
      expect(traceList.total_count).toBe(ofTrace.length);
      const lo = BigInt(values.lo as bigint), hi = BigInt(values.hi as bigint);
      const mid = lo + (hi - lo) / 3n;
      for (const field of ['agent_name', 'operation_name', 'status_code', 'request_model', 'provider_name'] as const) {
        const value = values[field];
        if (value == null) continue;
        for (const window of [null, [mid, hi]] as const) {
          const want = rows.prepare(`SELECT COUNT(*) FROM spans WHERE project_id = ? AND ${field} = ?${window ? ' AND start_ns >= ? AND start_ns < ?' : ''}`)
            .pluck().get(project_id, value, ...(window ?? [])) as number;
          const page = await call(store, 'spans.query', {
            project_id, limit: 2, offset: 0, query: { $expr: { $and: [{ $eq: [{ $getField: field }, { $literal: value }] }] } },
            ...(window ? { started_after: isoOfNs(window[0]), started_before: isoOfNs(window[1]) } : {}),
          });
          expect(page.total_count, `${step}: spans of ${project_id} where ${field} = ${value}${window ? ' in a window' : ''}`).toBe(want);
          expect(page.spans.length).toBe(Math.min(2, want));
        }
      }
    }
  } finally {
    rows.close();
  }
  const storage = (await call(store, 'system.storage', {})) as { projects: { project_id: string; span_count: number }[] };
  expect(storage.projects.map((p) => ({ project_id: p.project_id, span_count: p.span_count })), step).toEqual(counted);
}

describe('conversation rows by agent and model, and kept counts (migrations 0026, 0029)', () => {
  it('stay equal to the rows they stand for across imports, late children, re-imports and deletes', async () => {
    const store = await freshStore();
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'loupe-conversation-agents-data-')), 'gen.jsonl');
    await generateJsonl(file, { conversations: 16, agents: 4, minSpans: 500, seed: 19 });
    await importFile(store.traces, file);
    for (let i = 0; i < 3; i++) await importRequest(store, Q, agentTrace(`q-${i}`, i ? 'helper' : 'triage', `q-conv-${i % 2}`).request());
    expect(conversationIndexDiff(store.file).agentRows).toBeGreaterThan(16);
    await expectExact(store, 'imported');

    // A trace in two writes: its first spans, then a late child of another agent joins the conversation's agents.
    const t = agentTrace('late', 'triage', 'c-late');
    const late = t.span('chat gpt-4o', { parent: t.spans()[0]!.spanId as string, at: 400, durationMs: 100, attributes: { ...chatAttributes({ model: 'gpt-4o', conversationId: 'c-late', input: [{ role: 'user', content: 'more' }], output: [{ role: 'assistant', content: 'ok' }], inputTokens: 5, outputTokens: 1 }), 'gen_ai.agent.name': 'late-agent' } });
    const spans = t.spans();
    await importRequest(store, P, otlpRequest(spans.filter((s) => s.spanId !== late.spanId)));
    await expectExact(store, 'first write');
    await importRequest(store, P, otlpRequest(spans.filter((s) => s.spanId === late.spanId)));
    expect((await list(store, { filters: { agent_names: ['late-agent'] } })).total_count).toBe(1);
    await expectExact(store, 'late child');

    // A re-import that moves the late child to another agent and conversation: both rows follow.
    const moved = structuredClone(spans.find((s) => s.spanId === late.spanId)!) as { attributes: { key: string; value: { stringValue?: string } }[] };
    moved.attributes.find((a) => a.key === 'gen_ai.agent.name')!.value = { stringValue: 'moved-agent' };
    moved.attributes.find((a) => a.key === 'gen_ai.conversation.id')!.value = { stringValue: 'c-moved' };
    await importRequest(store, P, otlpRequest([moved]));
    expect((await list(store, { filters: { agent_names: ['late-agent'] } })).total_count).toBe(0);
    expect((await list(store, { filters: { agent_names: ['moved-agent'] } })).conversations.map((r: { conversation_id: string }) => r.conversation_id)).toEqual(['c-moved']);
    await expectExact(store, 'moved');

    // Deletes: some traces, then by age, then a whole project.
    const ctx = contextOf(store);
    const db = new Database(store.file, { readonly: true });
    const traces = db.prepare('SELECT trace_id FROM trace_summaries WHERE project_id = ? ORDER BY trace_id').pluck().all(P) as string[];
    db.close();
    await dispatch('spans.delete', { project_id: P, trace_ids: traces.filter((_, i) => i % 3 === 0) }, ctx);
    await expectExact(store, 'deleted every third trace');
    const page = await list(store, { sort_by: [{ field: 'last_activity', direction: 'asc' }] });
    const middle = page.conversations[Math.floor(page.conversations.length / 2)].last_activity as string;
    const r = (await dispatch('spans.delete', { project_id: P, older_than: middle }, ctx)) as { deleted_traces: number };
    expect(r.deleted_traces).toBeGreaterThan(0);
    await expectExact(store, 'deleted by age');
    await dispatch('spans.delete', { project_id: Q }, ctx);
    expect(conversationIndexDiff(store.file).kept).toMatchObject({ counts: [{ project_id: P }] });
    await expectExact(store, 'deleted a project');
  }, 120_000);

  it('the one-agent list reads the agent index and a page in the sort order', async () => {
    const store = await freshStore();
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'loupe-conversation-agents-data-')), 'gen.jsonl');
    await generateJsonl(file, { conversations: 6, agents: 3, minSpans: 120, seed: 5 });
    await importFile(store.traces, file);
    const db = openDatabase(store.file);
    try {
      const plan = explainConversations(db, conversationsPlan({ project_id: P, filters: { status: 'all', agent_names: ['agent-01'] }, sort_by: [{ field: 'total_cost_usd', direction: 'desc' }], limit: 200, offset: 0 }));
      // The sort's index, each row tested against the agent's range of conversation_agents (its primary key).
      expect(plan.join('\n')).toMatch(/USING INDEX conversation_summaries_cost/);
      expect(plan.join('\n')).toMatch(/SEARCH a USING PRIMARY KEY \(project_id=\? AND agent_name=\?\)/);
      // One model: the same, through conversation_models (0029) — no row's model list is read.
      const models = explainConversations(db, conversationsPlan({ project_id: P, filters: { status: 'all', models: ['gpt-4o'] }, sort_by: [{ field: 'last_activity', direction: 'desc' }], limit: 200, offset: 0 })).join('\n');
      expect(models).toMatch(/SEARCH m USING PRIMARY KEY \(project_id=\? AND request_model=\?\)/);
      expect(models).not.toMatch(/json_each|SCAN c\b/);
    } finally {
      db.close();
    }
  });

  it('a store made before migration 0026 gets the same rows at its next open', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'loupe-conversation-agents-old-'));
    const file = path.join(dir, 'gen.jsonl');
    await generateJsonl(file, { conversations: 8, agents: 3, minSpans: 200, seed: 7 });
    let store = await openTestStores(dir);
    await importFile(store.traces, file);
    await importRequest(store, Q, agentTrace('q-old', 'helper', 'q-old').request());
    const fresh = conversationIndexDiff(store.file);
    await store.close();
    // Back to the schema before 0026: its tables and triggers gone, 0027's indexes as they were, 0028's day
    // split and layer gone, 0029's model rows gone, 0030's rollup keys gone, none of them applied.
    const raw = new Database(path.join(dir, 'loupe.db'));
    raw.exec(`DROP TRIGGER conversation_row_added; DROP TRIGGER conversation_agents_changed; DROP TRIGGER conversation_row_removed;
      DROP TABLE conversation_agents; DROP TABLE conversation_counts;
      DROP INDEX conversation_summaries_turns; CREATE INDEX conversation_summaries_turns ON conversation_summaries (project_id, turn_count);
      DROP INDEX conversation_summaries_errors; CREATE INDEX conversation_summaries_errors ON conversation_summaries (project_id, error_count);
      DROP TABLE span_rollup_days; DROP INDEX span_rollups_day; ALTER TABLE span_rollups DROP COLUMN day;
      ALTER TABLE span_rollups DROP COLUMN span_kind; ALTER TABLE span_rollups DROP COLUMN response_model;
      DROP TRIGGER conversation_models_added; DROP TRIGGER conversation_models_changed; DROP TRIGGER conversation_models_removed;
      DROP TABLE conversation_models; DROP TABLE span_name_days; DROP TABLE span_name_stale;
      DELETE FROM schema_migrations WHERE version >= 26;`);
    raw.close();
    store = await openTestStores(dir);
    const migrated = conversationIndexDiff(store.file);
    expect(migrated.kept).toEqual(migrated.computed);
    expect(migrated.kept).toEqual(fresh.kept);
    await expectExact(store, 'migrated');
    await store.close();
  });
});
