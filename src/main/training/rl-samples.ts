/**
 * Trajectory groups → RL samples (semantics §9.5, following the hosted service's open trainer) and their training order:
 * advantage = reward − group mean, divided by (group std + 1e-6) when normalising (default on);
 * zero-advantage trajectories are dropped; only choices with logprobs are trained, plain assistant
 * messages too when `allow_training_without_logprobs`. Runs in the trainer worker (the job's
 * payload file is read there, off the main thread).
 */
import type { TrajectoryGroup } from '../../shared/contract/training.js';
import type { ChatMessage, RlSample, RlSampleOptions } from './engine.js';
import { encodeText, messageText } from './tokenizer.js';
import { SPECIAL, VOCAB_SIZE } from './config.js';
import { seededRandom } from '../../shared/seeded-random.js';

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

/** Token ids of a choice's logprobs; null when any token is not one of this model's `token_id:<n>`. */
function tokenIds(content: { token: string; logprob: number }[]): { ids: number[]; logprobs: number[] } | null {
  const ids: number[] = [];
  const logprobs: number[] = [];
  for (const t of content) {
    const m = TOKEN_ID.exec(t.token);
    if (!m || Number(m[1]) >= VOCAB_SIZE || !Number.isFinite(t.logprob)) return null;
    ids.push(Number(m[1]));
    logprobs.push(t.logprob);
  }
  return { ids, logprobs };
}

/** Why trajectories that should train produced no sample (the job's failure reason). */
export interface RlSampleStats {
  /** Trajectories whose advantage is not zero (the ones that would train). */
  withAdvantage: number;
  /** Choices of those trajectories without logprobs (and allow_training_without_logprobs off). */
  choicesWithoutLogprobs: number;
  /** Choices whose logprob tokens are not `token_id:<n>` of this model (sampled by another model). */
  foreignChoices: number;
}

export function buildRlSamples(groups: TrajectoryGroup[], opts: RlSampleOptions): { samples: RlSample[]; stats: RlSampleStats } {
  const samples: RlSample[] = [];
  const stats: RlSampleStats = { withAdvantage: 0, choicesWithoutLogprobs: 0, foreignChoices: 0 };
  for (const g of groups) {
    const adv = advantages(g.trajectories.map((t) => t.reward), opts.normalize);
    g.trajectories.forEach((t, ti) => {
      const a = adv[ti]!;
      if (a === 0) return;
      stats.withAdvantage++;
      // The main history and each additional history (e.g. a sub-agent's) train with the trajectory's advantage.
      const histories = [t.messages_and_choices, ...(t.additional_histories ?? []).map(historyItems).filter((h): h is Item[] => h !== null)];
      for (const items of histories) pushSamples(items, a, opts, samples, stats);
    });
  }
  return { samples, stats };
}

/** The failure message when trajectories should train but none of their choices can. */
export function nothingTrainable(stats: RlSampleStats): string {
  const why: string[] = [];
  if (stats.choicesWithoutLogprobs) {
    why.push(`${stats.choicesWithoutLogprobs} choice(s) carry no logprobs (request completions with logprobs, or set experimental_config.allow_training_without_logprobs)`);
  }
  if (stats.foreignChoices) why.push(`${stats.foreignChoices} choice(s) carry tokens that are not this model's token_id:<n> (sampled by another model)`);
  if (!why.length) why.push('they hold no assistant choice');
  return `Nothing to train: the ${stats.withAdvantage} trajectories with a non-zero advantage hold no trainable choice — ${why.join('; ')}`;
}

/** `additional_histories` entries are `{messages_and_choices, tools}`; anything else is ignored. */
function historyItems(h: unknown): Item[] | null {
  const items = (h as { messages_and_choices?: unknown } | null)?.messages_and_choices;
  return Array.isArray(items) ? (items as Item[]) : null;
}

function pushSamples(items: Item[], a: number, opts: RlSampleOptions, samples: RlSample[], stats: RlSampleStats): void {
  const history: ChatMessage[] = [];
  for (const it of items) {
    const msg = (isChoice(it) ? it.message : it) as ChatMessage;
    const content = isChoice(it) ? it.logprobs?.content : null;
    if (content && content.length > 0) {
      const parsed = tokenIds(content);
      if (parsed) samples.push({ prompt: [...history], completionTokenIds: parsed.ids, sampledLogprobs: parsed.logprobs, advantage: a });
      else stats.foreignChoices++;
    } else if (opts.allowWithoutLogprobs && msg.role === 'assistant' && messageText(msg) !== '') {
      // No sampled logprobs: the old logprob of each token is taken as 0 (probability 1), so the
      // importance weight becomes the token's current probability — a damped, on-policy-style
      // update (the engine has no "use the current policy as reference" switch).
      const ids = [...encodeText(messageText(msg)), SPECIAL.end];
      samples.push({ prompt: [...history], completionTokenIds: ids, sampledLogprobs: ids.map(() => 0), advantage: a });
    } else if (isChoice(it)) {
      stats.choicesWithoutLogprobs++;
    }
    history.push({ ...msg, role: msg.role, content: typeof msg.content === 'string' ? msg.content : (msg.content ?? null) });
  }
}

/**
 * RL samples in training order: a seeded shuffle across groups, as the open trainer shuffles its packed
 * rows (`random.Random(len(rows)).shuffle`, ART preprocessing/pack.py). In submission order a batch of 8
 * held one group — one prompt's rollouts — so every gradient step pulled the whole policy toward one
 * input; mixed batches give each step the contrast between inputs. The seed is the sample count, so a
 * job's steps are the same on every run and machine.
 */
export function rlTrainingOrder<T>(samples: readonly T[]): T[] {
  const out = [...samples];
  const rand = seededRandom(out.length);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
