/**
 * The per-day layer over the keyed rollups (migration 0028, decision 0026) on real SQLite files: a
 * group-by without a time window read from `span_rollup_days` equals the same request answered by a
 * scan, and the layer equals its own rebuild from all rollup rows (so the conversation bitmaps and the
 * per-day bounds and lists are exactly what the rows hold); windowed requests read the layer for the
 * whole days inside the window and the rollup rows of the days it cuts — with conversations that run across
 * midnight, re-imports that move a span to another day or key, a late child on the next day, deletes
 * by trace, by age (an edge inside a day) and of a whole project, and an older store migrated to 0028.
 * The rollup rows themselves equal their rebuild when traces first seen in a batch take their units from it.
 */
import { describe, expect, it } from 'vitest';
import path from 'node:path';
import { dispatch } from '../../src/main/transport/dispatch.js';
import type { Stores } from '../../src/main/store/ports.js';
import { openStores } from '../../src/main/store/index.js';
import { ROLLUP_SQL } from '../../src/main/store/sqlite/summaries/rollups.js';
import { decodeUnits, encodeUnits } from '../../src/main/store/sqlite/unit-bits.js';
import { windowDays } from '../../src/main/store/sqlite/analytics/rollups.js';
import { chatAttributes, importRequest, otlpRequest, traceBuilder } from '../helpers/otlp.js';
import { MEASURES, filteredCases, rounded, scanned } from '../helpers/rollup-compare.js';
import { openTestStores, tempStores, type TestStores } from '../helpers/temp-store.js';
import { openStoreFile, refillNameDays } from '../helpers/sqlite.js';
import { contextOf } from '../helpers/analytics-call.js';

const freshStore = tempStores('loupe-rollup-days-');
const P = 'days/a';
const Q = 'days/b';
const call = async (s: Stores, op: string, body: unknown): Promise<any> => dispatch(op, body, contextOf(s));

/**
 * Windows over the nights' data: edges inside days, on day boundaries, around midnight inside one
 * conversation, one boundary and one cut in the same day, and both edges inside one day.
 */
const WINDOWS: [string, string][] = [
  ['2026-12-01T12:00:00Z', '2026-12-03T06:00:00Z'],
  ['2026-12-01T00:00:00Z', '2026-12-03T00:00:00Z'],
  ['2026-12-01T23:59:59Z', '2026-12-02T00:00:00.700Z'],
  ['2026-12-02T00:00:00Z', '2026-12-02T00:00:01Z'],
  ['2026-12-02T23:59:58.050Z', '2026-12-02T23:59:59.900Z'],
];
const windowed = (c: { body: Record<string, unknown> }) => !!(c.body.started_after || c.body.started_before);
/** Every group request of 0021's cases (with each window above), plus the Spans page's group view. */
const CASES = [
  { name: 'group view', body: { group_by: [{ key: 'agent_name', source: 'field' }], measures: MEASURES } },
  ...filteredCases(WINDOWS[0]!).filter((c) => !windowed(c)),
  ...WINDOWS.flatMap((w) => filteredCases(w).filter(windowed).map((c) => ({ name: `${c.name} ${w.join(' / ')}`, body: c.body }))),
];

async function expectSameAsScan(s: Stores, project: string, full = false): Promise<void> {
  for (const { name, body } of CASES) {
    const base = { project_id: project, include_costs: true, limit: 1000, ...body };
    const fromLayer = await call(s, 'spans.query', base);
    // Before any delete every case has groups (the comparison is not of two empty answers).
    if (full) expect(fromLayer.groups.length, `${project}: ${name}`).toBeGreaterThan(0);
    expect(rounded(fromLayer), `${project}: ${name}`).toEqual(rounded(await call(s, 'spans.query', scanned(base))));
  }
}

const LAYER = `SELECT project_id, day, agent_name, operation_name, status_code, request_model, provider_name, span_kind, response_model, span_count, first_ns, last_ns,
  last_end_ns, dur_ns, dur_ms_sum, dur_ms_n, dur_ms_min, dur_ms_max, in_tok, out_tok, tok_sum, tok_n, tok_min, tok_max, round(cost, 9) AS cost,
  cost_n, agent_versions, conversation_names, hex(units) AS units FROM span_rollup_days
  ORDER BY project_id, day, agent_name, operation_name, status_code, request_model, provider_name`;

/** Rows of `query` as maintained equal the same rows after every rollup is rebuilt from all spans (rolled back after). */
function expectAsRebuilt(s: TestStores, query: string): unknown[] {
  const db = openStoreFile(s.file);
  try {
    const kept = db.prepare(query).safeIntegers().all();
    db.exec('BEGIN');
    try {
      for (const sql of ROLLUP_SQL.rebuild) db.prepare(sql).run();
      expect(kept).toEqual(db.prepare(query).safeIntegers().all());
    } finally {
      db.exec('ROLLBACK');
    }
    return kept;
  } finally {
    db.close();
  }
}

/** The layer as maintained equals the layer rebuilt from every rollup row. */
const expectLayerAsRebuilt = (s: TestStores): unknown[] => expectAsRebuilt(s, LAYER);

/** A conversation with a turn at 23:59 whose spans run past midnight, and a trace without one. */
async function midnightTraces(s: Stores, project: string, seed: string, day: string, model = 'gpt-4o'): Promise<string> {
  const t = traceBuilder({ seed, start: `${day}T23:59:58Z` });
  const root = t.span('invoke_agent night', { durationMs: 5000, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'night', 'gen_ai.conversation.id': `${seed}-conv` } });
  t.span('chat before', { parent: root, at: 100, durationMs: 500, kind: 'CLIENT', attributes: chatAttributes({ model, inputTokens: 10, outputTokens: 2, agentName: 'night', conversationId: `${seed}-conv` }) });
  t.span('chat after', { parent: root, at: 2500, durationMs: 900, status: 'ERROR', kind: 'CLIENT', attributes: chatAttributes({ model: 'o3-mini', inputTokens: 20, outputTokens: 4, agentName: 'night', conversationId: `${seed}-conv` }) });
  t.span('tool after', { parent: root, at: 3600, durationMs: 10, attributes: { 'gen_ai.operation.name': 'execute_tool' } });
  await importRequest(s, project, t.request());
  const u = traceBuilder({ seed: `${seed}-loose`, start: `${day}T23:59:59.500Z` });
  const r = u.span('work', { durationMs: 1000 });
  u.span('chat m', { parent: r, at: 700, durationMs: 50, kind: 'CLIENT', attributes: chatAttributes({ model: 'gpt-4o-mini', inputTokens: 7, outputTokens: 3, agentName: 'loner' }) });
  await importRequest(s, project, u.request());
  return t.traceId;
}

const ROLLUP_ROWS = `SELECT project_id, unit_kind, unit_id, day, agent_name, operation_name, status_code, request_model, provider_name,
  span_count, first_ns, last_ns, last_end_ns, dur_ns, in_tok, out_tok, tok_sum, round(cost, 9) AS cost, agent_versions, conversation_names
  FROM span_rollups ORDER BY project_id, unit_kind, unit_id, day, agent_name, operation_name, status_code, request_model, provider_name`;

/** The rollup rows as maintained equal the rows rebuilt from all spans: their units (kind:id). */
const unitsAsRebuilt = (s: TestStores): string[] =>
  [...new Set((expectAsRebuilt(s, ROLLUP_ROWS) as { unit_kind: bigint; unit_id: string }[]).map((r) => `${r.unit_kind}:${r.unit_id}`))].sort();

describe('per-day rollup layer', () => {
  it('rolls up traces first seen in a batch from the batch, and traces already stored by reading them back', async () => {
    // One request (one batch), every trace new: one in a conversation (its own unit has no rows and is
    // not recomputed), one with a second root outside the conversation (credited to the trace's
    // conversation all the same, domain/accounting.ts), one without any (its own unit only).
    const whole = traceBuilder({ seed: 'fresh-whole', start: '2026-12-04T09:00:00Z' });
    const wr = whole.span('invoke_agent a', { durationMs: 800, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'a', 'gen_ai.conversation.id': 'fresh-conv' } });
    whole.span('chat a', { parent: wr, at: 10, durationMs: 300, attributes: chatAttributes({ model: 'gpt-4o', inputTokens: 5, outputTokens: 1, agentName: 'a', conversationId: 'fresh-conv' }) });
    const mixed = traceBuilder({ seed: 'fresh-mixed', start: '2026-12-04T09:05:00Z' });
    const mr = mixed.span('request', { durationMs: 900 });
    mixed.span('chat b', { parent: mr, at: 20, durationMs: 200, attributes: chatAttributes({ model: 'o3-mini', inputTokens: 8, outputTokens: 2, agentName: 'b', conversationId: 'mixed-conv' }) });
    mixed.span('background flush', { at: 950, durationMs: 40 });
    const loose = traceBuilder({ seed: 'fresh-loose', start: '2026-12-04T09:10:00Z' });
    const lr = loose.span('work', { durationMs: 400 });
    loose.span('chat c', { parent: lr, at: 30, durationMs: 100, attributes: chatAttributes({ model: 'gpt-4o-mini', inputTokens: 3, outputTokens: 1 }) });
    const s = await freshStore();
    await importRequest(s, P, otlpRequest([...whole.spans(), ...mixed.spans(), ...loose.spans()]));
    expect(unitsAsRebuilt(s)).toEqual(['0:fresh-conv', '0:mixed-conv', `1:${loose.traceId}`]);
    expectLayerAsRebuilt(s);
    await expectSameAsScan(s, P);
    // The stored conversation-less trace gets a conversation (read back: its own unit's rows go), beside a new trace.
    const moved = traceBuilder({ seed: 'fresh-loose', start: '2026-12-04T09:10:00Z' });
    const mvr = moved.span('work', { durationMs: 400 });
    moved.span('chat c', { parent: mvr, at: 30, durationMs: 100, attributes: chatAttributes({ model: 'gpt-4o-mini', inputTokens: 3, outputTokens: 1, conversationId: 'late-conv' }) });
    const other = traceBuilder({ seed: 'fresh-other', start: '2026-12-05T01:00:00Z' });
    other.span('work', { durationMs: 70 });
    await importRequest(s, P, otlpRequest([...moved.spans(), ...other.spans()]));
    expect(unitsAsRebuilt(s)).toEqual(['0:fresh-conv', '0:late-conv', '0:mixed-conv', `1:${other.traceId}`]);
    expectLayerAsRebuilt(s);
    await expectSameAsScan(s, P);
  }, 60_000);


  it('equals the scan and its own rebuild through midnight, day and key moves, late children and deletes', async () => {
    const s = await freshStore();
    const traces: string[] = [];
    for (const [i, day] of ['2026-11-30', '2026-12-01', '2026-12-02', '2026-12-03'].entries()) {
      traces.push(await midnightTraces(s, P, `n${i}`, day));
      await midnightTraces(s, Q, `q${i}`, day);
    }
    const check = async (full = false) => {
      const layer = expectLayerAsRebuilt(s);
      expect(layer.length).toBeGreaterThan(0);
      await expectSameAsScan(s, P, full);
      await expectSameAsScan(s, Q, full);
      // The name layer (0031): its stale days recomputed from their spans equal its rebuild; the cases
      // again, now read from its kept rows.
      const names = refillNameDays(s.file);
      expect(names.kept).toEqual(names.rebuilt);
      await expectSameAsScan(s, P);
      await expectSameAsScan(s, Q);
    };
    // Writes recomputed the days they no longer touched (one a write): fewer stale days than days with spans.
    const days = openStoreFile(s.file, { readonly: true });
    try {
      const stale = days.prepare('SELECT COUNT(*) FROM span_name_stale').pluck().get() as number;
      const all = days.prepare('SELECT COUNT(DISTINCT project_id || day) FROM span_rollup_days').pluck().get() as number;
      expect(stale).toBeGreaterThan(0);
      expect(stale).toBeLessThan(all);
    } finally {
      days.close();
    }
    await check(true);
    // The conversation of a night has rows on two days; its bitmap bit is in both days' rows.
    const db = openStoreFile(s.file, { readonly: true });
    try {
      const days = db.prepare(`SELECT COUNT(DISTINCT day) FROM span_rollups WHERE project_id = ? AND unit_id = 'n0-conv'`).pluck().get(P);
      expect(days).toBe(2);
    } finally {
      db.close();
    }
    // A re-import moves the whole trace of night 1 to another day and another model (rows leave two days).
    const moved = traceBuilder({ seed: 'n1', start: '2026-12-05T12:00:00Z' });
    const mroot = moved.span('invoke_agent night', { durationMs: 5000, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'night', 'gen_ai.conversation.id': 'n1-conv' } });
    moved.span('chat before', { parent: mroot, at: 100, durationMs: 500, attributes: chatAttributes({ model: 'claude-sonnet-4-5', inputTokens: 10, outputTokens: 2, agentName: 'night', conversationId: 'n1-conv' }) });
    await importRequest(s, P, moved.request());
    // A late child of night 2's trace, on the day after, in another conversation (a span moves key and unit).
    const late = traceBuilder({ seed: 'n2', start: '2026-12-02T23:59:58Z' });
    const lroot = late.span('invoke_agent night', { durationMs: 5000, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'night', 'gen_ai.conversation.id': 'n2-conv' } });
    late.span('late chat', { parent: lroot, at: 4000, durationMs: 100, attributes: chatAttributes({ model: 'gpt-4o', inputTokens: 3, outputTokens: 1, agentName: 'night', conversationId: 'n2-other' }) });
    await importRequest(s, P, late.request());
    await check();
    // Deletes: by age with the edge inside a day (half of a night's spans go), by trace, a whole project.
    await call(s, 'spans.delete', { project_id: P, older_than: '2026-12-01T00:00:00.5Z' });
    await check();
    await call(s, 'spans.delete', { project_id: P, trace_ids: [traces[3]!] });
    await check();
    await call(s, 'spans.delete', { project_id: Q });
    const left = expectLayerAsRebuilt(s) as { project_id: string }[];
    expect(left.some((r) => r.project_id === Q)).toBe(false);
    await expectSameAsScan(s, P);
  }, 120_000);

  it('an older store (before migration 0028) gets the day split and the layer at its next open', async () => {
    const s = await freshStore();
    for (const [i, day] of ['2026-12-01', '2026-12-02'].entries()) await midnightTraces(s, P, `o${i}`, day);
    const body = { project_id: P, group_by: [{ key: 'agent_name', source: 'field' }], include_costs: true, limit: 100, measures: MEASURES };
    const before = await call(s, 'spans.query', body);
    const f = s.file;
    await s.close();
    // The store as 0027 left it: rollups without a day or 0030's keys, no layer (and none of the later migrations).
    const db = openStoreFile(f);
    db.exec(`DROP TABLE span_rollup_days; DROP INDEX span_rollups_day; ALTER TABLE span_rollups DROP COLUMN day;
      ALTER TABLE span_rollups DROP COLUMN span_kind; ALTER TABLE span_rollups DROP COLUMN response_model;
      DROP TRIGGER conversation_models_added; DROP TRIGGER conversation_models_changed; DROP TRIGGER conversation_models_removed;
      DROP TABLE conversation_models; DROP TABLE span_name_days; DROP TABLE span_name_stale;
      DELETE FROM summary_backfill; DELETE FROM schema_migrations WHERE version >= 28`);
    db.close();
    const reopened = await openStores(path.dirname(f));
    try {
      expect(rounded(await call(reopened, 'spans.query', body))).toEqual(rounded(before));
      const check = openStoreFile(f, { readonly: true });
      try {
        expect(check.prepare('SELECT COUNT(*) FROM span_rollup_days').pluck().get()).toBeGreaterThan(0);
        expect(check.prepare('SELECT COUNT(*) FROM span_rollups WHERE day IS NULL').pluck().get()).toBe(0);
      } finally {
        check.close();
      }
    } finally {
      await reopened.close();
    }
  }, 60_000);

  it('splits a window into the whole days inside it and the days it cuts', () => {
    const D = 86_400_000_000_000n;
    const at = (iso: string) => BigInt(Date.parse(iso)) * 1_000_000n;
    const day = (iso: string) => at(iso) / D;
    // Edges inside days: the days between whole, the two cut days in part.
    expect(windowDays(at('2026-12-01T12:00:00Z'), at('2026-12-03T06:00:00Z'))).toEqual({
      whole: { from: day('2026-12-02T00:00:00Z'), to: day('2026-12-03T00:00:00Z') },
      edges: [
        { day: day('2026-12-01T00:00:00Z'), after: at('2026-12-01T12:00:00Z'), before: at('2026-12-02T00:00:00Z') },
        { day: day('2026-12-03T00:00:00Z'), after: at('2026-12-03T00:00:00Z'), before: at('2026-12-03T06:00:00Z') },
      ],
    });
    // On boundaries: whole days only.
    expect(windowDays(at('2026-12-01T00:00:00Z'), at('2026-12-03T00:00:00Z'))).toEqual({ whole: { from: day('2026-12-01T00:00:00Z'), to: day('2026-12-03T00:00:00Z') }, edges: [] });
    // Inside one day: that day in part, no whole day.
    expect(windowDays(at('2026-12-02T01:00:00Z'), at('2026-12-02T02:00:00Z'))).toEqual({
      whole: null, edges: [{ day: day('2026-12-02T00:00:00Z'), after: at('2026-12-02T01:00:00Z'), before: at('2026-12-02T02:00:00Z') }],
    });
    // One bound open; before 1970 the day is floored (-1 ns is day -1).
    expect(windowDays(null, at('2026-12-02T00:00:00Z'))).toEqual({ whole: { from: null, to: day('2026-12-02T00:00:00Z') }, edges: [] });
    expect(windowDays(-1n, null)).toEqual({ whole: { from: 0n, to: null }, edges: [{ day: -1n, after: -1n, before: 0n }] });
  });

  it('encodes sets of conversation numbers in runs that decode to the same set', () => {
    for (const ids of [[], [0], [7, 8, 9], [1, 1000, 1001, 5_000_000], Array.from({ length: 3000 }, (_, i) => i * 3 + 100_000)]) {
      expect(decodeUnits(encodeUnits(ids))).toEqual([...new Set(ids)].sort((a, b) => a - b));
    }
    // A run never spans a gap of more than 16 bytes: one far conversation costs 7 bytes, not the gap.
    expect(encodeUnits([0, 8 * 1_000_000]).length).toBe(14);
  });
  it('a store whose write lock another process holds opens anyway; its stale days wait for a later write', async () => {
    const s = await freshStore();
    for (const [i, day] of ['2026-12-01', '2026-12-02', '2026-12-03'].entries()) await midnightTraces(s, P, `b${i}`, day);
    const staleOf = (db: ReturnType<typeof openStoreFile>) => db.prepare('SELECT COUNT(*) FROM span_name_stale').pluck().get() as number;
    await s.close();
    // Another process (a server beside a CLI import) in a write transaction while this one opens.
    const other = openStoreFile(s.file);
    const before = staleOf(other);
    expect(before).toBeGreaterThan(0);
    other.prepare('BEGIN IMMEDIATE').run();
    let opened: TestStores | null = null;
    try {
      opened = await openTestStores(s.dir, { busyTimeoutMs: 100 });
      const body = { project_id: P, group_by: [{ key: 'agent_name', source: 'field' }], include_costs: true, limit: 1000, query: { $expr: { $eq: [{ $getField: 'span_name' }, { $literal: 'chat before' }] } } };
      expect(rounded(await call(opened, 'spans.query', body))).toEqual(rounded(await call(opened, 'spans.query', scanned(body))));
      expect(staleOf(other)).toBe(before);
    } finally {
      other.prepare('ROLLBACK').run();
      other.close();
      await opened?.close();
    }
    // Opened again with nothing else writing: the open recomputes them.
    const again = await openTestStores(s.dir);
    await again.close();
    const after = openStoreFile(s.file, { readonly: true });
    try {
      expect(staleOf(after)).toBe(0);
    } finally {
      after.close();
    }
  });
});
