/**
 * Trajectory groups → RL samples (semantics §9.5, following the hosted service's open trainer):
 * advantage = reward − group mean, divided by (group std + 1e-6) when normalising (default on);
 * zero-advantage trajectories are dropped; only choices with logprobs are trained, plain assistant
 * messages too when `allow_training_without_logprobs`.
 */
import type { TrajectoryGroup } from '../../../shared/contract/training.js';
import type { ChatMessage, RlSample } from '../../training/engine.js';
import { encodeText } from '../../training/tokenizer.js';
import { SPECIAL } from '../../training/config.js';

export interface RlOptions {
  normalize: boolean;
  allowWithoutLogprobs: boolean;
  loss: 'cispo' | 'ppo';
  learningRate: number | undefined;
}

/** Reads the experimental_config keys the hosted client sends (both historical spellings accepted). */
export function rlOptions(cfg: Record<string, unknown> | null | undefined): RlOptions {
  const c = cfg ?? {};
  const bool = (k: string): boolean | undefined => (typeof c[k] === 'boolean' ? (c[k] as boolean) : undefined);
  const loss = c.loss_fn ?? c.loss;
  return {
    normalize: bool('normalize_advantages') ?? bool('scale_rewards') ?? true,
    allowWithoutLogprobs: bool('allow_training_without_logprobs') ?? false,
    loss: c.ppo === true || loss === 'ppo' ? 'ppo' : 'cispo',
    learningRate: typeof c.learning_rate === 'number' ? c.learning_rate : undefined,
  };
}

type Item = TrajectoryGroup['trajectories'][number]['messages_and_choices'][number];
const isChoice = (it: Item): it is Extract<Item, { message: unknown }> => typeof it === 'object' && it !== null && 'message' in it;

/** Group-relative advantages of one group's rewards. */
export function advantages(rewards: number[], normalize: boolean): number[] {
  if (rewards.length === 0) return [];
  const mean = rewards.reduce((a, b) => a + b, 0) / rewards.length;
  const std = Math.sqrt(rewards.reduce((a, r) => a + (r - mean) ** 2, 0) / rewards.length);
  return rewards.map((r) => (normalize ? (r - mean) / (std + 1e-6) : r - mean));
}

const TOKEN_ID = /^token_id:(\d+)$/;

/** Token ids of a choice's logprobs; null when any token is not a managed-model `token_id:<n>`. */
function tokenIds(content: { token: string; logprob: number }[]): { ids: number[]; logprobs: number[] } | null {
  const ids: number[] = [];
  const logprobs: number[] = [];
  for (const t of content) {
    const m = TOKEN_ID.exec(t.token);
    if (!m) return null;
    ids.push(Number(m[1]));
    logprobs.push(t.logprob);
  }
  return { ids, logprobs };
}

export function buildRlSamples(groups: TrajectoryGroup[], opts: RlOptions): RlSample[] {
  const samples: RlSample[] = [];
  for (const g of groups) {
    const adv = advantages(g.trajectories.map((t) => t.reward), opts.normalize);
    g.trajectories.forEach((t, ti) => {
      const a = adv[ti]!;
      if (a === 0) return;
      // The main history and each additional history (e.g. a sub-agent's) train with the trajectory's advantage.
      const histories = [t.messages_and_choices, ...t.additional_histories.map(historyItems).filter((h): h is Item[] => h !== null)];
      for (const items of histories) pushSamples(items, a, opts, samples);
    });
  }
  return samples;
}

/** `additional_histories` entries are `{messages_and_choices, tools}`; anything else is ignored. */
function historyItems(h: unknown): Item[] | null {
  const items = (h as { messages_and_choices?: unknown } | null)?.messages_and_choices;
  return Array.isArray(items) ? (items as Item[]) : null;
}

function pushSamples(items: Item[], a: number, opts: RlOptions, samples: RlSample[]): void {
  const history: ChatMessage[] = [];
  for (const it of items) {
    const msg = (isChoice(it) ? it.message : it) as ChatMessage;
    const content = isChoice(it) ? it.logprobs?.content : null;
    if (content && content.length > 0) {
      const parsed = tokenIds(content);
      if (parsed) samples.push({ prompt: [...history], completionTokenIds: parsed.ids, sampledLogprobs: parsed.logprobs, advantage: a });
    } else if (opts.allowWithoutLogprobs && msg.role === 'assistant' && typeof msg.content === 'string') {
      // No sampled logprobs: the old logprob of each token is taken as 0 (probability 1), so the
      // importance weight becomes the token's current probability — a damped, on-policy-style
      // update (the engine has no "use the current policy as reference" switch).
      const ids = [...encodeText(msg.content), SPECIAL.end];
      samples.push({ prompt: [...history], completionTokenIds: ids, sampledLogprobs: ids.map(() => 0), advantage: a });
    }
    history.push({ ...msg, role: msg.role, content: typeof msg.content === 'string' ? msg.content : (msg.content ?? null) } as ChatMessage);
  }
}
