/**
 * Group-by agent_name from the span rollups (migration 0012) on real SQLite files: for every measure
 * the rollups keep, every sort and group filter, the rows equal the scan's (the same request with a
 * condition that holds for every span, which the rollups do not answer) — after re-imports that move
 * a span to another conversation, late children that take the counting role, spans without an agent
 * or a conversation, and deletes; the query plan reads the rollups; an older store is rolled up at
 * its next open.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dispatch } from '../../src/main/transport/dispatch.js';
import { EventBus } from '../../src/main/service/events.js';
import type { ServiceContext } from '../../src/main/service/context.js';
import type { Stores } from '../../src/main/store/ports.js';
import { openStores } from '../../src/main/store/index.js';
import { importFile } from '../../src/main/service/ingest/index.js';
import { parseSpansQuery } from '../../src/main/service/analytics/plan/spans.js';
import { spansInput } from '../helpers/analytics-call.js';
import { explainGroup } from '../../src/main/store/sqlite/explain.js';
import { groupQuery } from '../../src/main/store/sqlite/analytics/spans-group.js';
import { ROLLUP_SQL } from '../../src/main/store/sqlite/summaries/rollups.js';
import { windowDays } from '../../src/main/store/sqlite/analytics/rollups.js';
import { generateJsonl } from '../../bench/lib/generate.js';
import { chatAttributes, importRequest, traceBuilder } from '../helpers/otlp.js';
import { ALWAYS, MEASURES, filteredCases, rounded, scanned } from '../helpers/rollup-compare.js';
import { KEYED_ROLLUPS, rollupsAnswer } from '../../src/main/domain/rollups.js';
import { tempStores, type TestStores } from '../helpers/temp-store.js';
import { openStoreFile, refillNameDays } from '../helpers/sqlite.js';

const freshStore = tempStores('loupe-rollups-');
const dir = mkdtempSync(path.join(tmpdir(), 'loupe-rollups-data-'));
const P = 'bench/genai';
const call = async (s: Stores, op: string, body: unknown): Promise<any> =>
  dispatch(op, body, { traces: s.traces, app: s.app, events: new EventBus(), dataDir: tmpdir(), apiKey: 'test' } satisfies ServiceContext);

async function expectSameAsScan(s: Stores, body: Record<string, unknown>): Promise<void> {
  const base = { project_id: P, group_by: [{ key: 'agent_name', source: 'field' }], include_costs: true, limit: 1000, ...body };
  const fromRollups = await call(s, 'spans.query', base);
  const scanned = await call(s, 'spans.query', { ...base, query: ALWAYS });
  expect(rounded(fromRollups), JSON.stringify(body)).toEqual(rounded(scanned));
}

const groupPlan = (body: Record<string, unknown>) => {
  const q = parseSpansQuery(spansInput(body));
  if (q.mode !== 'group') throw new Error('not a group request');
  return q.plan;
};

/**
 * Two instants inside two rollup rows (at 35 % and 70 % of the rows in start order, halfway through
 * each), so the window cuts through units; how many units run across each.
 */
function windowOf(s: TestStores): { window: [string, string]; across: number[] } {
  const db = openStoreFile(s.file, { readonly: true });
  try {
    const rows = db.prepare('SELECT first_ns, last_ns FROM span_rollups WHERE project_id = ? AND last_ns - first_ns > 10000000 ORDER BY first_ns')
      .safeIntegers().all(P) as { first_ns: bigint; last_ns: bigint }[];
    const at = (share: number) => {
      const r = rows[Math.floor(rows.length * share)];
      return r ? new Date(Number((r.first_ns + r.last_ns) / 2n / 1_000_000n)).toISOString() : '2026-10-01T00:30:00.000Z';
    };
    const window: [string, string] = [at(0.35), at(0.7)];
    const across = window.map((iso) => {
      const ns = BigInt(Date.parse(iso)) * 1_000_000n;
      return db.prepare('SELECT COUNT(DISTINCT unit_id) FROM span_rollups WHERE project_id = ? AND first_ns < ? AND last_ns >= ?').pluck().get(P, ns, ns) as number;
    });
    return { window, across };
  } finally {
    db.close();
  }
}

/**
 * Every filtered case (conditions, measure filters, keys, windows over the five key columns) answered
 * from the rollups equals the same request answered by a scan, and is planned on the rollups.
 */
async function expectFilteredSameAsScan(s: TestStores, full: boolean, clean = false): Promise<void> {
  const { window, across } = windowOf(s);
  // The window's edges cut through units: the edge path (their spans read instead of their rows) is exercised.
  if (full) expect(across.every((n) => n > 0), `units across ${window.join(' / ')}: ${across.join(', ')}`).toBe(true);
  // A duration equal to a value is not answered from rows (a row's least and greatest durations tell nothing of
  // the values between), nor a bound on another value than a number: scanned.
  for (const query of [
    { $expr: { $eq: [{ $getField: 'duration_ms' }, { $literal: 5000 }] } },
    { $expr: { $not: { $eq: [{ $getField: 'duration_ms' }, { $literal: 5000 }] } } },
    { $expr: { $gt: [{ $getField: 'duration_ms' }, { $getField: 'total_tokens' }] } },
  ]) expect(rollupsAnswer(groupPlan({ project_id: P, group_by: [{ key: 'agent_name', source: 'field' }], query }), KEYED_ROLLUPS), JSON.stringify(query)).toBe(false);
  const db = openStoreFile(s.file, { readonly: true });
  try {
    for (const { name, body, names, offEdge } of filteredCases(window)) {
      const base = { project_id: P, include_costs: true, limit: 1000, ...body };
      const plan = groupPlan(base);
      expect(rollupsAnswer(plan, KEYED_ROLLUPS), name).toBe(true);
      // The statement reads the rollups; the spans only with a window, the edge units' by index.
      const text = groupQuery(plan, (sql) => db.prepare(sql)).sql;
      if (names) {
        // span_name / duration: the name layer and the per-day layer's groups it does not split, and the spans of
        // stale days and cut days by the start index only.
        // (A window inside one day has no whole day: its spans only.)
        if (windowDays(plan.started_after_ns, plan.started_before_ns).whole || !(body.started_after || body.started_before)) {
          expect(text, name).toMatch(/FROM span_name_days s/);
          expect(text, name).toMatch(/FROM span_rollup_days s/);
        }
        expect(text, name).not.toMatch(/\bspan_rollups\b/);
        expect(text.match(/\bspans s\b[^,]*/g)!.every((m) => m.startsWith('spans s INDEXED BY spans_project_start')), name).toBe(true);
        // Kept rows answer a bound on a bucket edge; one inside a row's durations fails the statement (then scanned).
        const q = groupQuery(plan, (sql) => db.prepare(sql));
        const run = () => db.prepare(q.sql).all(...q.params);
        if (!offEdge) expect(run, name).not.toThrow();
        // (Before the deletes some rows' durations run across 333 or 2,222 ms; after them two rows are left.)
        else if (clean && full) expect(run, name).toThrow(/duration bound falls inside/);
      }
      else if (!body.started_after && !body.started_before) {
        // No window: the per-day layer (decision 0026), never the unit rows or the spans.
        expect(text, name).toMatch(/FROM span_rollup_days s/);
        expect(text, name).not.toMatch(/\bspans\b|\bspan_rollups\b/);
      }
      else {
        expect(text, name).toMatch(/FROM span_rollups s/);
        // The days the window cuts (one or two) read their rollup rows and their edge units' spans by index.
        const seeks = text.match(/JOIN spans s (\w+ BY \w+)/g) ?? [];
        expect(seeks.length === 2 || seeks.length === 4, name).toBe(true);
        expect(new Set(seeks), name).toEqual(new Set(['JOIN spans s INDEXED BY spans_project_conversation', 'JOIN spans s INDEXED BY spans_key']));
        // The edge units drive the seeks (never a walk of the project's spans probing the edge list).
        const lines = explainGroup(db, plan).join('\n');
        expect(lines, name).toMatch(/SEARCH s USING INDEX spans_project_conversation \(project_id=\? AND conversation_id=\?/);
        expect(lines, name).toMatch(/SEARCH s USING INDEX spans_key \(project_id=\? AND trace_id=\?\)/);
        // A day the window cuts reads that day's rollup rows by the day index (never the project's rows).
        expect(lines, name).toMatch(/SEARCH s USING INDEX span_rollups_day \(project_id=\? AND day=\?\)/);
        // The whole days inside it (if any): a range of the layer's day index.
        if (windowDays(plan.started_after_ns, plan.started_before_ns).whole) expect(lines, name).toMatch(/SEARCH s USING INDEX span_rollup_days_day \(project_id=\? AND day[<>]\?/);
      }
      const fromRollups = await call(s, 'spans.query', base);
      if (full) expect(fromRollups.groups.length, name).toBeGreaterThan(0);
      expect(rounded(fromRollups), name).toEqual(rounded(await call(s, 'spans.query', scanned(base))));
    }
  } finally {
    db.close();
  }
}

/** The Spans list's count with a span_name or duration condition (from the name layer) equals the scan's. */
async function expectSpanCountsSameAsScan(s: Stores): Promise<void> {
  const conditions = [
    { $eq: [{ $getField: 'span_name' }, { $literal: 'chat gpt-4o' }] },
    { $gt: [{ $getField: 'duration_ms' }, { $literal: 5000 }] },
    { $gt: [{ $getField: 'duration_ms' }, { $literal: 777 }] },
  ];
  for (const c of conditions) {
    const base = { project_id: P, limit: 5, offset: 0, query: { $expr: { $and: [c] } } };
    const kept = await call(s, 'spans.query', base);
    const scanned = await call(s, 'spans.query', { ...base, query: { $expr: { $and: [c, ALWAYS.$expr] } } });
    expect(kept.total_count, JSON.stringify(c)).toBe(scanned.total_count);
  }
}

/** Traces that make the rollups work: no agent, no conversation, two conversations, a late child. */
async function edgeTraces(s: Stores, convOfB = 'edge-b'): Promise<void> {
  const t = traceBuilder({ seed: 'edge-1', start: '2026-12-02T10:00:00Z' });
  const root = t.span('invoke_agent edge', { durationMs: 900, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'edge', 'gen_ai.conversation.id': 'edge-a', 'gen_ai.usage.input_tokens': 50 } });
  t.span('chat m', { parent: root, at: 10, durationMs: 300, status: 'ERROR', attributes: chatAttributes({ model: 'gpt-4o', input: [{ role: 'user', content: 'x' }], output: [{ role: 'assistant', content: 'y' }], inputTokens: 50, outputTokens: 5, conversationId: convOfB }) });
  t.span('tool t', { parent: root, at: 400, durationMs: 0, attributes: { 'gen_ai.operation.name': 'execute_tool' } });
  await importRequest(s, P, t.request());
  const u = traceBuilder({ seed: 'edge-2', start: '2026-12-02T11:00:00Z' });
  const r2 = u.span('orphan work', { durationMs: 100 });
  u.span('chat m', { parent: r2, at: 5, durationMs: 50, attributes: chatAttributes({ model: 'gpt-4o-mini', inputTokens: 7, outputTokens: 3, agentName: 'loner' }) });
  await importRequest(s, P, u.request());
}

describe('span rollups', () => {
  it('answer group-by agent_name exactly as the scan does, through re-imports and deletes', async () => {
    const s = await freshStore();
    const file = path.join(dir, 'gen.jsonl');
    await generateJsonl(file, { conversations: 25, agents: 4, minSpans: 1500, seed: 9 });
    await importFile(s.traces, file);
    await edgeTraces(s);
    const check = async (full = true) => {
      await expectSameAsScan(s, { measures: MEASURES });
      for (const sort of [{ field: 'span_count', direction: 'desc' }, { field: 'agent_name', direction: 'asc' }, { field: 'total_cost_usd', direction: 'asc' }, { field: 'last_seen', direction: 'desc' }]) {
        await expectSameAsScan(s, { measures: MEASURES.slice(0, 4), sort_by: [sort], limit: 3, offset: 1 });
      }
      await expectSameAsScan(s, { measures: [{ alias: 't', aggregation: 'sum', value: { key: 'total_tokens', source: 'derived' } }], group_filters: [{ measure: { aggregation: 'sum', value: { key: 'total_tokens', source: 'derived' } }, min: 1 }] });
      await expectSameAsScan(s, { measures: [], include_costs: false });
      await expectFilteredSameAsScan(s, full);
      // The name layer's days the writes left stale were read from their spans above; recomputed now, they
      // equal their rebuild from all spans, and every case again equals the scan, read from kept rows.
      const names = refillNameDays(s.file);
      expect(names.stale).toBeGreaterThan(0);
      expect(names.kept).toEqual(names.rebuilt);
      await expectFilteredSameAsScan(s, full, true);
      await expectSpanCountsSameAsScan(s);
    };
    await check();
    // A span moves to another conversation; a late child takes the counting role from its parent.
    await edgeTraces(s, 'edge-c');
    const t = traceBuilder({ seed: 'edge-1', start: '2026-12-02T10:00:00Z' });
    const root = t.span('invoke_agent edge', { durationMs: 900, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'edge', 'gen_ai.conversation.id': 'edge-a', 'gen_ai.usage.input_tokens': 50 } });
    t.span('late chat', { parent: root, at: 500, durationMs: 100, attributes: chatAttributes({ model: 'gpt-4o', inputTokens: 11, outputTokens: 2, agentName: 'edge', conversationId: 'edge-a' }) });
    await importRequest(s, P, t.request());
    await check();
    // Deletes: a project's oldest traces, then a trace by id.
    await call(s, 'spans.delete', { project_id: P, older_than: '2026-10-01T02:00:00Z' });
    await call(s, 'spans.delete', { project_id: P, trace_ids: [t.traceId] });
    await check(false);
    // The plan reads the rollups, not the spans.
    const q = parseSpansQuery(spansInput({ project_id: P, group_by: [{ key: 'agent_name', source: 'field' }], measures: MEASURES.slice(0, 3), limit: 10 }));
    if (q.mode !== 'group') throw new Error('not a group request');
    const plan = q.plan;
    const db = openStoreFile(s.file, { readonly: true });
    try {
      expect(groupQuery(plan, (sql) => db.prepare(sql)).sql).toMatch(/FROM span_rollup_days s/);
      const lines = explainGroup(db, plan).join('\n');
      expect(lines).not.toMatch(/\bspans\b|\bspan_rollups\b/);
      // Recomputing a unit seeks its spans (never a scan of the project through the covering index).
      const unitPlan = (sql: string) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(P, 'x') as { detail: string }[]).map((r) => r.detail).join('\n');
      expect(unitPlan(ROLLUP_SQL.conversationUnit)).toMatch(/SEARCH s USING INDEX spans_project_conversation \(project_id=\? AND conversation_id=\?\)/);
      expect(unitPlan(ROLLUP_SQL.traceUnit)).toMatch(/SEARCH s USING INDEX spans_key \(project_id=\? AND trace_id=\?\)/);
      expect(unitPlan(ROLLUP_SQL.conversationsNow)).toMatch(/SEARCH spans USING INDEX spans_key \(project_id=\? AND trace_id=\?\)/);
      // Recomputing a day's layer rows of some key combinations seeks that day's rollup rows and the conversations' numbers.
      const dayPlan = (sql: string) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(P, 1, '[]') as { detail: string }[]).map((r) => r.detail).join('\n');
      expect(dayPlan(ROLLUP_SQL.addGroups)).toMatch(/SEARCH r USING INDEX span_rollups_day \(project_id=\? AND day=\?\)/);
      expect(dayPlan(ROLLUP_SQL.addGroups)).toMatch(/SEARCH c USING COVERING INDEX conversation_summaries_key/);
      expect(dayPlan(ROLLUP_SQL.removeGroups)).toMatch(/SEARCH span_rollup_days USING INDEX span_rollup_days_day \(project_id=\? AND day=\?\)/);
    } finally {
      db.close();
    }
  }, 240_000);

  it('an older store (rollups dropped, as before migration 0012) is rolled up at its next open', async () => {
    const s = await freshStore();
    const file = path.join(dir, 'gen-old.jsonl');
    await generateJsonl(file, { conversations: 10, agents: 3, minSpans: 500, seed: 4 });
    await importFile(s.traces, file);
    await edgeTraces(s);
    const body = { project_id: P, group_by: [{ key: 'agent_name', source: 'field' }], include_costs: true, limit: 100, measures: MEASURES };
    const before = await call(s, 'spans.query', body);
    const f = s.file;
    await s.close();
    const db = openStoreFile(f);
    db.exec(`DELETE FROM span_rollups; INSERT INTO summary_backfill (name) VALUES ('rollups')`);
    db.close();
    const reopened = await openStores(path.dirname(f));
    try {
      expect(rounded(await call(reopened, 'spans.query', body))).toEqual(rounded(before));
    } finally {
      await reopened.close();
    }
  }, 60_000);
});
