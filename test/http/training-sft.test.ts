/**
 * SFT jobs on a real server with the real trainer: loss goes down and the trained checkpoint then
 * answers its training questions exactly (greedy); a bad data line fails the job naming the line;
 * deleting a model with a queued job fails that job cleanly and removes the weight files.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { LoupeEvent } from '../../src/shared/events.js';
import { startTrainingServer, waitForJob, type TrainingServer } from './training-fixture.js';

let s: TrainingServer;
beforeAll(async () => {
  s = await startTrainingServer();
});
afterAll(async () => s?.close());

const PAIRS = [
  ['capital of France?', 'Paris'],
  ['2+2?', 'four'],
  ['color of the sky?', 'blue'],
  ['opposite of hot?', 'cold'],
  ['what does a cat say?', 'meow'],
  ['first letter?', 'A'],
];
const line = (q: string, a: string) => JSON.stringify({ messages: [{ role: 'user', content: q }, { role: 'assistant', content: a }], tools: [] });

function writeData(name: string, lines: string[]): string {
  const f = path.join(s.dataDir, name);
  fs.writeFileSync(f, `${lines.join('\n')}\n`);
  return f;
}

async function newModel(name: string): Promise<string> {
  const r = await s.req('POST', '/v1/preview/models', { project: 'sft', name, base_model: 'loupe-test-bytes' });
  expect(r.status).toBe(200);
  return r.body.id;
}

test('SFT lowers the loss and the checkpoint then answers the training questions exactly', async () => {
  const id = await newModel('qa');
  const lines: string[] = [];
  for (let k = 0; k < 40; k++) for (const [q, a] of PAIRS) lines.push(line(q!, a!));
  const live: LoupeEvent[] = [];
  const off = s.loupe.ctx.events.on((e) => live.push(e));
  const job = await s.req('POST', '/v1/preview/sft-training-jobs', { model_id: id, training_data_url: `file://${writeData('qa.jsonl', lines)}`, config: { batch_size: 8, loupe_learning_rate: 3e-3 } });
  expect(job.status).toBe(200);
  const events = await waitForJob(s, job.body.id);
  off();
  // num_sequences is the number of gradient_step events that follow (the hosted client's progress total).
  expect(events[0]).toMatchObject({ type: 'training_started', data: { num_sequences: lines.length / 8 } });
  const steps = events.filter((e) => e.type === 'gradient_step').map((e) => e.data);
  expect(steps).toHaveLength(lines.length / 8);
  expect(steps.every((m) => m.learning_rate === 3e-3)).toBe(true); // loupe_learning_rate is literal
  const mean = (xs: { loss: number }[]) => xs.reduce((a, x) => a + x.loss, 0) / xs.length;
  expect(mean(steps.slice(-3))).toBeLessThan(mean(steps.slice(0, 3)) / 3);
  expect(events.at(-1)!.type).toBe('training_ended');
  // Live views got the same events and the status changes.
  expect(live.filter((e) => e.type === 'job.event').length).toBe(events.length);
  expect(live.filter((e) => e.type === 'job.status').map((e) => (e as { status: string }).status)).toEqual(['QUEUED', 'RUNNING', 'COMPLETED']);

  const job2 = (await s.req('GET', `/v1/preview/training-jobs/${job.body.id}`)).body;
  expect(job2).toMatchObject({ kind: 'sft', status: 'COMPLETED', step: 1 });
  expect(Date.parse(job2.training_end)).toBeGreaterThanOrEqual(Date.parse(job2.training_start));
  let exact = 0;
  for (const [q, a] of PAIRS) {
    const r = await s.req('POST', '/v1/chat/completions', { model: `local/sft/qa:step1`, messages: [{ role: 'user', content: q }], max_tokens: 16, temperature: 0 });
    if (r.body.choices[0].message.content === a) exact++;
  }
  expect(exact).toBeGreaterThanOrEqual(5);
  // stop strings cut the answer before the match.
  const cut = await s.req('POST', '/v1/chat/completions', { model: 'local/sft/qa', messages: [{ role: 'user', content: PAIRS[0]![0] }], max_tokens: 16, temperature: 0, stop: ['ri'] });
  expect(cut.body.choices[0]).toMatchObject({ message: { content: 'Pa' }, finish_reason: 'stop' });
  const before = await s.req('POST', '/v1/chat/completions', { model: `local/sft/qa:step0`, messages: [{ role: 'user', content: PAIRS[0]![0] }], max_tokens: 16, temperature: 0 });
  expect(before.body.choices[0].message.content).not.toBe(PAIRS[0]![1]);
}, 120_000);

test('an SFT file with a bad line fails the job with training_failed naming the line', async () => {
  const id = await newModel('bad-line');
  const f = writeData('bad.jsonl', [line('a', 'b'), line('c', 'd'), '{"messages": [{"role": "user", "content": 5}]}']);
  const job = await s.req('POST', '/v1/preview/sft-training-jobs', { model_id: id, training_data_url: f });
  const events = await waitForJob(s, job.body.id);
  expect(events.map((e) => e.type)).toEqual(['training_failed']);
  expect(events[0]!.data.error_message).toMatch(/bad\.jsonl line 3: messages\.0\.content/);
  const j = (await s.req('GET', `/v1/preview/training-jobs/${job.body.id}`)).body;
  expect(j.status).toBe('FAILED');
  expect(j.error_message).toMatch(/line 3/);
  // No checkpoint was made.
  expect((await s.req('GET', `/v1/preview/models/${id}/checkpoints`)).body.data).toHaveLength(1);
  // A relative path is refused at submission, naming the field.
  const rel = await s.req('POST', '/v1/preview/sft-training-jobs', { model_id: id, training_data_url: 'data.jsonl' });
  expect(rel.status).toBe(422);
  expect(rel.body.detail[0].loc).toEqual(['body', 'training_data_url']);
});

test('deleting a model cancels its jobs (the running one before its next step) and removes the weight files', async () => {
  const id = await newModel('doomed');
  const lines: string[] = [];
  for (let k = 0; k < 10; k++) for (const [q, a] of PAIRS) lines.push(line(q!, a!));
  const f = writeData('doomed.jsonl', lines);
  const first = await s.req('POST', '/v1/preview/sft-training-jobs', { model_id: id, training_data_url: f });
  const queued = await s.req('POST', '/v1/preview/sft-training-jobs', { model_id: id, training_data_url: f });
  expect((await s.req('GET', `/v1/preview/training-jobs/${queued.body.id}`)).body.status).toBe('QUEUED');
  const dir = path.join(s.dataDir, 'models', id);
  expect(fs.existsSync(path.join(dir, 'step0'))).toBe(true);
  const del = await s.req('DELETE', `/v1/preview/models/${id}`);
  expect(del.status).toBe(200);
  expect(fs.existsSync(dir)).toBe(false);
  const qEvents = await waitForJob(s, queued.body.id);
  expect(qEvents.map((e) => e.type)).toEqual(['training_failed']);
  expect(qEvents[0]!.data.error_message).toMatch(/deleted/);
  expect((await s.req('GET', `/v1/preview/training-jobs/${queued.body.id}`)).body.status).toBe('CANCELLED');
  // The job that was running when the model went was stopped (the delete waited for it), no files left behind.
  const fEvents = await waitForJob(s, first.body.id);
  expect(fEvents.at(-1)!.type).toBe('training_failed');
  expect(fs.existsSync(dir)).toBe(false);
  expect((await s.req('GET', `/v1/preview/training-jobs/${first.body.id}`)).body.status).toBe('CANCELLED');
}, 60_000);

test('job events page ascending with an exclusive after cursor', async () => {
  const id = await newModel('paging');
  const lines: string[] = [];
  for (let k = 0; k < 4; k++) for (const [q, a] of PAIRS) lines.push(line(q!, a!));
  const job = await s.req('POST', '/v1/preview/sft-training-jobs', { model_id: id, training_data_url: writeData('p.jsonl', lines), config: { batch_size: 4 } });
  const all = await waitForJob(s, job.body.id);
  expect(all).toHaveLength(1 + 6 + 1);
  const p1 = (await s.req('GET', `/v1/preview/training-jobs/${job.body.id}/events?limit=3`)).body;
  expect(p1.data.map((e: { id: string }) => e.id)).toEqual(all.slice(0, 3).map((e) => e.id));
  expect(p1.has_more).toBe(true);
  const p2 = (await s.req('GET', `/v1/preview/training-jobs/${job.body.id}/events?limit=100&after=${p1.last_id}`)).body;
  expect(p2.data.map((e: { id: string }) => e.id)).toEqual(all.slice(3).map((e) => e.id));
  expect(p2.has_more).toBe(false);
  expect((await s.req('GET', `/v1/preview/training-jobs/${job.body.id}/events?after=nope`)).status).toBe(404);
}, 60_000);
