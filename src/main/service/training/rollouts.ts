/**
 * `/log` rollouts (semantics §9.6) as data: split metrics for the latest checkpoint, and every
 * trajectory as a trace — a root `invoke_agent` span carrying the reward and the trajectory's
 * metrics, with one `chat` child per assistant turn — in one OTLP/JSON request, plus the reward of
 * each trace for its feedback record. Pure: the intake worker builds a large /log with it off the
 * server thread; log.ts stores the result.
 */
import type { TrajectoryGroup } from '../../../shared/contract/training.js';
import type { ModelRow } from '../../store/ports.js';
import { KIND, STATUS_OK, messageAttrs, spanId, spansRequest, splitSystem, traceId, type Attrs, type OtlpSpan } from './spans.js';
import { averageMetrics, projectOf } from './util.js';

export type RolloutModel = Pick<ModelRow, 'id' | 'name' | 'entity' | 'project' | 'run_id'>;

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
function trajectorySpans(model: RolloutModel, split: string, step: number, gi: number, ti: number, t: TrajectoryGroup['trajectories'][number], t0: bigint): OtlpSpan[] {
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

export interface Rollouts {
  /** The OTLP/JSON request of every trajectory's trace (null when there is none). */
  request: Record<string, unknown> | null;
  rewards: { trace_id: string; reward: number }[];
  metrics: Record<string, number>;
}

/** Everything /log stores, built from its input; `step` is the latest checkpoint's (0 when none). */
export function buildRollouts(model: RolloutModel, split: string, step: number, groups: TrajectoryGroup[], t0: bigint): Rollouts {
  const spans: OtlpSpan[] = [];
  const rewards: Rollouts['rewards'] = [];
  groups.forEach((g, gi) =>
    g.trajectories.forEach((t, ti) => {
      const ss = trajectorySpans(model, split, step, gi, ti, t, t0 + BigInt(spans.length) * 1_000_000n);
      rewards.push({ trace_id: ss[0]!.traceId, reward: t.reward });
      spans.push(...ss);
    }),
  );
  return { request: spans.length ? spansRequest(projectOf(model), spans) : null, rewards, metrics: splitMetrics(split, groups) };
}
