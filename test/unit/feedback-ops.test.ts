import { afterAll, describe, expect, it } from 'vitest';
import { ServiceError } from '../../src/shared/errors.js';
import { FeedbackRecord } from '../../src/shared/contract/common.js';
import { parseSvcRef, parseSvcRefs, svcRef } from '../../src/main/domain/refs.js';
import { agentTurn, call, tempContext } from './chat-fixture.js';

const ctx = await tempContext();
afterAll(() => ctx.stores.close());

describe('svc_ref (semantics §8)', () => {
  const refs: [string, ReturnType<typeof parseSvcRef>][] = [
    ['svc:///acme/shop/conversation/c-1', { project_id: 'acme/shop', kind: 'conversation', id: 'c-1' }],
    ['svc:///acme/shop/trace/0af7651916cd43dd8448eb211c80319c', { project_id: 'acme/shop', kind: 'trace', id: '0af7651916cd43dd8448eb211c80319c' }],
    ['svc:///local/default/span/b7ad6b7169203331', { project_id: 'local/default', kind: 'span', id: 'b7ad6b7169203331' }],
    // Training rollouts: conversation ids hold slashes.
    ['svc:///local/rl/conversation/m1/train/step3/group0', { project_id: 'local/rl', kind: 'conversation', id: 'm1/train/step3/group0' }],
    ['svc:///acme/shop/turn/x', null],
    ['https://acme/shop/trace/x', null],
    ['svc:///acme/trace/', null],
  ];
  it.each(refs)('%s', (ref, want) => {
    expect(parseSvcRef(ref)).toEqual(want);
    if (want) expect(svcRef(want)).toBe(ref);
  });
});

describe('a project whose name ends in a kind segment (issue 22.11)', () => {
  it('reads both ways; feedback goes to the project that exists and is found by its query', async () => {
    expect(parseSvcRefs('svc:///acme/trace/trace/t9')).toEqual([
      { project_id: 'acme', kind: 'trace', id: 'trace/t9' },
      { project_id: 'acme/trace', kind: 'trace', id: 't9' },
    ]);
    const P = 'acme/trace';
    const trace = 'e'.repeat(32);
    await ctx.traces.writeSpans(agentTurn({ trace_id: trace, conversation_id: 'c-t', start: 0 }).map((s) => ({ ...s, project_id: P })));
    const ref = svcRef({ project_id: P, kind: 'trace', id: trace });
    const r = (await call('feedback.create', { svc_ref: ref, feedback_type: 'thumbs', payload: { value: 'down' } }, ctx)) as { svc_ref: string };
    expect(r.svc_ref).toBe(ref);
    const found = (await call('feedback.query', { project_id: P, svc_ref: ref }, ctx)) as { feedback: { svc_ref: string }[] };
    expect(found.feedback.map((f) => f.svc_ref)).toEqual([ref]);
    // Nothing was filed under the shorter reading's project.
    expect(((await call('feedback.query', { project_id: 'acme' }, ctx)) as { feedback: unknown[] }).feedback).toEqual([]);
  });
});

describe('feedback.create / feedback.query', () => {
  it('stores a record with every interface key and returns it', async () => {
    const r = (await call('feedback.create', {
      svc_ref: 'svc:///acme/shop/trace/t1', feedback_type: 'thumbs', payload: { value: 'up' }, creator: 'ana',
      created_at: '2026-01-02T03:04:05.123456+01:00', scorer_tags: ['helpful'], scorer_ratings: { quality: 4.5 },
    }, ctx)) as Record<string, unknown>;
    expect(Object.keys(r).sort()).toEqual(Object.keys(FeedbackRecord.shape).sort());
    expect(FeedbackRecord.strict().safeParse(r).success).toBe(true);
    expect(r).toMatchObject({
      feedback_type: 'thumbs', svc_ref: 'svc:///acme/shop/trace/t1', payload: { value: 'up' }, creator: 'ana',
      created_at: '2026-01-02T02:04:05.123456Z', svc_user_id: null, runnable_ref: null, scorer_tags: ['helpful'],
      scorer_tag_reasons: {}, scorer_ratings: { quality: 4.5 },
    });
    expect(r.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('created_at defaults to now', async () => {
    const before = Date.now();
    const r = (await call('feedback.create', { svc_ref: 'svc:///acme/shop/span/s1', feedback_type: 'note' }, ctx)) as { created_at: string };
    expect(Date.parse(r.created_at)).toBeGreaterThanOrEqual(before - 1);
    expect(r.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  });

  it('query: project-scoped, newest first, by target and type, paged with total_count', async () => {
    for (let i = 0; i < 3; i++) {
      await call('feedback.create', { svc_ref: 'svc:///acme/shop/conversation/c9', feedback_type: i === 2 ? 'reward' : 'note', created_at: `2026-02-0${i + 1}T00:00:00Z` }, ctx);
    }
    await call('feedback.create', { svc_ref: 'svc:///other/proj/conversation/c9', feedback_type: 'note' }, ctx);
    const all = (await call('feedback.query', { project_id: 'acme/shop', svc_ref: 'svc:///acme/shop/conversation/c9' }, ctx)) as { feedback: { created_at: string }[]; total_count: number };
    expect(all.total_count).toBe(3);
    expect(all.feedback.map((f) => f.created_at.slice(0, 10))).toEqual(['2026-02-03', '2026-02-02', '2026-02-01']);
    const page = (await call('feedback.query', { project_id: 'acme/shop', svc_ref: 'svc:///acme/shop/conversation/c9', limit: 1, offset: 1 }, ctx)) as typeof all;
    expect([page.total_count, page.feedback.length, page.feedback[0]!.created_at.slice(0, 10)]).toEqual([3, 1, '2026-02-02']);
    const rewards = (await call('feedback.query', { project_id: 'acme/shop', feedback_type: 'reward' }, ctx)) as typeof all;
    expect(rewards.total_count).toBe(1);
    const whole = (await call('feedback.query', { project_id: 'acme/shop' }, ctx)) as typeof all;
    expect(whole.total_count).toBe(5);
  });

  const bad: { op: 'feedback.create' | 'feedback.query'; body: Record<string, unknown>; loc: string; type: string }[] = [
    { op: 'feedback.create', body: { svc_ref: 'svc:///p/q/turn/x', feedback_type: 'note' }, loc: 'body.svc_ref', type: 'invalid_format' },
    { op: 'feedback.create', body: { svc_ref: 'svc:///p/q/span/x' }, loc: 'body.feedback_type', type: 'missing' },
    { op: 'feedback.create', body: { svc_ref: 'svc:///p/q/span/x', feedback_type: 'n', project_id: 'p' }, loc: 'body.project_id', type: 'extra_forbidden' },
    { op: 'feedback.create', body: { svc_ref: 'svc:///p/q/span/x', feedback_type: 'n', created_at: 'yesterday' }, loc: 'body.created_at', type: 'value_error' },
    { op: 'feedback.create', body: { svc_ref: 'svc:///p/q/span/x', feedback_type: 'n', scorer_ratings: { a: 'x' } }, loc: 'body.scorer_ratings.a', type: 'float_type' },
    { op: 'feedback.query', body: { project_id: 'acme/shop', limit: 10001 }, loc: 'body.limit', type: 'less_than_equal' },
    { op: 'feedback.query', body: { project_id: 'acme/shop', svc_ref: 'svc:///other/p/trace/t' }, loc: 'body.svc_ref', type: 'value_error' },
  ];
  it.each(bad)('$op 422 $type at $loc', async (c) => {
    const err = (await call(c.op, c.body, ctx).catch((e) => e)) as ServiceError;
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.status).toBe(422);
    const d = err.detail as { loc: (string | number)[]; type: string; msg: string }[];
    expect(d.map((x) => [x.loc.join('.'), x.type])).toContainEqual([c.loc, c.type]);
    expect(d[0]!.msg.length).toBeGreaterThan(5);
  });
});

describe('feedback.update / feedback.delete (the UI edits and removes its thumbs)', () => {
  it('changes the value and note of one record, keeps its target and time; deletes it; 404 for another project or a gone id', async () => {
    const made = (await call('feedback.create', {
      svc_ref: 'svc:///acme/edit/trace/t9', feedback_type: 'thumbs', payload: { value: 'up' }, creator: 'loupe-ui',
    }, ctx)) as { id: string; created_at: string; svc_ref: string };
    const changed = (await call('feedback.update', { project_id: 'acme/edit', id: made.id, payload: { value: 'down', note: 'wrong carrier' } }, ctx)) as Record<string, unknown>;
    expect(changed).toMatchObject({ id: made.id, svc_ref: made.svc_ref, created_at: made.created_at, feedback_type: 'thumbs', creator: 'loupe-ui', payload: { value: 'down', note: 'wrong carrier' } });
    const listed = (await call('feedback.query', { project_id: 'acme/edit', svc_ref: made.svc_ref }, ctx)) as { feedback: { payload: unknown }[] };
    expect(listed.feedback.map((f) => f.payload)).toEqual([{ value: 'down', note: 'wrong carrier' }]);

    // Another project cannot touch it.
    await expect(call('feedback.update', { project_id: 'acme/other', id: made.id, payload: {} }, ctx)).rejects.toMatchObject({ status: 404 });
    await expect(call('feedback.delete', { project_id: 'acme/other', id: made.id }, ctx)).rejects.toMatchObject({ status: 404 });

    expect(await call('feedback.delete', { project_id: 'acme/edit', id: made.id }, ctx)).toEqual({ deleted: true });
    expect(((await call('feedback.query', { project_id: 'acme/edit' }, ctx)) as { total_count: number }).total_count).toBe(0);
    await expect(call('feedback.delete', { project_id: 'acme/edit', id: made.id }, ctx)).rejects.toBeInstanceOf(ServiceError);
    await expect(call('feedback.update', { project_id: 'acme/edit', id: made.id, created_at: '2020-01-01T00:00:00Z' }, ctx)).rejects.toMatchObject({ status: 422 });
  });
});
