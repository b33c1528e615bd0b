import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, contextOf, detailOf, tempStore } from '../helpers/analytics-call.js';
import { load, traceHex, type SpanSpec } from '../helpers/analytics-data.js';
import { percentile } from '../../src/shared/stats.js';
import type { TestStores } from '../helpers/temp-store.js';
import { openDatabase } from '../../src/main/store/sqlite/open.js';
import { explainThreads } from '../../src/main/store/sqlite/explain.js';
import { parseThreadsQuery } from '../../src/main/service/analytics/plan/lists.js';
import { openTestStores } from '../helpers/temp-store.js';

const P = 'acme/threads';
let store: TestStores;
let ctx: ReturnType<typeof contextOf>;
let next = 1;

/**
 * One turn = one trace: a root span (the turn call) with a child inside it. A turn's duration is its wall
 * time, first start to latest end (issue 18, decision 0022: the same figure as the turn header), so a child
 * that outlives its root (`childEnd`) extends the turn; a turn none of whose spans ended has no duration.
 */
const turn = (conversation: string, start: number, duration: number | null, childEnd?: number): SpanSpec[] => {
  const trace = next++;
  return [
    { trace, span: trace * 10, op: 'invoke_agent', agent: 'a', conversation, start, end: duration === null ? null : start + duration },
    { trace, span: trace * 10 + 1, parent: trace * 10, op: 'chat', start: start + 1, end: childEnd !== undefined ? start + childEnd : duration === null ? null : start + 2 },
  ];
};

beforeAll(async () => {
  store = await tempStore();
  ctx = contextOf(store);
  await load(store, P, [
    ...[100, 200, 300, 400, 1000].flatMap((d, i) => turn('long', i * 10_000, d)),
    ...turn('short', 100_000, 10),
    ...turn('short', 101_000, 20),
    ...turn('open', 200_000, null),
    ...turn('half', 300_000, 50),
    ...turn('half', 301_000, null),
    ...turn('late', 500_000, 100, 250),
  ]);
});
afterAll(() => store.close());

describe('threads.query (semantics §5)', () => {
  it('percentile is exact with linear interpolation', () => {
    const cases: [number[], number, number | null][] = [
      [[], 0.5, null], [[7], 0.99, 7], [[10, 20], 0.5, 15], [[10, 20], 0.99, 19.9], [[100, 200, 300, 400, 1000], 0.5, 300],
      [[100, 200, 300, 400, 1000], 0.99, 976], [[1, 2, 3, 4], 0.5, 2.5],
    ];
    for (const [values, p, want] of cases) {
      const got = percentile(values, p);
      if (want === null) expect(got).toBeNull();
      else expect(got).toBeCloseTo(want, 9);
    }
  });

  it('one thread per conversation with turn-call statistics; threads without any ended turn are skipped', async () => {
    const rows = await call(ctx, 'threads.query', { project_id: P });
    expect(rows.map((t: { thread_id: string }) => t.thread_id)).toEqual(['late', 'half', 'short', 'long']); // last_updated desc; 'open' never ended
    const long = rows.find((t: { thread_id: string }) => t.thread_id === 'long');
    expect(long).toEqual({
      thread_id: 'long',
      turn_count: 5,
      start_time: '2026-11-01T12:00:00.000000Z',
      last_updated: '2026-11-01T12:00:41.000000Z',
      first_turn_id: traceHex(1),
      last_turn_id: traceHex(5),
      p50_turn_duration_ms: 300,
      p99_turn_duration_ms: 976,
    });
    const short = rows.find((t: { thread_id: string }) => t.thread_id === 'short');
    expect(short.p50_turn_duration_ms).toBeCloseTo(15, 9);
    expect(short.p99_turn_duration_ms).toBeCloseTo(19.9, 9);
    const half = rows.find((t: { thread_id: string }) => t.thread_id === 'half');
    expect(half).toMatchObject({ turn_count: 2, p50_turn_duration_ms: 50, p99_turn_duration_ms: 50, last_turn_id: traceHex(9) });
    // The child outlived its root: the turn lasts until the child's end, as its header in the chat says.
    const late = rows.find((t: { thread_id: string }) => t.thread_id === 'late');
    expect(late).toMatchObject({ turn_count: 1, p50_turn_duration_ms: 250, last_updated: '2026-11-01T12:08:20.250000Z' });
  });

  it('filters by time window and thread ids; sorts asc/desc by every sortable field; pages', async () => {
    const ids = async (body: Record<string, unknown>) => (await call(ctx, 'threads.query', { project_id: P, ...body })).map((t: { thread_id: string }) => t.thread_id);
    expect(await ids({ filter: { thread_ids: ['long', 'nope'] } })).toEqual(['long']);
    expect(await ids({ filter: { after_datetime: '2026-11-01T12:00:05Z', before_datetime: '2026-11-01T12:01:41Z' } })).toEqual(['short', 'long']);
    const afterLong = await call(ctx, 'threads.query', { project_id: P, filter: { after_datetime: '2026-11-01T12:00:25Z', thread_ids: ['long'] } });
    expect(afterLong[0]).toMatchObject({ turn_count: 2, p50_turn_duration_ms: 700 });
    expect(await ids({ sort_by: [{ field: 'thread_id', direction: 'asc' }] })).toEqual(['half', 'late', 'long', 'short']);
    expect(await ids({ sort_by: [{ field: 'turn_count', direction: 'desc' }] })).toEqual(['long', 'half', 'short', 'late']);
    expect(await ids({ sort_by: [{ field: 'start_time', direction: 'asc' }] })).toEqual(['long', 'short', 'half', 'late']);
    expect(await ids({ sort_by: [{ field: 'p50_turn_duration_ms', direction: 'desc' }] })).toEqual(['long', 'late', 'half', 'short']);
    expect(await ids({ sort_by: [{ field: 'p99_turn_duration_ms', direction: 'asc' }] })).toEqual(['short', 'half', 'late', 'long']);
    expect(await ids({ limit: 1, offset: 1 })).toEqual(['half']);
    expect(await ids({ sort_by: [{ field: 'p50_turn_duration_ms', direction: 'asc' }], limit: 2, offset: 1 })).toEqual(['half', 'late']);
    expect(await ids({ limit: 0 })).toEqual([]);
    expect(await ids({ project_id: 'nobody/here' })).toEqual([]);
  });

  it('rejects an unknown sort field naming the allowed ones, and bad bounds', async () => {
    const d = await detailOf(ctx, 'threads.query', { project_id: P, sort_by: [{ field: 'cost', direction: 'desc' }] });
    expect(d[0]).toMatchObject({ loc: ['body', 'sort_by', 0, 'field'] });
    expect(d[0]!.msg).toMatch(/allowed: thread_id, turn_count, start_time, last_updated, p50_turn_duration_ms, p99_turn_duration_ms/);
    expect((await detailOf(ctx, 'threads.query', { project_id: P, limit: 10001 }))[0]!.loc).toEqual(['body', 'limit']);
    expect((await detailOf(ctx, 'threads.query', { project_id: P, offset: -1 }))[0]!.loc).toEqual(['body', 'offset']);
    expect((await detailOf(ctx, 'threads.query', { project_id: P, filter: { after_datetime: 'soon' } }))[0]!.loc).toEqual(['body', 'filter', 'after_datetime']);
    expect((await detailOf(ctx, 'threads.query', { project_id: P, filter: { colour: 'red' } }))[0]!.type).toBe('extra_forbidden');
  });

  it('reads the conversation rows through an index for every sort (a time window: conversation_turns), never spans', () => {
    const db = openDatabase(store.file);
    const FIELDS = ['thread_id', 'turn_count', 'start_time', 'last_updated', 'p50_turn_duration_ms', 'p99_turn_duration_ms'] as const;
    for (const field of FIELDS) {
      for (const direction of ['asc', 'desc'] as const) {
        const plan = explainThreads(db, parseThreadsQuery({ project_id: P, limit: 100, offset: 0, sort_by: [{ field, direction }] })).join('\n');
        expect(plan, `${field} ${direction}`).toMatch(/SEARCH conversation_summaries USING INDEX/);
        expect(plan, `${field} ${direction}`).not.toMatch(/\bspans\b|conversation_turns/);
        // The page is read in index order: at most the tie-breaker is sorted (within equal values).
        expect(plan, `${field} ${direction}`).not.toMatch(/USE TEMP B-TREE FOR ORDER BY/);
      }
    }
    const windowed = explainThreads(db, parseThreadsQuery({
      project_id: P, limit: 100, offset: 0, filter: { after_datetime: '2026-01-01T00:00:00Z', thread_ids: ['a', 'b'] }, sort_by: [{ field: 'p50_turn_duration_ms', direction: 'asc' }],
    })).join('\n');
    expect(windowed).toMatch(/conversation_turns/);
    expect(windowed).not.toMatch(/\bspans\b/);
    expect(windowed).not.toMatch(/^SCAN conversation_turns$/m);
    db.close();
  });

  it('the stored statistics equal the ones computed from the turns (a time window that keeps every turn)', async () => {
    for (const field of ['last_updated', 'p50_turn_duration_ms', 'p99_turn_duration_ms', 'start_time', 'turn_count', 'thread_id'] as const) {
      for (const direction of ['asc', 'desc'] as const) {
        const body = { project_id: P, sort_by: [{ field, direction }] };
        const stored = await call(ctx, 'threads.query', body);
        const computed = await call(ctx, 'threads.query', { ...body, filter: { after_datetime: '2000-01-01T00:00:00Z' } });
        expect(stored, `${field} ${direction}`).toEqual(computed);
      }
    }
  });

  it('rows of a store made before migration 0018 get their statistics at its next open', async () => {
    const before = await call(ctx, 'threads.query', { project_id: P, sort_by: [{ field: 'p99_turn_duration_ms', direction: 'desc' }] });
    const copy = await openTestStores();
    await load(copy, P, [...[100, 200, 300, 400, 1000].flatMap((d, i) => turn('long', i * 10_000, d)), ...turn('short', 100_000, 10), ...turn('short', 101_000, 20), ...turn('open', 200_000, null), ...turn('half', 300_000, 50), ...turn('half', 301_000, null), ...turn('late', 500_000, 100, 250)]);
    await copy.close();
    // What migration 0018 leaves in an older store: the columns empty, the backfill asked for.
    const db = openDatabase(copy.file);
    db.exec(`UPDATE conversation_summaries SET turn_end_ns = NULL, first_turn_id = NULL, last_turn_id = NULL, p50_turn_ms = NULL, p99_turn_ms = NULL;
      INSERT INTO summary_backfill (name) VALUES ('threads')`);
    db.close();
    const reopened = await openTestStores(copy.dir);
    try {
      const after = await call(contextOf(reopened), 'threads.query', { project_id: P, sort_by: [{ field: 'p99_turn_duration_ms', direction: 'desc' }] });
      // Same threads and statistics (the copy's trace ids differ: the turn ids are compared by shape).
      const shape = (rows: Record<string, unknown>[]) => rows.map(({ first_turn_id, last_turn_id, ...t }) => ({ ...t, first: typeof first_turn_id, last: typeof last_turn_id }));
      expect(shape(after)).toEqual(shape(before));
      const check = openDatabase(copy.file);
      expect(check.prepare("SELECT COUNT(*) FROM summary_backfill WHERE name = 'threads'").pluck().get()).toBe(0);
      check.close();
    } finally {
      await reopened.close();
    }
  }, 90_000);
});
