/**
 * The loop end to end on the built-in trainer (issue 21, done-when 2): a task the recorded agent got
 * wrong on held-out conversations (it answers a word's length); SFT on 240 corrected conversations
 * (a dataset made from them with POST /datasets/from-conversations); replay of the held-out
 * conversations on the base checkpoint (step 0) and on the trained one; the reports' `expected`
 * scores go up on the trained checkpoint, measured by the sign test (z, exact p) against the
 * recorded answers and, paired turn by turn, against the base checkpoint's replay — a significance
 * level, not a threshold tuned to one run. Figures are printed.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { exportRequest, type DemoSpan } from '../../src/main/demo/otlp.js';
import { seededRandom } from '../../src/shared/seeded-random.js';
import { signTest } from '../../src/main/domain/sign-test.js';
import { startTrainingServer, waitForJob, type TrainingServer } from './training-fixture.js';
import { getJson, waitFor } from '../helpers/calc-replay.js';

const PROJECT = 'local/loop';
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const MS = 1_000_000n;
const hex = (n: number, w: number) => n.toString(16).padStart(w, '0');

let s: TrainingServer;
beforeAll(async () => {
  s = await startTrainingServer();
}, 120_000);
afterAll(async () => s?.close());

/** One recorded turn: the user's word, the agent's answer (a model call with temperature 0, at most 2 tokens). */
function turn(i: number, word: string, answer: string): DemoSpan {
  const t = BigInt(Date.UTC(2026, 10, 2, 9, 0, 0) + i * 1000) * MS;
  return {
    traceId: hex(0x10000 + i, 32), spanId: hex(0x20000 + i, 16), name: 'chat counter', kind: 3, startNs: t, endNs: t + 50n * MS,
    attributes: {
      'gen_ai.conversation.id': `len-${i}`, 'gen_ai.agent.name': 'counter', 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'counter-v1',
      'gen_ai.request.temperature': 0, 'gen_ai.request.max_tokens': 2,
      'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: word }] }]),
      'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: answer }], finish_reason: 'stop' }]),
    },
  };
}

/** The open client's train_sft_from_file schedule (warm-up over 10 %, linear decay), as training-says-what uses. */
function clientSchedule(peak: number, batches: number): number[] {
  const warm = Math.max(1, Math.round(batches * 0.1));
  return Array.from({ length: batches }, (_, i) => (i < warm ? (peak * (i + 1)) / warm : (peak * (batches - i)) / (batches - warm)));
}

test('replay → train on the fix → replay: the held-out scores go up, with the sign test of the change', async () => {
  const rand = seededRandom(20261127);
  const word = (len: number) => Array.from({ length: len }, () => LETTERS[Math.floor(rand() * 26)]).join('');
  const train = Array.from({ length: 240 }, (_, i) => word(3 + (i % 6)));
  const heldOut = Array.from({ length: 48 }, (_, i) => word(3 + (i % 6))).filter((w) => !train.includes(w));
  // Corrected training conversations answer right; the held-out ones hold the old agent's wrong answers (one too many).
  const spans = [...train.map((w, i) => turn(i, w, String(w.length))), ...heldOut.map((w, j) => turn(1000 + j, w, String(w.length + 1)))];
  const stored = await fetch(`${s.url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-project-id': PROJECT }, body: JSON.stringify(exportRequest('counter', {}, spans)) });
  expect(stored.status).toBe(200);
  const heldConvs = heldOut.map((_, j) => `len-${1000 + j}`);
  const expected = Object.fromEntries(heldOut.map((w, j) => [heldConvs[j]!, String(w.length)]));

  // The fix as a dataset made from the corrected conversations; a model on the built-in trainer.
  const ds = await s.req('POST', '/datasets/from-conversations', { project_id: PROJECT, conversation_ids: train.map((_, i) => `len-${i}`), name: 'counter-fixed' });
  expect(ds.status).toBe(200);
  expect(ds.body.lines).toBe(240);
  const model = await s.req('POST', '/v1/preview/models', { project: 'loop', name: 'counter', base_model: 'loupe-test-bytes' });
  expect(model.status).toBe(200);
  const modelId = model.body.id as string;

  const replay = async (target: Record<string, unknown>, label: string) => {
    const r = await s.req('POST', '/app/replays', { project_id: PROJECT, conversation_ids: heldConvs, target, label, budget: { concurrency: 4 }, check: { name: 'correct', expected, match: 'equals' } });
    expect(r.status).toBe(200);
    const done = await waitFor(s.url, r.body.replay_id, undefined, 300_000);
    expect(done.totals).toMatchObject({ items: heldOut.length, done: heldOut.length, failed: 0 });
    return (await getJson(s.url, `/app/replays/${r.body.replay_id}/report?sort=original`)).body;
  };

  // Round 0: the base checkpoint.
  const base = await replay({ model_id: modelId, step: 0 }, 'round 0: base');
  // Train on the fix, then round 1 on the trained checkpoint (its latest step).
  const job = await s.req('POST', '/v1/preview/sft-training-jobs', { model_id: modelId, training_data_url: ds.body.url, config: { batch_size: 2, learning_rate: clientSchedule(2e-4, 120) } });
  expect(job.status).toBe(200);
  const events = await waitForJob(s, job.body.id, 500, 600_000);
  expect(events.some((e) => e.type === 'training_ended')).toBe(true);
  const trained = await replay({ model_id: modelId }, 'round 1: trained on the fix');

  const [b] = base.score_totals;
  const [t] = trained.score_totals;
  expect(b.name).toBe('correct');
  // The recorded answers were all wrong; the trained checkpoint's replay is right far more often than that, and than the base.
  expect(t.original_mean).toBe(0);
  expect(t.down).toBe(0);
  expect(t.p).toBeLessThan(1e-6);
  const score = (rep: any) => new Map<string, number>((rep.rows as any[]).map((r) => [r.original_trace_id, r.scores.correct?.replay ?? 0]));
  const sb = score(base);
  const st = score(trained);
  let up = 0;
  let down = 0;
  for (const [id, v] of st) {
    const w = sb.get(id) ?? 0;
    if (v > w) up++;
    else if (v < w) down++;
  }
  const paired = signTest(up, down);
  console.log(
    `loop on loupe-test-bytes, ${heldOut.length} held-out turns: recorded 0/${heldOut.length} right; base step 0 replay mean ${b.replay_mean.toFixed(2)}; ` +
      `trained replay mean ${t.replay_mean.toFixed(2)} (vs recorded: up ${t.up}, z ${t.z.toFixed(2)}, p ${t.p.toExponential(1)}); ` +
      `trained vs base, paired: up ${up}, down ${down}, z ${paired.z?.toFixed(2)}, p ${paired.p?.toExponential(1)}; training ${events.length} events`,
  );
  expect(paired.p).toBeLessThan(1e-6);
  expect(t.replay_mean).toBeGreaterThan(b.replay_mean);
}, 900_000);
