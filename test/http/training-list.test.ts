/**
 * Listing extensions of the training API over real HTTP: GET /v1/preview/models (filters, newest
 * first, cursor pages, latest step) and GET /v1/preview/training-jobs (model/status filters, newest
 * first, cursor pages; jobs of a deleted model stay listed).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTrainingServer, type TrainingServer } from './training-fixture.js';

let s: TrainingServer;
const ids = (page: { data: { id: string }[] }) => page.data.map((x) => x.id);
let a: { id: string }, b: { id: string }, c: { id: string };

beforeAll(async () => {
  s = await startTrainingServer();
  const make = async (entity: string | null, project: string, name: string) => {
    const r = await s.req('POST', '/v1/preview/models', { entity, project, name, base_model: 'loupe-test-bytes' });
    expect(r.status).toBe(200);
    return r.body as { id: string };
  };
  a = await make(null, 'p1', 'a');
  b = await make(null, 'p2', 'b');
  c = await make('team', 'p1', 'c');
});
afterAll(async () => s?.close());

describe('GET /v1/preview/models', () => {
  test('newest first, with created_at and latest_step; entity/project filters', async () => {
    const all = await s.req('GET', '/v1/preview/models');
    expect(all.status).toBe(200);
    expect(ids(all.body)).toEqual([c.id, b.id, a.id]);
    expect(all.body).toMatchObject({ object: 'list', first_id: c.id, last_id: a.id, has_more: false });
    expect(all.body.data[0]).toEqual({
      id: c.id, entity: 'team', project: 'p1', name: 'c', base_model: 'loupe-test-bytes', runtime_model: 'loupe-test-bytes',
      run_id: expect.any(String), created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/), latest_step: 0,
    });
    expect(ids((await s.req('GET', '/v1/preview/models?project=p1')).body)).toEqual([c.id, a.id]);
    expect(ids((await s.req('GET', '/v1/preview/models?entity=team')).body)).toEqual([c.id]);
    expect(ids((await s.req('GET', '/v1/preview/models?entity=local&project=p2')).body)).toEqual([b.id]);
    expect(ids((await s.req('GET', '/v1/preview/models?entity=nobody')).body)).toEqual([]);
  });

  test('cursor pages both ways; an unknown cursor is 404; bad limit is 422; no key is 401', async () => {
    const p1 = (await s.req('GET', '/v1/preview/models?limit=2')).body;
    expect(ids(p1)).toEqual([c.id, b.id]);
    expect(p1.has_more).toBe(true);
    const p2 = (await s.req('GET', `/v1/preview/models?limit=2&after=${p1.last_id}`)).body;
    expect(ids(p2)).toEqual([a.id]);
    expect(p2.has_more).toBe(false);
    expect(ids((await s.req('GET', '/v1/preview/models?order=asc&limit=2')).body)).toEqual([a.id, b.id]);
    expect(ids((await s.req('GET', `/v1/preview/models?order=asc&after=${b.id}`)).body)).toEqual([c.id]);
    const unknown = await s.req('GET', '/v1/preview/models?after=nope');
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toContain('nope');
    const bad = await s.req('GET', '/v1/preview/models?limit=500');
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['query', 'limit']);
    expect((await s.req('GET', '/v1/preview/models', undefined, null)).status).toBe(401);
  });
});

describe('GET /v1/preview/training-jobs', () => {
  test('newest first, filtered by model and status, paged; a deleted model keeps its jobs listed', async () => {
    // Empty RL jobs complete at once and advance the step (semantics §9.4).
    const submit = async (modelId: string) => (await s.req('POST', '/v1/preview/training-jobs', { model_id: modelId, trajectory_groups: [] })).body.id as string;
    const a1 = await submit(a.id);
    const a2 = await submit(a.id);
    const b1 = await submit(b.id);
    await s.loupe.ctx.training!.runner.idle();

    const all = (await s.req('GET', '/v1/preview/training-jobs')).body;
    expect(ids(all)).toEqual([b1, a2, a1]);
    expect(all.data[0]).toEqual((await s.req('GET', `/v1/preview/training-jobs/${b1}`)).body);
    expect(all.data.every((j: { status: string; kind: string }) => j.status === 'COMPLETED' && j.kind === 'rl')).toBe(true);
    expect(ids((await s.req('GET', `/v1/preview/training-jobs?model_id=${a.id}`)).body)).toEqual([a2, a1]);
    expect(ids((await s.req('GET', '/v1/preview/training-jobs?status=COMPLETED&limit=2')).body)).toEqual([b1, a2]);
    expect(ids((await s.req('GET', '/v1/preview/training-jobs?status=QUEUED')).body)).toEqual([]);
    const models = (await s.req('GET', '/v1/preview/models?project=p1')).body.data;
    expect(models.find((m: { id: string }) => m.id === a.id).latest_step).toBe(2);

    const p1 = (await s.req('GET', '/v1/preview/training-jobs?limit=1')).body;
    expect(ids(p1)).toEqual([b1]);
    expect(p1.has_more).toBe(true);
    const p2 = (await s.req('GET', `/v1/preview/training-jobs?limit=2&after=${p1.last_id}`)).body;
    expect(ids(p2)).toEqual([a2, a1]);
    expect(p2.has_more).toBe(false);

    const badStatus = await s.req('GET', '/v1/preview/training-jobs?status=DONE');
    expect(badStatus.status).toBe(422);
    expect(badStatus.body.detail[0].loc).toEqual(['query', 'status']);
    expect((await s.req('GET', '/v1/preview/training-jobs?after=nope')).status).toBe(404);

    expect((await s.req('DELETE', `/v1/preview/models/${b.id}`)).status).toBe(200);
    expect(ids((await s.req('GET', `/v1/preview/training-jobs?model_id=${b.id}`)).body)).toEqual([b1]);
    expect(ids((await s.req('GET', '/v1/preview/models')).body)).toEqual([c.id, a.id]);
  });
});
