/**
 * The AppStore port (store/ports.ts) on its SQLite adapter, on a real database file: feedback edits,
 * settings, and the intention-named training writes that must land together or not at all.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openStores } from '../../src/main/store/index.js';
import type { AppStore, ModelRow, Stores } from '../../src/main/store/ports.js';

const opened: Stores[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});
async function app(): Promise<AppStore> {
  const s = await openStores(mkdtempSync(path.join(tmpdir(), 'loupe-app-')), { readers: 0 });
  opened.push(s);
  return s.app;
}

const model = (id: string, name = id): ModelRow => ({
  id, entity: 'local', project: 'p', name, base_model: 'b', run_id: 'r', backend: null, remote_model_id: null, runtime_model: null, created_at_us: 1,
});
const checkpoint = (id: string, modelId: string, step: number, loss = 1) => ({ id, model_id: modelId, step, metrics: { loss }, created_at_us: 2 });

describe('AppStore.feedback', () => {
  it('edits and removes a record of its project only', async () => {
    const a = await app();
    const r = await a.feedback.insert({ project_id: 'p', target_kind: 'trace', target_id: 't1', feedback_type: 'thumbs', payload: { value: 'up' } });
    expect(await a.feedback.update('other', r.id, { payload: { value: 'down' } })).toBeNull();
    const edited = await a.feedback.update('p', r.id, { payload: { value: 'down', note: 'wrong carrier' } });
    expect(edited).toMatchObject({ id: r.id, feedback_type: 'thumbs', svc_ref: 'svc:///p/trace/t1', payload: { value: 'down', note: 'wrong carrier' }, created_at: r.created_at });
    expect((await a.feedback.forTargets('p', 'trace', ['t1'])).get('t1')).toEqual([edited]);
    expect(await a.feedback.remove('other', r.id)).toBe(false);
    expect(await a.feedback.remove('p', r.id)).toBe(true);
    expect(await a.feedback.remove('p', r.id)).toBe(false);
    expect(await a.feedback.query({ project_id: 'p', limit: 10, offset: 0 })).toEqual({ feedback: [], total_count: 0 });
  });

  it('rejects with the cause when a record cannot be stored (no half-written state)', async () => {
    const a = await app();
    await expect(a.feedback.insert({ project_id: 'p', target_kind: 'trace', target_id: 't', feedback_type: 'x', created_at: 'not a date' })).rejects.toThrow(/created_at is not a date-time/);
    expect((await a.feedback.query({ project_id: 'p', limit: 10, offset: 0 })).total_count).toBe(0);
  });
});

describe('AppStore.settings', () => {
  it('sets and removes several keys at once', async () => {
    const a = await app();
    await a.settings.set({ x: '1', y: '2' });
    await a.settings.set({ x: null, y: '3' });
    expect([await a.settings.get('x'), await a.settings.get('y'), await a.settings.get('z')]).toEqual([null, '3', null]);
  });
});

describe('AppStore.training: intention-named writes', () => {
  it('createModel stores the model and its step-0 checkpoint together; a clash stores neither', async () => {
    const a = await app();
    await a.training.createModel(model('m1'), checkpoint('c0', 'm1', 0));
    expect((await a.training.latestCheckpoint('m1'))?.id).toBe('c0');
    // Same checkpoint id again: the insert of the checkpoint fails, so the second model must not exist either.
    await expect(a.training.createModel(model('m2'), checkpoint('c0', 'm2', 0))).rejects.toThrow();
    expect(await a.training.getModel('m2')).toBeNull();
  });

  it('completeJob makes the checkpoint, the terminal event and COMPLETED visible together, or none of them', async () => {
    const a = await app();
    await a.training.createModel(model('m'), checkpoint('c0', 'm', 0));
    await a.training.insertJob({ id: 'j', model_id: 'm', kind: 'sft', status: 'QUEUED', payload_file: null, summary: {}, created_at_us: 3 });
    const ended = { id: 'e1', job_id: 'j', type: 'training_ended', data: {}, created_at_us: 4 };
    // A checkpoint step that already exists: nothing of the end may be stored.
    await expect(a.training.completeJob('j', { checkpoint: checkpoint('c1', 'm', 0), event: ended, patch: { step: 0, training_end_us: 5 } })).rejects.toThrow();
    expect((await a.training.getJob('j'))?.status).toBe('QUEUED');
    expect(await a.training.pageEvents('j', null, 10)).toEqual([]);
    await a.training.completeJob('j', { checkpoint: checkpoint('c1', 'm', 1), event: ended, patch: { step: 1, training_end_us: 5 } });
    expect(await a.training.getJob('j')).toMatchObject({ status: 'COMPLETED', step: 1, training_end_us: 5 });
    expect((await a.training.pageEvents('j', null, 10))?.map((e) => e.type)).toEqual(['training_ended']);
    expect((await a.training.latestCheckpoint('m'))?.step).toBe(1);
  });

  it('failJob marks the job FAILED with its training_failed event', async () => {
    const a = await app();
    await a.training.insertJob({ id: 'j', model_id: 'gone', kind: 'rl', status: 'RUNNING', payload_file: null, summary: {}, created_at_us: 3 });
    await a.training.failJob('j', { event: { id: 'e', job_id: 'j', type: 'training_failed', data: { error_message: 'x' }, created_at_us: 4 }, patch: { error_message: 'x', training_end_us: 4 } });
    expect(await a.training.getJob('j')).toMatchObject({ status: 'FAILED', error_message: 'x' });
    expect((await a.training.eventsOfType('j', 'training_failed')).length).toBe(1);
  });

  it('mirrorCheckpoints makes the local rows equal to a remote list', async () => {
    const a = await app();
    await a.training.createModel(model('m'), checkpoint('c0', 'm', 0));
    await a.training.insertCheckpoint(checkpoint('c1', 'm', 1));
    await a.training.mirrorCheckpoints('m', [{ id: 'r0', step: 0, metrics: { loss: 0.5 } }, { id: 'r2', step: 2, metrics: {} }], 9);
    expect((await a.training.listCheckpoints('m')).map((c) => [c.id, c.step, c.metrics])).toEqual([['c0', 0, { loss: 0.5 }], ['r2', 2, {}]]);
  });

  it('applySettings and recordRollouts are one transaction each', async () => {
    const a = await app();
    await a.training.putBackend({ name: 'b1', base_url: 'http://x', api_key: 'k' });
    await a.training.applySettings({ settings: { 'training.record_completions': 'false' }, remove: ['b1'], put: [{ name: 'b2', base_url: 'http://y', api_key: 'k2' }] });
    expect([await a.settings.get('training.record_completions'), (await a.training.listBackends()).map((b) => b.name)]).toEqual(['false', ['b2']]);

    await a.training.createModel(model('m'), checkpoint('c0', 'm', 0));
    const stored = await a.training.recordRollouts({
      checkpoint: { id: 'c0', metrics: { 'train/reward': 0.5 } },
      feedback: [{ project_id: 'p', target_kind: 'trace', target_id: 't1', feedback_type: 'reward', payload: { reward: 0.5 } }],
    });
    expect(stored.map((f) => f.svc_ref)).toEqual(['svc:///p/trace/t1']);
    expect((await a.training.latestCheckpoint('m'))?.metrics).toEqual({ 'train/reward': 0.5 });
    // A bad record rolls the metrics back too.
    await expect(
      a.training.recordRollouts({ checkpoint: { id: 'c0', metrics: { other: 1 } }, feedback: [{ project_id: 'p', target_kind: 'trace', target_id: 't2', feedback_type: 'reward', created_at: 'nope' }] }),
    ).rejects.toThrow();
    expect((await a.training.latestCheckpoint('m'))?.metrics).toEqual({ 'train/reward': 0.5 });
  });

  it('failJob can end a job CANCELLED; the payload file name is dropped with it', async () => {
    const a = await app();
    await a.training.insertJob({ id: 'j', model_id: 'm', kind: 'sft', status: 'RUNNING', payload_file: 'training/payloads/j.json', summary: { n: 1 }, created_at_us: 3 });
    await a.training.failJob('j', { status: 'CANCELLED', event: { id: 'e', job_id: 'j', type: 'training_failed', data: { error_message: 'cancelled' }, created_at_us: 4 }, patch: { error_message: 'cancelled', payload_file: null } });
    expect(await a.training.getJob('j')).toMatchObject({ status: 'CANCELLED', payload_file: null, summary: { n: 1 } });
    expect(await a.training.endedJobsWithPayload()).toEqual([]);
  });

  it('addDatasetVersion numbers versions per name in its transaction; a failed placement stores nothing', async () => {
    const a = await app();
    const d = (id: string, sha: string) => ({ id, entity: 'e', project: 'p', name: 'n', bytes: 1, lines: 1, sha256: sha, source: 'upload' as const, created_at_us: 5 });
    const placed: number[] = [];
    const v0 = await a.training.addDatasetVersion(d('d0', 'aa'), (v) => (placed.push(v), `datasets/e/p/n/v${v}.jsonl`));
    const v1 = await a.training.addDatasetVersion(d('d1', 'bb'), (v) => (placed.push(v), `datasets/e/p/n/v${v}.jsonl`));
    expect([v0.version, v1.version, v1.file]).toEqual([0, 1, 'datasets/e/p/n/v1.jsonl']);
    await expect(a.training.addDatasetVersion(d('d2', 'cc'), () => {
      throw new Error('disk full');
    })).rejects.toThrow('disk full');
    expect((await a.training.getDataset('e', 'p', 'n', null))?.id).toBe('d1');
    expect((await a.training.datasetBySha('e', 'p', 'n', 'aa'))?.version).toBe(0);
    expect((await a.training.pageDatasets({ entity: 'e', project: null, name: null, after: null, limit: 10 }))?.map((x) => x.id)).toEqual(['d1', 'd0']);
    expect(placed).toEqual([0, 1]);
  });
});
