/**
 * One trace per logged rollout (issue 22.15): the open client's rollouts (completions through the
 * `openai` client, then models.log with the choices as ART dumps them) read as one trace each — the
 * `invoke_agent` root with the reward, and under it the completion spans recorded when they were
 * answered (same span ids, times and token usage) — not a completion trace beside a /log trace.
 * And the WAL during a training run (the report: 257 MB after 55 minutes) stays within its cap and
 * is emptied once the run stops (store/sqlite/wal.ts; the figure over a long run is the
 * training-soak bench's).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { WAL_POLICY } from '../../src/main/store/sqlite/wal.js';
import { startTrainingServer, type TrainingServer } from './training-fixture.js';
import { ArtClient, choiceDump, groupDump, trajectoryDump, type ArtModel } from './art-client.js';

let s: TrainingServer;
let art: ArtClient;
let m: ArtModel;
beforeAll(async () => {
  s = await startTrainingServer();
  art = new ArtClient(s.url, s.key);
  m = await art.register({ entity: null, project: 'rollouts', name: 'agent', base_model: 'loupe-test-bytes' });
}, 60_000);
afterAll(async () => s?.close());

type Span = { trace_id: string; span_id: string; parent_span_id: string | null; operation_name: string; conversation_id: string | null; input_tokens: number | null };
async function spans(): Promise<Span[]> {
  const r = await s.req('POST', '/agents/spans/query', { project_id: 'local/rollouts', limit: 1000 });
  expect(r.status).toBe(200);
  return r.body.spans as Span[];
}
const traces = (xs: Span[]) => [...new Set(xs.map((x) => x.trace_id))];

const system = { role: 'system', content: 'Answer in one word.' };
async function complete(messages: unknown[]) {
  const r = await art.openai.chat.completions.create({ model: art.inferenceName(m), messages: messages as never, max_completion_tokens: 4, temperature: 1 });
  return choiceDump(r.choices[0]!);
}

test('a logged rollout is one trace holding its recorded completions; a retried /log changes nothing; a choice not from Loupe gets a trace of its own', async () => {
  // Rollout A: one call. Rollout B: two calls (the second sees the first answer). Rollout C: a choice written by hand.
  const a1 = await complete([system, { role: 'user', content: 'sky?' }]);
  const b1 = await complete([system, { role: 'user', content: 'grass?' }]);
  const b2 = await complete([system, { role: 'user', content: 'grass?' }, b1.message, { role: 'user', content: 'and snow?' }]);
  const refs = [a1, b1, b2].map((c) => c.loupe as { trace_id: string; span_id: string });
  for (const r of refs) expect(r).toMatchObject({ trace_id: expect.stringMatching(/^[0-9a-f]{32}$/), span_id: expect.stringMatching(/^[0-9a-f]{16}$/) });
  const before = await spans();
  expect(traces(before).sort()).toEqual(refs.map((r) => r.trace_id).sort());
  const tokensOf = new Map(before.map((x) => [x.span_id, x.input_tokens]));

  const hand = { finish_reason: 'stop', index: 0, message: { role: 'assistant', content: 'white' }, logprobs: null };
  const groups = [
    groupDump([
      trajectoryDump([system, { role: 'user', content: 'sky?' }, a1], 1),
      trajectoryDump([system, { role: 'user', content: 'grass?' }, b1, { role: 'user', content: 'and snow?' }, b2], 0.5),
    ]),
    groupDump([trajectoryDump([system, { role: 'user', content: 'snow?' }, hand], 0)]),
  ];
  await art.log(m.id, groups, 'train');

  const check = async () => {
    const after = await spans();
    // Three rollouts, three traces: A and B took their first completion's trace, C has one of its own.
    const ts = traces(after);
    expect(ts).toHaveLength(3);
    expect(ts).toContain(refs[0]!.trace_id);
    expect(ts).toContain(refs[1]!.trace_id);
    expect(ts).not.toContain(refs[2]!.trace_id);
    const roots = after.filter((x) => x.operation_name === 'invoke_agent');
    expect(roots).toHaveLength(3);
    for (const root of roots) expect(root.parent_span_id ?? null).toBeNull();
    const under = (trace: string) => after.filter((x) => x.trace_id === trace && x.operation_name === 'chat');
    // The recorded completion spans themselves, under the root, with their usage kept.
    const rootOf = (trace: string) => roots.find((r) => r.trace_id === trace)!.span_id;
    expect(under(refs[0]!.trace_id).map((x) => x.span_id)).toEqual([refs[0]!.span_id]);
    expect(under(refs[1]!.trace_id).map((x) => x.span_id).sort()).toEqual([refs[1]!.span_id, refs[2]!.span_id].sort());
    for (const r of refs) {
      const x = after.find((y) => y.span_id === r.span_id)!;
      expect(x.parent_span_id).toBe(rootOf(x.trace_id));
      expect(x.input_tokens).toBe(tokensOf.get(r.span_id));
      expect(x.input_tokens).toBeGreaterThan(0);
      expect(x.conversation_id).toMatch(/^agent\/train\/step0\/group0$/);
    }
    expect(after).toHaveLength(3 + 3 + 1); // roots + three recorded calls + C's chat span
    // Rewards point at the rollout traces.
    const fb = await s.req('POST', '/feedback/query', { project_id: 'local/rollouts', feedback_type: 'reward' });
    expect(new Set(fb.body.feedback.map((f: { svc_ref: string }) => /[0-9a-f]{32}/.exec(f.svc_ref)?.[0]))).toEqual(new Set(ts));
  };
  await check();
  // The client retries the /log of A and B (its answer lost): the same traces, nothing doubled.
  await art.log(m.id, [groups[0]], 'train');
  await check();
}, 120_000);

test('the WAL stays within its cap during a training run (rollouts, /log, RL steps) and is emptied once it stops', async () => {
  const wal = path.join(s.dataDir, 'loupe.db-wal');
  const size = () => (fs.existsSync(wal) ? fs.statSync(wal).size : 0);
  let most = 0;
  const sampler = setInterval(() => (most = Math.max(most, size())), 50);
  try {
    const t = await art.register({ entity: null, project: 'rollouts', name: 'trained', base_model: 'loupe-test-bytes' });
    for (let step = 0; step < 4; step++) {
      const groups = [];
      for (const q of ['sky?', 'grass?']) {
        const prompt = [system, { role: 'user', content: q }];
        const trajectories = [];
        for (let k = 0; k < 3; k++) {
          const r = await art.openai.chat.completions.create({ model: art.inferenceName(t), messages: prompt as never, max_completion_tokens: 4, temperature: 1 });
          trajectories.push(trajectoryDump([...prompt, choiceDump(r.choices[0]!)], k / 2));
        }
        groups.push(groupDump(trajectories));
      }
      await art.log(t.id, groups, 'train');
      await art.train(t.id, groups);
      most = Math.max(most, size());
      expect(most).toBeLessThanOrEqual(WAL_POLICY.capBytes);
    }
    expect(await art.getStep(t.id)).toBe(4);
  } finally {
    clearInterval(sampler);
  }
  expect(most).toBeGreaterThan(0);
  // Idle: truncated to 0 bytes (waiting for the state, not for a fixed time).
  const until = Date.now() + 60_000;
  while (size() > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  expect(size()).toBe(0);
}, 300_000);

test('a streamed answer names its recorded span on each choice’s last chunk, as a non-streamed one does (none when recording is off)', async () => {
  const sm = await art.register({ entity: null, project: 'streamed', name: 'agent', base_model: 'loupe-test-bytes' });
  const stream = async () => {
    const last = new Map<number, Record<string, unknown>>();
    const req = { model: art.inferenceName(sm), messages: [system, { role: 'user', content: 'sky?' }] as never, max_completion_tokens: 4, n: 2, stream: true as const };
    for await (const c of await art.openai.chat.completions.create(req)) {
      for (const ch of c.choices) {
        const raw = ch as unknown as Record<string, unknown>;
        if (ch.finish_reason) last.set(ch.index, raw);
        else expect(raw.loupe).toBeUndefined(); // only on the last chunk of a choice
      }
    }
    return [0, 1].map((i) => last.get(i)!.loupe as { trace_id: string; span_id: string } | undefined);
  };
  const [a, b] = await stream();
  expect(a).toMatchObject({ trace_id: expect.stringMatching(/^[0-9a-f]{32}$/), span_id: expect.stringMatching(/^[0-9a-f]{16}$/) });
  expect(b).toEqual(a); // the two choices of one completion: one recorded span
  const r = await s.req('POST', '/agents/spans/query', { project_id: 'local/streamed', limit: 10 });
  expect(r.body.spans.map((x: Span) => [x.trace_id, x.span_id])).toEqual([[a!.trace_id, a!.span_id]]);
  expect((await s.req('POST', '/training/settings', { record_completions: false })).status).toBe(200);
  try {
    expect(await stream()).toEqual([undefined, undefined]);
  } finally {
    await s.req('POST', '/training/settings', { record_completions: true });
  }
}, 120_000);
