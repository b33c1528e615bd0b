/**
 * `/log` rollouts (semantics §9.6) as data: split metrics for the latest checkpoint, and every
 * trajectory as a trace — a root `invoke_agent` span carrying the reward and the trajectory's
 * metrics, with one `chat` child per assistant turn — in one OTLP/JSON request, plus the reward of
 * each trace for its feedback record. Pure: the intake worker builds a large /log with it off the
 * server thread; log.ts stores the result.
 */
import type { TrajectoryGroup } from '../../../shared/contract/training.js';
import type { ModelRow } from '../../store/ports.js';
import { createHash } from 'node:crypto';
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
type Msg = { role: string; content?: unknown; tool_calls?: unknown; tool_call_id?: unknown; finish_reason?: string; ref?: SpanRef };
const asMessage = (it: Item): Msg =>
  'message' in it && typeof it.message === 'object'
    ? { ...(it.message as object), role: 'assistant', finish_reason: (it.finish_reason as string) ?? 'stop', ref: spanRefOf(it) }
    : (it as Msg);

/** The completion span a choice came from: `/v1/chat/completions` puts `loupe: {trace_id, span_id}` on every choice it records. */
export interface SpanRef {
  trace_id: string;
  span_id: string;
}
const HEX = (n: number) => new RegExp(`^[0-9a-f]{${n}}$`);
function spanRefOf(choice: object): SpanRef | undefined {
  const ref = (choice as { loupe?: unknown }).loupe;
  if (!ref || typeof ref !== 'object') return undefined;
  const { trace_id, span_id } = ref as Record<string, unknown>;
  return typeof trace_id === 'string' && typeof span_id === 'string' && HEX(32).test(trace_id) && HEX(16).test(span_id) ? { trace_id, span_id } : undefined;
}

/** The root span id of the rollout trace that adopted a completion's trace: the same on a retried /log. */
const rootIdOf = (trace: string): string => createHash('sha256').update(`loupe-rollout:${trace}`).digest('hex').slice(0, 16);

/**
 * One trajectory as a trace: a root `invoke_agent` span carrying the reward and the trajectory's
 * metrics, with one `chat` child per assistant turn (its input = the conversation before it).
 */
function trajectorySpans(model: RolloutModel, split: string, step: number, gi: number, ti: number, t: TrajectoryGroup['trajectories'][number], t0: bigint, claimed: Set<string>): { spans: OtlpSpan[]; moves: SpanRef[] } {
  const messages = t.messages_and_choices.map(asMessage);
  // A trajectory whose choices came from recorded completions becomes the trace of its first
  // completion, and each recorded completion span becomes a child of its root (rollout-join.ts):
  // one trace per rollout. A span goes to one trajectory only: named twice (a choice copied, or two
  // choices of one `n: 2` completion in two trajectories), the first takes it and the other builds
  // its chat span from its own choice.
  const moves: SpanRef[] = [];
  for (const m of messages) {
    if (!m.ref || claimed.has(m.ref.span_id)) continue;
    claimed.add(m.ref.span_id);
    moves.push(m.ref);
  }
  const trace = moves[0]?.trace_id ?? traceId();
  const rootId = moves.length ? rootIdOf(trace) : spanId();
  const moved = new Set(moves.map((r) => r.span_id));
  const conversation = `${model.name}/${split}/step${step}/group${gi}`;
  const { system } = splitSystem(messages);
  const common = { 'gen_ai.provider.name': 'loupe', 'gen_ai.agent.name': model.name, 'gen_ai.conversation.id': conversation, 'svc.run_id': model.run_id, 'svc.run_step': step };
  const children: OtlpSpan[] = [];
  let at = t0;
  messages.forEach((m, i) => {
    if (m.role !== 'assistant') return;
    const before = splitSystem(messages.slice(0, i)).rest;
    const id = m.ref && moved.delete(m.ref.span_id) ? m.ref.span_id : spanId();
    children.push({
      traceId: trace,
      spanId: id,
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
  return { spans: [root, ...children], moves };
}

/**
 * A trajectory that names recorded completion spans: its spans as built from the trajectory (the
 * chat children of named choices carry the completion span's id, and stand in for it if that span
 * is not stored), and the spans to move into it. log.ts stores these through rollout-join.ts.
 */
export interface LinkedRollout {
  trace_id: string;
  spans: OtlpSpan[];
  moves: SpanRef[];
  /** Attributes every moved span gets (agent, conversation), as on the built children. */
  common: Attrs;
}

export interface Rollouts {
  /** The OTLP/JSON request of every trajectory's trace that names no recorded completion (null when there is none). */
  request: Record<string, unknown> | null;
  /** Trajectories that name recorded completions (joined to their spans when stored). */
  linked: LinkedRollout[];
  rewards: { trace_id: string; reward: number }[];
  metrics: Record<string, number>;
}

/** Everything /log stores, built from its input; `step` is the latest checkpoint's (0 when none). */
export function buildRollouts(model: RolloutModel, split: string, step: number, groups: TrajectoryGroup[], t0: bigint): Rollouts {
  const spans: OtlpSpan[] = [];
  const linked: LinkedRollout[] = [];
  const rewards: Rollouts['rewards'] = [];
  const claimed = new Set<string>();
  let at = t0;
  groups.forEach((g, gi) =>
    g.trajectories.forEach((t, ti) => {
      const r = trajectorySpans(model, split, step, gi, ti, t, at, claimed);
      at += BigInt(r.spans.length) * 1_000_000n;
      const root = r.spans[0]!;
      rewards.push({ trace_id: root.traceId, reward: t.reward });
      if (!r.moves.length) spans.push(...r.spans);
      else {
        // A moved completion span keeps its own svc.run_step (the checkpoint that wrote it).
        const a = root.attributes;
        const common: Attrs = { 'gen_ai.agent.name': a['gen_ai.agent.name'], 'gen_ai.conversation.id': a['gen_ai.conversation.id'] };
        linked.push({ trace_id: root.traceId, spans: r.spans, moves: r.moves, common });
      }
    }),
  );
  return { request: spans.length ? spansRequest(projectOf(model), spans) : null, linked, rewards, metrics: splitMetrics(split, groups) };
}
