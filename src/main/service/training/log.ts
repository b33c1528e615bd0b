/**
 * POST /v1/preview/models/{id}/log (semantics §9.6): split metrics onto the latest checkpoint, and
 * every trajectory stored as a trace in the model's project — a root `invoke_agent` span carrying
 * the reward (custom attribute and a `reward` feedback record) with one `chat` span per assistant
 * turn — so rollouts read in the chat view and group by reward.
 */
import type { OpParsedInput, OpOutput } from '../../../shared/contract/index.js';
import type { TrajectoryGroup } from '../../../shared/contract/training.js';
import type { ServiceContext } from '../context.js';
import type { ModelRow } from '../../store/ports.js';
import type { SpanRecord } from '../../domain/span.js';
import { getModelOr404 } from './models.js';
import { blankSpan, spanId, spanMessage, splitSystem, traceId } from './spans.js';
import { averageMetrics, projectOf, runtimeOf } from './util.js';

/** `<split>/reward`, `/reward_std_dev`, `/exception_rate` and each trajectory metric averaged. */
export function splitMetrics(split: string, groups: TrajectoryGroup[]): Record<string, number> {
  const trajectories = groups.flatMap((g) => g.trajectories);
  const rewards = trajectories.map((t) => t.reward);
  const exceptions = groups.reduce((a, g) => a + g.exceptions.length, 0);
  const out: Record<string, number> = {};
  if (rewards.length) {
    const mean = rewards.reduce((a, b) => a + b, 0) / rewards.length;
    out[`${split}/reward`] = mean;
    out[`${split}/reward_std_dev`] = Math.sqrt(rewards.reduce((a, r) => a + (r - mean) ** 2, 0) / rewards.length);
  }
  out[`${split}/exception_rate`] = trajectories.length + exceptions ? exceptions / (trajectories.length + exceptions) : 0;
  const numeric = (m: Record<string, number | boolean>) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, Number(v)]));
  for (const [k, v] of Object.entries(averageMetrics(trajectories.map((t) => numeric(t.metrics))))) out[`${split}/${k}`] ??= v;
  return out;
}

type Item = TrajectoryGroup['trajectories'][number]['messages_and_choices'][number];
const asMessage = (it: Item): { role: string; content?: unknown; tool_calls?: unknown; finish_reason?: string } =>
  'message' in it && typeof it.message === 'object' ? { ...(it.message as object), role: 'assistant', finish_reason: (it.finish_reason as string) ?? 'stop' } : (it as { role: string });

function trajectorySpans(model: ModelRow, split: string, step: number, gi: number, ti: number, t: TrajectoryGroup['trajectories'][number], t0: bigint): SpanRecord[] {
  const project_id = projectOf(model);
  const trace_id = traceId();
  const root = blankSpan({ project_id, trace_id, span_id: spanId(), span_name: `invoke_agent ${model.name}`, start_ns: t0, end_ns: t0 });
  const conversation_id = `${model.name}/${split}/step${step}/group${gi}`;
  const messages = t.messages_and_choices.map(asMessage);
  const { system } = splitSystem(messages);
  const floats: Record<string, number> = { reward: t.reward };
  const ints: Record<string, number> = { 'loupe.trajectory_index': ti, 'loupe.group_index': gi };
  for (const [k, v] of Object.entries(t.metrics)) if (k !== 'reward') floats[k] = Number(v);
  Object.assign(root, {
    status_code: 'OK', operation_name: 'invoke_agent', provider_name: 'loupe', agent_name: model.name, agent_id: model.id,
    conversation_id, conversation_name: conversation_id, svc_run_id: model.run_id, svc_run_step: step,
    system_instructions: system, custom_attrs_float: floats, custom_attrs_int: ints,
    custom_attrs_string: { 'loupe.split': split, 'loupe.model_id': model.id },
  });
  const spans: SpanRecord[] = [root];
  let at = t0;
  messages.forEach((m, i) => {
    if (m.role !== 'assistant') return;
    const s = blankSpan({ project_id, trace_id, span_id: spanId(), parent_span_id: root.span_id, span_name: `chat ${model.name}`, start_ns: at, end_ns: at + 1_000_000n });
    at += 1_000_000n;
    const before = splitSystem(messages.slice(0, i)).rest;
    Object.assign(s, {
      span_kind: 'CLIENT', status_code: 'OK', operation_name: 'chat', provider_name: 'loupe', agent_name: model.name, conversation_id,
      request_model: `${model.entity}/${model.project}/${model.name}:step${step}`, svc_run_id: model.run_id, svc_run_step: step,
      system_instructions: system, input_messages: before.map((x) => spanMessage(x)),
      output_messages: [spanMessage(m, m.finish_reason ?? 'stop')], finish_reasons: [m.finish_reason ?? 'stop'],
    });
    spans.push(s);
  });
  root.end_ns = at;
  for (const s of spans) s.raw_span_dump = JSON.stringify({ name: s.span_name, traceId: s.trace_id, spanId: s.span_id, recordedBy: 'loupe-training' });
  return spans;
}

export async function logTrajectories(input: OpParsedInput<'training.log'>, ctx: ServiceContext): Promise<OpOutput<'training.log'>> {
  const model = await getModelOr404(ctx, input.model_id);
  const repo = ctx.app.training;
  if (model.backend) {
    const { model_id: _m, ...body } = input;
    await runtimeOf(ctx).remote.call(model.backend, 'POST', `/v1/preview/models/${encodeURIComponent(model.remote_model_id!)}/log`, body);
  }
  const latest = await repo.latestCheckpoint(model.id);
  const step = latest?.step ?? 0;
  const t0 = BigInt(Date.now()) * 1_000_000n;
  const spans: SpanRecord[] = [];
  const rewards: { trace_id: string; reward: number }[] = [];
  input.trajectory_groups.forEach((g, gi) =>
    g.trajectories.forEach((t, ti) => {
      const ss = trajectorySpans(model, input.split, step, gi, ti, t, t0 + BigInt(spans.length) * 1_000_000n);
      rewards.push({ trace_id: ss[0]!.trace_id, reward: t.reward });
      spans.push(...ss);
    }),
  );
  const project_id = projectOf(model);
  // Spans first, then metrics and rewards together (decision 0002): a retried /log rewrites the
  // spans idempotently, so no reward is ever stored for spans that are not.
  if (spans.length) ctx.store.ingest.writeBatch(spans);
  await repo.recordRollouts({
    checkpoint: latest ? { id: latest.id, metrics: { ...latest.metrics, ...splitMetrics(input.split, input.trajectory_groups) } } : null,
    feedback: rewards.map((r) => ({ project_id, target_kind: 'trace', target_id: r.trace_id, feedback_type: 'reward', payload: { reward: r.reward }, creator: 'loupe-training' })),
  });
  if (spans.length) ctx.events.emit({ type: 'data.changed', project_id, tables: ['spans', 'feedback'] });
  return {};
}
