/**
 * /log stores rollouts as traces (reward as custom attribute and feedback, conversation id
 * `<model>/<split>/step<N>/group<i>`), those conversations become an SFT dataset, and jobs survive
 * a restart (running → FAILED with a reason, queued → resumed).
 */
import fs from 'node:fs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { payloadRel, writePayload } from '../../src/main/service/training/payload.js';
import { openStores } from '../../src/main/store/index.js';
import { startTrainingServer, waitForJob, type TrainingServer } from './training-fixture.js';

let s: TrainingServer;
let modelId: string;
beforeAll(async () => {
  s = await startTrainingServer();
  modelId = (await s.req('POST', '/v1/preview/models', { entity: 'team', project: 'logs', name: 'agent', base_model: 'loupe-test-bytes' })).body.id;
});
afterAll(async () => s?.close());

const traj = (q: string, a: string, reward: number) => ({
  messages_and_choices: [
    { role: 'system', content: 'Answer briefly.' },
    { role: 'user', content: q },
    { finish_reason: 'stop', index: 0, message: { role: 'assistant', content: a }, logprobs: null },
  ],
  reward,
  metrics: { length: a.length },
});

test('/log: traces in the model project with reward attribute and feedback, readable as conversations', async () => {
  const groups = [
    { trajectories: [traj('2+2?', 'four', 1), traj('2+2?', 'five', 0)] },
    { trajectories: [traj('sky?', 'blue', 1)], exceptions: [{ type: 'Timeout', message: 'rollout timed out' }] },
  ];
  const r = await s.req('POST', `/v1/preview/models/${modelId}/log`, { split: 'val', trajectory_groups: groups });
  expect(r).toEqual({ status: 200, body: {} });

  const ck = (await s.req('GET', `/v1/preview/models/${modelId}/checkpoints`)).body.data[0];
  expect(ck.metrics['val/reward']).toBeCloseTo(2 / 3);
  expect(ck.metrics['val/exception_rate']).toBeCloseTo(1 / 4);
  expect(ck.metrics['val/length']).toBeCloseTo(4);

  const conv = await s.req('POST', '/agents/conversations/chat', { project_id: 'team/logs', conversation_id: 'agent/val/step0/group0', include_feedback: true });
  expect(conv.status).toBe(200);
  expect(conv.body.total_turns).toBe(2);
  const texts = conv.body.turns.map((t: { messages: { type: string; user_message: { text: string } | null; assistant_message: { text: string } | null }[] }) =>
    t.messages.filter((m) => m.type !== 'agent_start').map((m) => m.user_message?.text ?? m.assistant_message?.text),
  );
  expect(texts.sort()).toEqual([['2+2?', 'five'], ['2+2?', 'four']]);
  const rewards = conv.body.turns.map((t: { feedback: { feedback_type: string; payload: { reward: number } }[] }) => t.feedback.find((f) => f.feedback_type === 'reward')?.payload.reward);
  expect(rewards.sort()).toEqual([0, 1]);

  const fb = await s.req('POST', '/feedback/query', { project_id: 'team/logs', feedback_type: 'reward' });
  expect(fb.body.total_count).toBe(3);

  // Stored through the OTLP importer, which types custom attributes by JSON value: an integral reward
  // lands in the int map, a fractional one in the float map.
  const rewardsIn = async (source: string) => {
    const spans = await s.req('POST', '/agents/spans/query', { project_id: 'team/logs', limit: 100, custom_attr_columns: [{ key: 'reward', source }] });
    expect(spans.status).toBe(200);
    return spans.body.spans.filter((x: { operation_name: string }) => x.operation_name === 'invoke_agent').map((x: Record<string, Record<string, number>>) => x[source]!.reward);
  };
  expect((await rewardsIn('custom_attrs_int')).sort()).toEqual([0, 1, 1]);
});

test('rollout traces survive export and re-import: project, parents, times, conversation, messages and reward', async () => {
  // The first test logged the rollouts through the OTLP importer; export them as any OTLP tool would read them.
  const exported = await fetch(`${s.url}/export`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ project_id: 'team/logs' }) });
  expect(exported.status).toBe(200);
  const jsonl = await exported.text();
  const other = await startTrainingServer();
  try {
    // No project given: the spans carry it (resource attribute svc.project_id).
    const imp = await fetch(`${other.url}/import`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ content: jsonl }) });
    expect(imp.status).toBe(200);
    type Span = Record<string, unknown> & { span_id: string };
    const spans = async (srv: TrainingServer) => {
      const r = await srv.req('POST', '/agents/spans/query', {
        project_id: 'team/logs',
        limit: 1000,
        include_details: true,
        custom_attr_columns: [{ key: 'reward', source: 'custom_attrs_int' }],
      });
      expect(r.status).toBe(200);
      return (r.body.spans as Span[]).filter((x) => x.operation_name !== 'chat' || x.agent_name === 'agent').sort((a, b) => a.span_id.localeCompare(b.span_id));
    };
    const before = await spans(s);
    const after = await spans(other);
    expect(before.length).toBeGreaterThanOrEqual(6); // 3 trajectories: a root and a chat span each
    const keep = ['trace_id', 'span_id', 'parent_span_id', 'span_name', 'started_at', 'ended_at', 'operation_name', 'agent_name', 'conversation_id',
      'svc_run_id', 'svc_run_step', 'system_instructions', 'input_messages', 'output_messages', 'custom_attrs_int', 'status_code'];
    const pick = (x: Span) => Object.fromEntries(keep.map((k) => [k, x[k]]));
    expect(after.map(pick)).toEqual(before.map(pick));
    const roots = after.filter((x) => x.operation_name === 'invoke_agent');
    expect(roots.map((x) => (x.custom_attrs_int as Record<string, number>).reward).sort()).toEqual([0, 1, 1]);
    expect(after.filter((x) => x.parent_span_id).every((x) => roots.some((r) => r.span_id === x.parent_span_id))).toBe(true);
    const conv = await other.req('POST', '/agents/conversations/chat', { project_id: 'team/logs', conversation_id: 'agent/val/step0/group0' });
    expect(conv.body.total_turns).toBe(2);
  } finally {
    await other.close();
  }
}, 60_000);

test('datasets.fromConversations makes a dataset version (an artifact) that an SFT job trains on', async () => {
  const d = await s.req('POST', '/datasets/from-conversations', { project_id: 'team/logs', conversation_ids: ['agent/val/step0/group0', 'agent/val/step0/group1', 'no-such-conversation'], name: 'from-logs' });
  expect(d.status).toBe(200);
  expect(d.body.lines).toBe(2);
  expect(d.body.skipped).toEqual(['no-such-conversation']);
  expect(d.body.url).toBe('wandb-artifact:///team/logs/from-logs:v0');
  expect(d.body.dataset).toMatchObject({ entity: 'team', project: 'logs', name: 'from-logs', version: 'v0', lines: 2, source: 'conversations' });
  const first = JSON.parse(fs.readFileSync(d.body.path, 'utf8').split('\n')[0]!);
  expect(first.messages[0]).toEqual({ role: 'system', content: 'Answer briefly.' });
  expect(first.messages.filter((m: { role: string }) => m.role === 'assistant').length).toBe(2); // both turns of group 0
  const job = await s.req('POST', '/v1/preview/sft-training-jobs', { model_id: modelId, training_data_url: d.body.url });
  const events = await waitForJob(s, job.body.id);
  expect(events[0]).toMatchObject({ type: 'training_started', data: { num_sequences: 1 } }); // 2 lines, one batch
  expect(events.at(-1)!.type).toBe('training_ended');
  const bad = await s.req('POST', '/datasets/from-conversations', { project_id: 'team/logs', conversation_ids: [], name: '../x' });
  expect(bad.status).toBe(422);
  expect(bad.body.detail.map((x: { loc: string[] }) => x.loc.at(-1)).sort()).toEqual(['conversation_ids', 'name']);
}, 60_000);

test('restart: a job left RUNNING is FAILED with a reason; a queued job resumes and completes', async () => {
  const a = await startTrainingServer({ keep: true });
  const dataDir = a.dataDir;
  const id = (await a.req('POST', '/v1/preview/models', { project: 'restart', name: 'm', base_model: 'loupe-test-bytes' })).body.id;
  const data = `${dataDir}/r.jsonl`;
  fs.writeFileSync(data, JSON.stringify({ messages: [{ role: 'user', content: 'q' }, { role: 'assistant', content: 'a' }] }));
  await a.close();
  // What a crash leaves behind: one job marked RUNNING, one still QUEUED.
  const store = await openStores(dataDir);
  const now = Date.now() * 1000;
  const queue = async (job: string, at: number) => {
    writePayload(dataDir, payloadRel(job), { training_data_url: data, config: { batch_size: 'auto' } });
    await store.app.training.insertJob({ id: job, model_id: id, kind: 'sft', status: 'QUEUED', payload_file: payloadRel(job), summary: {}, created_at_us: at });
  };
  await queue('crashed', now);
  await store.app.training.updateJob('crashed', { status: 'RUNNING', training_start_us: now });
  await queue('waiting', now + 1);
  await store.close();

  const b = await startTrainingServer({ dataDir });
  try {
    const crashed = (await b.req('GET', '/v1/preview/training-jobs/crashed')).body;
    expect(crashed.status).toBe('FAILED');
    expect(crashed.error_message).toMatch(/stopped while this job was running/);
    const ev = await waitForJob(b, 'crashed');
    expect(ev.map((e) => e.type)).toEqual(['training_failed']);
    const waiting = await waitForJob(b, 'waiting');
    expect(waiting.at(-1)!.type).toBe('training_ended');
    expect((await b.req('GET', '/v1/preview/training-jobs/waiting')).body).toMatchObject({ status: 'COMPLETED', step: 1 });
  } finally {
    await b.close();
  }
}, 60_000);
