import { afterAll, describe, expect, it } from 'vitest';
import { ServiceError } from '../../src/shared/errors.js';
import { SQL } from '../../src/main/store/sqlite/chat.js';
import { FEEDBACK_SQL } from '../../src/main/store/sqlite/feedback.js';
import { call as dispatch, importOtlp, OTLP_START, otlpTurn, sid, tempContext } from './chat-fixture.js';
import { traceBuilder } from '../helpers/otlp.js';
import { openStoreFile } from '../helpers/sqlite.js';

const ctx = await tempContext();
afterAll(() => ctx.stores.close());
const P = 'acme/shop';
const tid = (n: number) => n.toString(16).padStart(32, '0');
const conv = (body: Record<string, unknown>) => dispatch('chat.conversation', { project_id: P, ...body }, ctx) as Promise<any>;
const trace = (body: Record<string, unknown>) => dispatch('chat.trace', { project_id: P, ...body }, ctx) as Promise<any>;

// Conversation c1: three turns (traces 1..3) at 0 s, 10 s, 20 s; span ids t<n>1..t<n>4 → 'b<n>1'... (hex).
await importOtlp(ctx, P, [1, 2, 3].flatMap((n) => otlpTurn({ trace_id: tid(n), conversation_id: 'c1', startMs: (n - 1) * 10_000, question: `question ${n}`, p: `b${n}` }).spans()));
// Trace 4 mixes conversations: c2's agent span, an untagged child, and one span of c3.
function trace4(toolConversation: string, status?: 'ERROR') {
  const t = traceBuilder({ traceId: tid(4), start: OTLP_START });
  t.span('invoke_agent Bot', { spanId: sid('4a'), durationMs: 7000, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'Bot', 'gen_ai.conversation.id': 'c2' } });
  t.span('chat m', { spanId: sid('4b'), parent: sid('4a'), at: 10, durationMs: 890, attributes: {
    'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': 5, 'gen_ai.usage.output_tokens': 6,
    'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'hello' }] }]),
    'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'hi there' }] }]),
  } });
  t.span('execute_tool other', { spanId: sid('4c'), parent: sid('4a'), at: 1000, durationMs: 100, status,
    attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.conversation.id': toolConversation } });
  return t.spans();
}
await importOtlp(ctx, P, trace4('c3'));

describe('POST /agents/conversations/chat (semantics §4.1)', () => {
  const pages: { name: string; body: Record<string, unknown>; traces: number[]; has_more: boolean }[] = [
    { name: 'limit 2 of 3 → newest two, oldest first, has_more', body: { limit: 2 }, traces: [2, 3], has_more: true },
    { name: 'offset 1 limit 2 → the older two, no more', body: { limit: 2, offset: 1 }, traces: [1, 2], has_more: false },
    { name: 'default limit → all three oldest first', body: {}, traces: [1, 2, 3], has_more: false },
    { name: 'offset past the end → empty, has_more false', body: { offset: 3 }, traces: [], has_more: false },
    { name: 'limit 0 → empty page, has_more false', body: { limit: 0 }, traces: [], has_more: false },
  ];
  it.each(pages)('paging: $name', async (c) => {
    const r = await conv({ conversation_id: 'c1', ...c.body });
    expect(r.turns.map((t: any) => t.trace_id)).toEqual(c.traces.map(tid));
    expect(r).toMatchObject({ conversation_id: 'c1', total_turns: 3, has_more: c.has_more, limit: c.body.limit ?? 50, offset: c.body.offset ?? 0 });
  });

  it('turn header: root wall clock, leaf token sums, costs; conversation cost sums the turns', async () => {
    const r = await conv({ conversation_id: 'c1', limit: 1 });
    const t = r.turns[0];
    expect(t).toMatchObject({
      trace_id: tid(3), root_span_name: 'Support', agent_name: 'Support', status_code: 'UNSET', total_duration_ms: 5000,
      started_at: '2026-11-22T10:00:20.000000Z', ended_at: '2026-11-22T10:00:25.000000Z',
      total_input_tokens: 300, total_output_tokens: 40, feedback: null,
    });
    expect(t.total_cost_usd).toBeCloseTo(0.003);
    expect(r.total_cost_usd).toBeCloseTo(0.009);
    expect(r.feedback).toBeNull();
    expect(t.messages[0].user_message.text).toBe('question 3');
  });

  it('a child without conversation id counts for the turn of its nearest tagged ancestor; a span of another conversation is left out', async () => {
    const r = await conv({ conversation_id: 'c2' });
    expect(r.total_turns).toBe(1);
    const t = r.turns[0];
    expect(t.messages.map((m: any) => m.type)).toEqual(['user_message', 'agent_start', 'assistant_message']);
    expect(t.messages.some((m: any) => m.span_id === sid('4c'))).toBe(false);
    expect([t.total_input_tokens, t.total_output_tokens, t.total_duration_ms]).toEqual([5, 6, 7000]);
    // c3 has a turn too (the same trace), holding its own span only: the untagged chat runs under c2's
    // agent span and counts for c2 (issue 18: each span counts for one conversation, so the turns of a
    // trace add up to the trace).
    const c3 = await conv({ conversation_id: 'c3' });
    expect(c3.turns[0].messages.map((m: any) => [m.type, m.span_id])).toEqual([['tool_call', sid('4c')]]);
    expect(c3.turns[0]).toMatchObject({ total_input_tokens: 0, usage_known: false, total_duration_ms: 100 });
  });

  it('unknown conversation → empty view, not an error', async () => {
    expect(await conv({ conversation_id: 'nope' })).toEqual({
      conversation_id: 'nope', turns: [], total_turns: 0, has_more: false, limit: 50, offset: 0, total_cost_usd: null, totals: null, title: null, feedback: null,
    });
  });

  const bad: { body: Record<string, unknown>; loc: (string | number)[]; type: string }[] = [
    { body: { conversation_id: 'c1', limit: 51 }, loc: ['body', 'limit'], type: 'less_than_equal' },
    { body: { conversation_id: 'c1', limit: -1 }, loc: ['body', 'limit'], type: 'greater_than_equal' },
    { body: { conversation_id: 'c1', offset: -1 }, loc: ['body', 'offset'], type: 'greater_than_equal' },
    { body: { conversation_id: 'c1', limit: 1.5 }, loc: ['body', 'limit'], type: 'int_from_float' },
    { body: { conversation_id: 'c1', sort: 'x' }, loc: ['body', 'sort'], type: 'extra_forbidden' },
    { body: {}, loc: ['body', 'conversation_id'], type: 'missing' },
    { body: { project_id: '', conversation_id: 'c1' }, loc: ['body', 'project_id'], type: 'string_too_short' },
  ];
  it.each(bad)('422 $type at $loc', async (c) => {
    const err = await conv(c.body).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).status).toBe(422);
    expect((err as ServiceError).detail).toEqual([expect.objectContaining({ loc: c.loc, type: c.type })]);
  });
});

describe('POST /agents/traces/chat (semantics §4.2)', () => {
  it('builds the whole trace, all spans regardless of conversation', async () => {
    const t = await trace({ trace_id: tid(4) });
    expect(t.messages.map((m: any) => m.span_id)).toEqual([sid('4b'), sid('4a'), sid('4b'), sid('4c')]);
    expect(t.root_span_name).toBe('Bot');
  });

  it('unknown trace → trace_id echoed, header null, totals 0, no messages', async () => {
    expect(await trace({ trace_id: 'f'.repeat(32) })).toEqual({
      trace_id: 'f'.repeat(32), root_span_name: null, agent_name: null, agent_version: null, status_code: null, provider: null,
      started_at: null, ended_at: null, svc_user_id: null, total_duration_ms: null, total_cost_usd: null,
      total_input_tokens: 0, total_output_tokens: 0, total_reasoning_tokens: 0, total_cache_creation_input_tokens: 0,
      total_cache_read_input_tokens: 0, usage_known: false, messages: [], feedback: null,
    });
  });

  it('422 on unknown keys and wrong types', async () => {
    const err = (await trace({ trace_id: 1, extra: true }).catch((e) => e)) as ServiceError;
    expect(err.status).toBe(422);
    expect((err.detail as any[]).map((d) => [d.loc.join('.'), d.type]).sort()).toEqual([['body.extra', 'extra_forbidden'], ['body.trace_id', 'string_type']]);
  });
});

describe('feedback on the chat views (semantics §4.3, §8)', () => {
  it('include_feedback adds conversation, turn and message feedback; without it they are null', async () => {
    const ref = (kind: string, id: string) => `svc:///${P}/${kind}/${id}`;
    const created = {
      conv: await dispatch('feedback.create', { svc_ref: ref('conversation', 'c1'), feedback_type: 'note', payload: { note: 'good' } }, ctx),
      turn: await dispatch('feedback.create', { svc_ref: ref('trace', tid(3)), feedback_type: 'thumbs', payload: { value: 'up' } }, ctx),
      span: await dispatch('feedback.create', { svc_ref: ref('span', sid('b34')), feedback_type: 'rating', scorer_ratings: { helpful: 5 } }, ctx),
    };
    const r = await conv({ conversation_id: 'c1', include_feedback: true });
    expect(r.feedback).toEqual([created.conv]);
    const [t1, , t3] = r.turns;
    expect(t1.feedback).toEqual([]);
    expect(t3.feedback).toEqual([created.turn]);
    const withFb = t3.messages.filter((m: any) => m.feedback.length);
    expect(withFb.map((m: any) => [m.type, m.feedback])).toEqual([['assistant_message', [created.span]]]);
    for (const m of t3.messages) expect(Array.isArray(m.feedback)).toBe(true);
    const plain = await trace({ trace_id: tid(3) });
    expect(plain.feedback).toBeNull();
    for (const m of plain.messages) expect(m.feedback).toBeNull();
    const withTrace = await trace({ trace_id: tid(3), include_feedback: true });
    expect(withTrace.feedback).toEqual([created.turn]);
  });
});

describe('trace summaries and query plans', () => {
  it('summaries are written at ingest and rewritten on re-import (idempotent)', async () => {
    const db = openStoreFile(ctx.stores.file, { readonly: true });
    const row = () => db.prepare('SELECT * FROM trace_summaries WHERE project_id = ? AND trace_id = ?').get(P, tid(4)) as any;
    const turns = () => db.prepare('SELECT conversation_id, duration_ms, error_count FROM conversation_turns WHERE project_id = ? AND trace_id = ? ORDER BY conversation_id').all(P, tid(4));
    expect(row()).toMatchObject({ span_count: 3 });
    expect(turns()).toEqual([{ conversation_id: 'c2', duration_ms: 7000, error_count: 0 }, { conversation_id: 'c3', duration_ms: 100, error_count: 0 }]);
    await importOtlp(ctx, P, trace4('c2', 'ERROR'));
    expect(row()).toMatchObject({ span_count: 3 });
    expect(turns()).toEqual([{ conversation_id: 'c2', duration_ms: 7000, error_count: 1 }]);
    db.close();
  });

  it('a trace split over batches is summarized whole; a store without summaries is backfilled at open', async () => {
    const t = otlpTurn({ trace_id: tid(9), conversation_id: 'c9', startMs: 0, question: 'split', p: 'c9' }).spans();
    await importOtlp(ctx, P, t.slice(0, 2)); // new trace: summarized from the batch
    await importOtlp(ctx, P, t.slice(2)); // known trace: re-read whole
    const db = openStoreFile(ctx.stores.file);
    const row = () => db.prepare('SELECT span_count, input_tokens, duration_ms FROM conversation_turns WHERE project_id = ? AND trace_id = ?').get(P, tid(9));
    expect(row()).toEqual({ span_count: 4, input_tokens: 300, duration_ms: 5000 });
    const before = db.prepare('SELECT * FROM conversation_turns ORDER BY conversation_id, trace_id').all();
    db.exec('DELETE FROM trace_summaries; DELETE FROM conversation_turns;');
    db.close();
    const { openStores } = await import('../../src/main/store/index.js');
    const reopened = await openStores(ctx.stores.file);
    const db2 = openStoreFile(ctx.stores.file, { readonly: true });
    expect(db2.prepare('SELECT * FROM conversation_turns ORDER BY conversation_id, trace_id').all()).toEqual(before);
    expect(db2.prepare('SELECT span_count FROM trace_summaries WHERE project_id = ? AND trace_id = ?').get(P, tid(9))).toEqual({ span_count: 4 });
    db2.close();
    await reopened.close();
  });

  it('hot chat queries use indexes: no full scan of spans, feedback or turns', () => {
    const db = openStoreFile(ctx.stores.file, { readonly: true });
    const params = { project_id: P, trace_id: tid(1), conversation_id: 'c1', limit: 10, offset: 0, target_kind: 'span', ids: '[]', target_id: null, feedback_type: null };
    const plans = [SQL.traceSpans, SQL.conversationTraceSpans, SQL.countTurns, SQL.pageTurns, SQL.conversationCost, FEEDBACK_SQL.forTargets].map((sql) => {
      const stmt = db.prepare(`EXPLAIN QUERY PLAN ${sql}`);
      const names = sql.match(/@\w+/g)!.map((n) => n.slice(1));
      const bound = Object.fromEntries(names.map((n) => [n, (params as Record<string, unknown>)[n]]));
      return (stmt.all(bound) as { detail: string }[]).map((r) => r.detail).join(' | ');
    });
    for (const plan of plans) expect(plan).not.toMatch(/SCAN (s|spans|feedback|conversation_turns|ct|ts)\b(?! USING)/);
    // The page of turns is read in index order (feedback of one target is few rows: sorting those is fine).
    expect(plans[3]).not.toMatch(/USE TEMP B-TREE FOR ORDER BY/);
    expect(plans[0]).toMatch(/SEARCH s USING INDEX spans_key/);
    expect(plans[3]).toMatch(/conversation_turns.*USING (COVERING )?INDEX conversation_turns_page/);
    db.close();
  });
});
