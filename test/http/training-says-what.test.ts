/**
 * Training that says what it is (issue 22 items 12, 14, 15-fingerprint): a hosted base model name
 * served by a built-in model says so in response headers and in the job's training_started event;
 * the open client's SFT rates are capped where the built-in model diverges, the event says what was
 * used, and the capped schedule learns; system_fingerprint carries one `loupe-` prefix.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { seededRandom } from '../../src/shared/seeded-random.js';
import { startTrainingServer, waitForJob, type TrainingServer } from './training-fixture.js';
import { ArtClient } from './art-client.js';
import { binomialTail } from '../helpers/stats.js';

let s: TrainingServer;
let art: ArtClient;
beforeAll(async () => {
  s = await startTrainingServer();
  art = new ArtClient(s.url, s.key);
});
afterAll(async () => s?.close());

const post = (p: string, body: unknown) =>
  fetch(`${s.url}${p}`, { method: 'POST', headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

test('a substituted base model says so in headers of the model and of each completion (also streamed), and in the job event', async () => {
  const created = await post('/v1/preview/models', { project: 'says', name: 'qwen', base_model: 'OpenPipe/Qwen3-14B-Instruct' });
  expect(created.status).toBe(200);
  expect(created.headers.get('x-loupe-runtime-model')).toBe('loupe-tiny-bytes-2k');
  expect(created.headers.get('x-loupe-substitution')).toBe('OpenPipe/Qwen3-14B-Instruct -> loupe-tiny-bytes-2k');
  const own = await post('/v1/preview/models', { project: 'says', name: 'own', base_model: 'loupe-test-bytes' });
  expect(own.headers.get('x-loupe-runtime-model')).toBe('loupe-test-bytes');
  expect(own.headers.get('x-loupe-substitution')).toBeNull();

  const c = await post('/v1/chat/completions', { model: 'local/says/qwen', messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 });
  expect(c.status).toBe(200);
  expect(c.headers.get('x-loupe-substitution')).toBe('OpenPipe/Qwen3-14B-Instruct -> loupe-tiny-bytes-2k');
  expect(((await c.json()) as { system_fingerprint: string }).system_fingerprint).toBe('loupe-tiny-bytes-2k-step0');
  const streamed = await post('/v1/chat/completions', { model: 'local/says/qwen', messages: [{ role: 'user', content: 'hi' }], max_tokens: 2, stream: true });
  expect(streamed.headers.get('content-type')).toMatch(/text\/event-stream/);
  expect(streamed.headers.get('x-loupe-runtime-model')).toBe('loupe-tiny-bytes-2k');
  expect(streamed.headers.get('x-loupe-substitution')).toBe('OpenPipe/Qwen3-14B-Instruct -> loupe-tiny-bytes-2k');
  await streamed.text();

  const model = (await created.json()) as { id: string };
  const dataFile = path.join(s.dataDir, 'one-line.jsonl');
  fs.writeFileSync(dataFile, `${JSON.stringify({ messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }] })}\n`);
  const job = await s.req('POST', '/v1/preview/sft-training-jobs', {
    model_id: model.id,
    training_data_url: `file://${dataFile}`,
    config: { batch_size: 1 },
  });
  expect(job.status).toBe(200);
  const events = await waitForJob(s, job.body.id);
  const started = events.find((e) => e.type === 'training_started')!;
  expect(started.data.model).toMatchObject({ base_model: 'OpenPipe/Qwen3-14B-Instruct', runtime_model: 'loupe-tiny-bytes-2k', substituted: true });
  expect(started.data.model.note).toContain('runs on the built-in loupe-tiny-bytes-2k');
}, 120_000);

test('tool_choice "required" or a named function with too small a max_tokens is a 400 naming max_tokens (never a 500), streamed or not; enough room gives a call', async () => {
  const tools = [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: {} } } }];
  for (const tool_choice of ['required', { type: 'function', function: { name: 'f' } }]) {
    for (const stream of [false, true]) {
      const r = await post('/v1/chat/completions', { model: 'local/says/qwen', messages: [{ role: 'user', content: 'go' }], tools, tool_choice, max_tokens: 5, stream });
      expect(r.status).toBe(400);
      const body = (await r.json()) as { error: { param: string; code: string; message: string } };
      expect(body.error).toMatchObject({ param: 'max_tokens', code: 'max_tokens_too_small' });
      expect(body.error.message).toMatch(/needs at least \d+ tokens/);
    }
  }
  const ok = await post('/v1/chat/completions', { model: 'local/says/qwen', messages: [{ role: 'user', content: 'go' }], tools, tool_choice: 'required', max_tokens: 40 });
  expect(ok.status).toBe(200);
  const c = (await ok.json()) as { choices: { message: { tool_calls: { function: { name: string; arguments: string } }[] } }[] };
  expect(c.choices[0]!.message.tool_calls[0]!.function.name).toBe('f');
  expect(typeof JSON.parse(c.choices[0]!.message.tool_calls[0]!.function.arguments)).toBe('object');
}, 120_000);

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const user = (content: string) => ({ role: 'user' as const, content });

/** The open client's train_sft_from_file schedule: linear warm-up over 10% of the batches to the peak, then linear decay. */
function clientSchedule(peak: number, batches: number): number[] {
  const warm = Math.max(1, Math.round(batches * 0.1));
  return Array.from({ length: batches }, (_, i) => (i < warm ? (peak * (i + 1)) / warm : (peak * (batches - i)) / (batches - warm)));
}

test("the client's SFT-from-file defaults (peak 2e-4) are capped where the built-in model diverges, said in the event, and learn", async () => {
  const rand = seededRandom(20261127);
  const word = (len: number) => Array.from({ length: len }, () => LETTERS[Math.floor(rand() * 26)]).join('');
  await s.req('POST', '/training/settings', { fallback_base_model: 'loupe-test-bytes' });
  const m = await art.register({ entity: null, project: 'says', name: 'length', base_model: 'OpenPipe/Qwen3-14B-Instruct' });
  const train = Array.from({ length: 240 }, (_, i) => word(3 + (i % 6)));
  const heldOut = Array.from({ length: 48 }, (_, i) => word(3 + (i % 6))).filter((w) => !train.includes(w));
  const lines = train.map((w) => ({ messages: [user(w), { role: 'assistant', content: String(w.length) }] }));
  const schedule = clientSchedule(2e-4, 120);
  const { events } = await art.trainSft(m, lines, { batch_size: 2, learning_rate: schedule });
  const lr = events.find((e) => e.type === 'training_started')!.data.learning_rate as any;
  // ×60 would be a 1.2e-2 peak: capped to 4e-3, the schedule's shape kept.
  expect(lr.how).toBe('scaled');
  expect(lr.sent).toEqual({ peak: 2e-4, batches: 120 });
  expect(lr.applied.peak).toBeCloseTo(4e-3, 10);
  expect(lr.capped).toMatchObject({ cap: 4e-3 });
  expect(lr.capped.scaled_peak).toBeCloseTo(1.2e-2, 10);
  const steps = events.filter((e) => e.type === 'gradient_step');
  expect(Math.max(...steps.map((e) => Number(e.data.learning_rate)))).toBeCloseTo(4e-3, 10);
  let exact = 0;
  for (const w of heldOut) {
    const r = await art.openai.chat.completions.create({ model: art.inferenceName(m), messages: [user(w)], max_completion_tokens: 2, temperature: 0 });
    if (r.choices[0]!.message.content === String(w.length)) exact++;
  }
  const p = binomialTail(heldOut.length, exact, 1 / 6);
  console.log(`capped client SFT schedule (word length): held-out exact ${exact}/${heldOut.length} (chance 1/6, p = ${p.toExponential(1)})`);
  expect(p).toBeLessThan(1e-6);
}, 600_000);
