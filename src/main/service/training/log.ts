/**
 * POST /v1/preview/models/{id}/log (semantics §9.6): split metrics onto the latest checkpoint, and
 * every trajectory stored as a trace in the model's project — a root `invoke_agent` span carrying
 * the reward (custom attribute and a `reward` feedback record) with one `chat` span per assistant
 * turn — so rollouts read in the chat view and group by reward. The spans go through the OTLP
 * importer like any exporter's (spans.ts), so they survive export and re-import.
 */
import type { OpParsedInput, OpOutput } from '../../../shared/contract/index.js';
import type { TrajectoryGroup } from '../../../shared/contract/training.js';
import type { ServiceContext } from '../context.js';
import type { ModelRow } from '../../store/ports.js';
import { getModelOr404 } from './models.js';
import { KIND, STATUS_OK, messageAttrs, importSpans, spanId, splitSystem, traceId, type Attrs, type OtlpSpan } from './spans.js';
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
type Msg = { role: string; content?: unknown; tool_calls?: unknown; tool_call_id?: unknown; finish_reason?: string };
const asMessage = (it: Item): Msg =>
  'message' in it && typeof it.message === 'object' ? { ...(it.message as object), role: 'assistant', finish_reason: (it.finish_reason as string) ?? 'stop' } : (it as Msg);

/**
 * One trajectory as a trace: a root `invoke_agent` span carrying the reward and the trajectory's
 * metrics, with one `chat` child per assistant turn (its input = the conversation before it).
 */
function trajectorySpans(model: ModelRow, split: string, step: number, gi: number, ti: number, t: TrajectoryGroup['trajectories'][number], t0: bigint): OtlpSpan[] {
  const trace = traceId();
  const rootId = spanId();
  const conversation = `${model.name}/${split}/step${step}/group${gi}`;
  const messages = t.messages_and_choices.map(asMessage);
  const { system } = splitSystem(messages);
  const common = { 'gen_ai.provider.name': 'loupe', 'gen_ai.agent.name': model.name, 'gen_ai.conversation.id': conversation, 'svc.run_id': model.run_id, 'svc.run_step': step };
  const children: OtlpSpan[] = [];
  let at = t0;
  messages.forEach((m, i) => {
    if (m.role !== 'assistant') return;
    const before = splitSystem(messages.slice(0, i)).rest;
    children.push({
      traceId: trace,
      spanId: spanId(),
      parentSpanId: rootId,
      name: `chat ${model.name}`,
      kind: KIND.client,
      startNs: at,
      endNs: at + 1_000_000n,
      status: STATUS_OK,
      attributes: {
        ...common,
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': `${model.entity}/${model.project}/${model.name}:step${step}`,
        ...messageAttrs(system, before, [{ message: m, finish_reason: m.finish_reason ?? 'stop' }]),
      },
    });
    at += 1_000_000n;
  });
  const metrics: Attrs = {};
  for (const [k, v] of Object.entries(t.metrics)) if (k !== 'reward') metrics[k] = typeof v === 'boolean' ? v : Number(v);
  const root: OtlpSpan = {
    traceId: trace,
    spanId: rootId,
    name: `invoke_agent ${model.name}`,
    kind: KIND.internal,
    startNs: t0,
    endNs: at,
    status: STATUS_OK,
    attributes: {
      ...common,
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.id': model.id,
      'gen_ai.conversation.name': conversation,
      'gen_ai.system_instructions': system.length ? JSON.stringify(system.map((content) => ({ type: 'text', content }))) : undefined,
      ...metrics,
      reward: t.reward,
      'loupe.trajectory_index': ti,
      'loupe.group_index': gi,
      'loupe.split': split,
      'loupe.model_id': model.id,
    },
  };
  return [root, ...children];
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
  const spans: OtlpSpan[] = [];
  const rewards: { trace_id: string; reward: number }[] = [];
  input.trajectory_groups.forEach((g, gi) =>
    g.trajectories.forEach((t, ti) => {
      const ss = trajectorySpans(model, input.split, step, gi, ti, t, t0 + BigInt(spans.length) * 1_000_000n);
      rewards.push({ trace_id: ss[0]!.traceId, reward: t.reward });
      spans.push(...ss);
    }),
  );
  const project_id = projectOf(model);
  // Spans first, then metrics and rewards together (decision 0002): a retried /log rewrites the
  // spans idempotently, so no reward is ever stored for spans that are not.
  if (spans.length) importSpans(ctx, project_id, spans);
  await repo.recordRollouts({
    checkpoint: latest ? { id: latest.id, metrics: { ...latest.metrics, ...splitMetrics(input.split, input.trajectory_groups) } } : null,
    feedback: rewards.map((r) => ({ project_id, target_kind: 'trace', target_id: r.trace_id, feedback_type: 'reward', payload: { reward: r.reward }, creator: 'loupe-training' })),
  });
  if (spans.length) ctx.events.emit({ type: 'data.changed', project_id, tables: ['spans', 'feedback'] });
  return {};
}
