import { op } from './define.js';
import { z } from 'zod';
import { Selection as ScorerSelection } from './scorers.js';

/**
 * Replay (issue 21, docs/replay.md): recorded model calls of chosen turns sent again to another
 * model — an OpenAI-compatible endpoint or a Loupe checkpoint — with the recorded tool results
 * answering its tool calls. Each replayed turn is stored as a trace of its own, linked to the
 * original; the originals are never modified.
 */

/** An OpenAI-compatible endpoint: `<base_url>/chat/completions`. The key is given or named in the secrets file. */
const EndpointTarget = z.strictObject({
  base_url: z.string().url(),
  model: z.string().min(1),
  /** Kept in the secrets file (never in the replay's state), so a resumed replay still has it. */
  api_key: z.string().min(1).optional(),
  /** Name of a secret already in `<data>/secrets.json` holding the key. */
  api_key_secret: z.string().min(1).optional(),
  /** Prices (USD per million tokens) for a model the price table does not know; needed for a cost budget then. */
  price: z.strictObject({ input_per_mtok: z.number().nonnegative(), output_per_mtok: z.number().nonnegative() }).optional(),
});
/** A checkpoint of a Loupe model (training API), served in this process; latest step when `step` is absent. */
const CheckpointTarget = z.strictObject({ model_id: z.string().min(1), step: z.number().int().nonnegative().optional() });
export const ReplayTarget = z.union([EndpointTarget, CheckpointTarget]);

/**
 * How the arguments of one tool are brought to one form before they are compared with the recording
 * (after an exact match failed). Key `*` applies to every tool without its own.
 */
export const ArgumentNormalizer = z.strictObject({
  /** Keys left out of the comparison (at any depth), e.g. a request id or a timestamp. */
  ignore_keys: z.array(z.string().min(1)).default([]),
  /** Strings compared without regard to case. */
  case_insensitive: z.boolean().default(false),
  /** Strings trimmed, inner runs of white space made one space. */
  collapse_whitespace: z.boolean().default(false),
  /** Numbers written as strings ("3") compared as numbers. */
  numeric_strings: z.boolean().default(false),
});

export const ReplayOverrides = z.strictObject({
  /** Replaces the recorded system instructions of every model call. */
  system_prompt: z.string().optional(),
  temperature: z.number().min(0).max(2).optional(),
  max_tokens: z.number().int().positive().optional(),
  /** OpenAI tool definitions sent instead of the recorded ones ([] sends none). */
  tools: z.array(z.record(z.string(), z.unknown())).optional(),
  /** Argument normalisers by tool name (`*`: every tool). */
  normalizers: z.record(z.string(), ArgumentNormalizer).default({}),
});

export const ReplayBudget = z.strictObject({
  /** Tokens (prompt + completion, as the endpoint reports them) the whole replay may use. */
  max_tokens: z.number().int().positive().optional(),
  /** USD the whole replay may spend (needs a priced model: the price table or target.price). */
  max_cost_usd: z.number().positive().optional(),
  /** Turns replayed at once. */
  concurrency: z.number().int().min(1).max(16).default(2),
  /** Model calls started per minute (all turns together). */
  requests_per_minute: z.number().int().min(1).max(6000).optional(),
  /** Model calls per replayed turn before it is stopped (a model that calls tools forever). */
  max_calls_per_turn: z.number().int().min(1).max(100).default(12),
});

/** What happens when the new model asks for a tool call the recording has no answer for. */
export const OnDivergence = z.union([
  z.literal('stop'),
  /** The command runs with the tool call as JSON on stdin (`{name, arguments}`); its stdout is the tool's result. */
  z.strictObject({ command: z.array(z.string().min(1)).min(1), timeout_ms: z.number().int().min(100).max(600_000).default(30_000) }),
]);

/**
 * The replay's own check of answers (scored 1 or 0 on both the original and the replay, named
 * `name` in the report): the expected answer of each turn, by trace id or conversation id.
 */
export const ReplayCheck = z.strictObject({
  name: z.string().min(1).default('expected'),
  expected: z.record(z.string(), z.string()),
  match: z.enum(['equals', 'contains', 'regex']).default('contains'),
});

const Selection = {
  project_id: z.string().min(1),
  trace_ids: z.array(z.string().min(1)).min(1).max(10_000).optional(),
  conversation_ids: z.array(z.string().min(1)).min(1).max(10_000).optional(),
  /**
   * The conversations a scorer run would read: conversations-list filters (agents, models, status,
   * window, score conditions), a search, a failure cluster (`cluster_id`, POST /app/clusters), at most `max_turns`.
   */
  selection: ScorerSelection.optional(),
  /** A dataset made from conversations (POST /datasets/from-conversations), by its wandb-artifact:/// URL: replays the conversations it was made from. */
  dataset: z.string().min(1).optional(),
};
const ONE_SELECTION = { message: 'give one of trace_ids, conversation_ids, selection or dataset' };
const oneSelection = (b: { trace_ids?: unknown; conversation_ids?: unknown; selection?: unknown; dataset?: unknown }): boolean =>
  [b.trace_ids, b.conversation_ids, b.selection, b.dataset].filter((x) => x !== undefined).length === 1;

const ReplayInput = z
  .strictObject({
    ...Selection,
    target: ReplayTarget,
    overrides: ReplayOverrides.default({ normalizers: {} }),
    budget: ReplayBudget.default({ concurrency: 2, max_calls_per_turn: 12 }),
    on_divergence: OnDivergence.default('stop'),
    /** A name shown in lists and the Loop page. */
    label: z.string().max(200).optional(),
    check: ReplayCheck.optional(),
    /**
     * Scorers of the project (POST /app/scorers) the report compares the original and the replay with:
     * a rule scorer is applied to both sides when the report is read; a judge's stored scores of both traces are read.
     */
    scorers: z.array(z.string().min(1)).max(20).optional(),
  })
  .refine(oneSelection, ONE_SELECTION);

export const Divergence = z.object({
  /** `unseen_tool`: no recorded call of that tool; `unseen_arguments`: the tool was recorded, never with these arguments. */
  kind: z.enum(['unseen_tool', 'unseen_arguments']),
  tool: z.string(),
  arguments: z.string(),
  /** The model call (0-based, in the replayed turn) that asked for it. */
  call_index: z.number().int(),
  /** What was done: stopped there, or answered by the user's command. */
  handled: z.enum(['stopped', 'command']),
});

export const ReplayItem = z.object({
  original_trace_id: z.string(),
  replay_trace_id: z.string().nullable(),
  conversation_id: z.string().nullable(),
  status: z.enum(['pending', 'running', 'done', 'failed', 'skipped', 'cancelled']),
  diverged: z.boolean(),
  divergence: Divergence.nullable().optional(),
  error: z.string().nullable().optional(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  cost_usd: z.number().nullable(),
  duration_ms: z.number().nullable(),
});

export const ReplayTotals = z.object({
  items: z.number().int(),
  done: z.number().int(),
  failed: z.number().int(),
  diverged: z.number().int(),
  pending: z.number().int(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  cost_usd: z.number().nullable(),
});

export const ReplayEstimate = z.object({
  turns: z.number().int(),
  model_calls: z.number().int(),
  /** Recorded tokens of the selected model calls: what the replay is expected to use (the new model's answers differ). */
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  /** The estimate priced at the target model (null when its price is unknown). */
  cost_usd: z.number().nullable(),
  /** Turns the selection holds with no model call to replay. */
  turns_without_model_calls: z.number().int(),
});

export const Replay = z.object({
  replay_id: z.string(),
  project_id: z.string(),
  label: z.string().nullable(),
  /** How the turns were chosen: 'trace_ids' | 'conversation_ids' | 'selection' | 'dataset', and the dataset's URL or the cluster's id. */
  selected_by: z.object({ kind: z.enum(['trace_ids', 'conversation_ids', 'selection', 'dataset']), dataset: z.string().nullable(), cluster_id: z.string().nullable() }),
  /** Scorer ids the report compares with. */
  scorers: z.array(z.string()),
  status: z.enum(['running', 'done', 'failed', 'cancelled']),
  /** Why the replay stopped early (budget spent, cancelled, the endpoint failing), else null. */
  reason: z.string().nullable(),
  target: z.object({ kind: z.enum(['endpoint', 'checkpoint']), model: z.string(), base_url: z.string().nullable(), model_id: z.string().nullable(), step: z.number().int().nullable() }),
  budget: z.object({ max_tokens: z.number().nullable(), max_cost_usd: z.number().nullable(), concurrency: z.number().int(), requests_per_minute: z.number().nullable() }),
  estimate: ReplayEstimate,
  created_at: z.string(),
  ended_at: z.string().nullable(),
  items: z.array(ReplayItem),
  totals: ReplayTotals,
});

export const ReportRow = z.object({
  original_trace_id: z.string(),
  replay_trace_id: z.string().nullable(),
  conversation_id: z.string().nullable(),
  /** `same`: same answer and tool sequence; `changed`: either differs and no score says which is better. */
  outcome: z.enum(['better', 'worse', 'same', 'changed', 'diverged', 'failed', 'pending']),
  original_answer: z.string(),
  replay_answer: z.string(),
  /** Line diff of the answers: `[op, text]`, op ' ' (both), '-' (original only), '+' (replay only). */
  answer_diff: z.array(z.tuple([z.enum([' ', '-', '+']), z.string()])),
  original_tools: z.array(z.string()),
  replay_tools: z.array(z.string()),
  tool_diff: z.array(z.tuple([z.enum([' ', '-', '+']), z.string()])),
  original_tokens: z.number().int().nullable(),
  replay_tokens: z.number().int(),
  original_cost_usd: z.number().nullable(),
  replay_cost_usd: z.number().nullable(),
  original_ms: z.number().nullable(),
  replay_ms: z.number().nullable(),
  /** Scores of the pair by name (the chosen scorers of the project, and the replay's own `expected` check). */
  scores: z.record(z.string(), z.object({ original: z.number().nullable(), replay: z.number().nullable() })),
  divergence: Divergence.nullable(),
});

export const ScoreTotal = z.object({
  name: z.string(),
  pairs: z.number().int(),
  original_mean: z.number().nullable(),
  replay_mean: z.number().nullable(),
  up: z.number().int(),
  down: z.number().int(),
  z: z.number().nullable(),
  p: z.number().nullable(),
});

export const replayOps = {
  'replays.estimate': op({
    method: 'POST',
    path: '/app/replays/estimate',
    auth: 'none',
    summary: 'What a replay of this selection would send: turns, model calls, recorded tokens and their cost at the target model. Nothing is sent.',
    input: z.strictObject({ ...Selection, target: ReplayTarget }).refine(oneSelection, ONE_SELECTION),
    output: ReplayEstimate,
  }),
  'replays.create': op({
    method: 'POST',
    path: '/app/replays',
    auth: 'none',
    // Spending on a paid endpoint, running a command and reading a stored secret act as the user.
    keyFor: (b) =>
      typeof b.on_divergence === 'object' ? 'a divergence command (it runs on this machine)' : 'api_key_secret' in b.target && b.target.api_key_secret ? 'a key from the secrets file' : null,
    keyForDoc: 'on_divergence.command (runs a program) and target.api_key_secret (reads a stored secret)',
    summary:
      'Starts a replay of the chosen turns (trace_ids) or conversations against an OpenAI-compatible endpoint or a Loupe checkpoint; each turn becomes a trace of its own linked to the original.',
    input: ReplayInput,
    output: z.object({ replay_id: z.string(), estimate: ReplayEstimate }),
  }),
  'replays.list': op({
    method: 'GET',
    path: '/app/replays',
    auth: 'none',
    summary: "A project's replays, newest first (without their items).",
    input: z.strictObject({ project_id: z.string().min(1).optional() }),
    output: z.object({ replays: z.array(Replay.omit({ items: true })) }),
  }),
  'replays.get': op({
    method: 'GET',
    path: '/app/replays/:replay_id',
    auth: 'none',
    summary: 'A replay: its status, each item (original → replay trace, divergence) and totals.',
    input: z.strictObject({ replay_id: z.string().min(1) }),
    output: Replay,
  }),
  'replays.cancel': op({
    method: 'POST',
    path: '/app/replays/:replay_id/cancel',
    auth: 'none',
    summary: 'Cancels a running replay: calls in flight are abandoned, turns not started stay pending. Cancelling an ended replay answers it as it is.',
    input: z.strictObject({ replay_id: z.string().min(1) }),
    output: Replay,
  }),
  'replays.report': op({
    method: 'GET',
    path: '/app/replays/:replay_id/report',
    auth: 'none',
    summary: 'The replay report: per turn the original vs the replay (answer diff, tool-sequence diff, tokens, cost, latency, scores) and totals better/worse/same/changed/diverged/failed.',
    input: z.strictObject({
      replay_id: z.string().min(1),
      sort: z.enum(['outcome', 'tokens_delta', 'cost_delta', 'latency_delta', 'original']).default('outcome'),
    }),
    output: z.object({
      replay_id: z.string(),
      rows: z.array(ReportRow),
      totals: z.object({ better: z.number().int(), worse: z.number().int(), same: z.number().int(), changed: z.number().int(), diverged: z.number().int(), failed: z.number().int(), pending: z.number().int() }),
      /** Score names the report compared, and where each came from. */
      score_names: z.array(z.object({ name: z.string(), source: z.enum(['scorer', 'expected']), scorer_id: z.string().nullable() })),
      /**
       * Per score, over the compared pairs (not diverged, failed or pending) where both sides have it: means, how many pairs went up / down, and the
       * sign test of the change (z = (up − down) / √(up + down); p two-sided, exact binomial).
       */
      score_totals: z.array(ScoreTotal),
    }),
  }),
} as const satisfies Record<string, ReturnType<typeof op>>;
