/**
 * The SFT dataset from reviews (issue 20 item 3, `POST /datasets/from-reviews`) on a real server:
 * reviewers label and correct turns through `POST /app/scores/create` (a correction is a score's
 * `correction`), then one call writes the corrected turns (the reviewer's answer in place of the
 * original, the conversation before it as context) and the turns a `good` condition picks, as a
 * dataset version in the training API's format — which an SFT job on the built-in trainer accepts
 * and trains on to the end.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTurn, postTurns } from '../helpers/eval-turns.js';
import { startTrainingServer, waitForJob, type TrainingServer } from './training-fixture.js';

const P = 'acme/review';
let s: TrainingServer;

const at = Date.parse('2026-11-22T08:00:00.000Z');
const a1 = buildTurn({ seed: 'sft-a1', conversation: 'conv-a', at, question: 'What is 2+2?', answer: '4' });
const a2 = buildTurn({ seed: 'sft-a2', conversation: 'conv-a', at: at + 60_000, question: 'And 3+3?', answer: '7' });
const b1 = buildTurn({ seed: 'sft-b1', conversation: 'conv-b', at: at + 120_000, question: 'Capital of Italy?', answer: 'Rome.' });
const c1 = buildTurn({ seed: 'sft-c1', conversation: 'conv-c', at: at + 180_000, question: 'Capital of Chile?', answer: 'Lima.' });
const d1 = buildTurn({ seed: 'sft-d1', conversation: 'conv-d', at: at + 240_000, question: 'Spell cat backwards', answer: 'tac' });

const score = (trace_id: string, label: string, extra: Record<string, unknown> = {}) => ({ target: 'turn', trace_id, name: 'review', label, source: 'human', ...extra });

beforeAll(async () => {
  s = await startTrainingServer();
  await postTurns(s.url, P, [a1, a2, b1, c1, d1]);
  const r = await s.req('POST', '/app/scores/create', {
    project_id: P,
    scores: [
      // Two reviewers corrected a2; the newer correction wins.
      score(a2.traceId, 'bad', { creator: 'ana', correction: '3+3 is 5.', created_at: '2026-11-23T10:00:00Z' }),
      score(a2.traceId, 'bad', { creator: 'bo', correction: '3+3 is 6.', created_at: '2026-11-23T11:00:00Z' }),
      score(b1.traceId, 'good', { creator: 'ana' }),
      // Labelled bad without a correction: not a training example.
      score(c1.traceId, 'bad', { creator: 'ana' }),
      // Good by a rule, not by a person: the condition below asks for human labels.
      { target: 'turn', trace_id: d1.traceId, name: 'review', label: 'good', source: 'rule', scorer: 'r' },
    ],
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}, 180_000);

afterAll(async () => {
  await s?.close();
});

const linesOf = (file: string) => fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { messages: { role: string; content: string | null }[]; tools: unknown[] });

describe('SFT dataset from reviews', () => {
  it('writes corrected turns with the correction as the answer and good turns as they are', async () => {
    const r = await s.req('POST', '/datasets/from-reviews', { project_id: P, good: { name: 'review', labels: ['good'], source: 'human' }, name: 'reviewed' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ lines: 2, corrected: 1, good: 1, skipped: [], url: 'wandb-artifact:///acme/review/reviewed:v0', dataset: { source: 'conversations', lines: 2, version: 'v0' } });
    const [conv_a, conv_b] = linesOf(r.body.path);
    const text = (l: typeof conv_a) => l!.messages.map((m) => [m.role, m.content]);
    // The corrected turn with the conversation before it; the answer is the newest correction.
    expect(text(conv_a)).toEqual([['user', 'What is 2+2?'], ['assistant', '4'], ['user', 'And 3+3?'], ['assistant', '3+3 is 6.']]);
    expect(text(conv_b)).toEqual([['user', 'Capital of Italy?'], ['assistant', 'Rome.']]);
    expect(conv_a!.tools).toEqual([]);
    // Corrections only; one conversation; the same content again is the same version.
    const only = await s.req('POST', '/datasets/from-reviews', { project_id: P, conversation_ids: ['conv-b', 'conv-c'], good: { name: 'review', labels: ['good'] }, corrections: false, name: 'only-b' });
    expect(only.body).toMatchObject({ lines: 1, corrected: 0, good: 1 });
    const again = await s.req('POST', '/datasets/from-reviews', { project_id: P, good: { name: 'review', labels: ['good'], source: 'human' }, name: 'reviewed' });
    expect(again.body.dataset.version).toBe('v0');
  });

  it('names a bad condition, and a training job accepts the dataset and trains on it', async () => {
    const bad = await s.req('POST', '/datasets/from-reviews', { project_id: P, good: { labels: ['good'] } });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body)).toContain('good');
    const ds = await s.req('POST', '/datasets/from-reviews', { project_id: P, good: { name: 'review', labels: ['good'], source: 'human' }, name: 'reviewed' });
    const model = await s.req('POST', '/v1/preview/models', { project: 'review', name: 'fixer', base_model: 'loupe-test-bytes' });
    expect(model.status, JSON.stringify(model.body)).toBe(200);
    const job = await s.req('POST', '/v1/preview/sft-training-jobs', { model_id: model.body.id, training_data_url: ds.body.url, config: { batch_size: 1 } });
    expect(job.status, JSON.stringify(job.body)).toBe(200);
    const events = await waitForJob(s, job.body.id, 200, 300_000);
    expect(events.map((e) => e.type)).toContain('training_ended');
  }, 330_000);
});
