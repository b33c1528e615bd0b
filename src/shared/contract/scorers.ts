import { z } from 'zod';
import { op } from './define.js';
import { DateTimeOut } from './common.js';
import { ScoreFilter } from './scores.js';

/**
 * Scorers (issue 20 item 2): defined once per project (kept in this user's data folder, decision
 * 0024), run on a selection of turns, on new turns as they arrive (`auto`), or on demand. A rule
 * scorer reads the turn; an LLM judge sends a prompt made from the turn to any OpenAI-compatible
 * endpoint (its key in the secrets file) and is traced in the project `<project>-judge`.
 */

export const Rule = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('answer_matches'), pattern: z.string().min(1).max(2000), flags: z.string().regex(/^[imsu]*$/).optional(), expect: z.enum(['match', 'no_match']).default('match') }),
  z.strictObject({ kind: z.literal('answer_json_schema'), schema: z.record(z.string(), z.unknown()) }),
  z.strictObject({ kind: z.literal('tool_called'), tool: z.string().min(1), called: z.boolean().default(true) }),
  z.strictObject({ kind: z.literal('tool_error'), tool: z.string().min(1).optional() }),
  z.strictObject({ kind: z.literal('threshold'), measure: z.enum(['latency_ms', 'tokens', 'cost_usd']), max: z.number().finite() }),
  z.strictObject({ kind: z.literal('finish_length') }),
  z.strictObject({ kind: z.literal('repeated_tool_call'), times: z.number().int().min(2).max(1000).default(3) }),
]);

export const Judge = z.strictObject({
  /** An OpenAI-compatible API root, e.g. http://127.0.0.1:8000/v1 (POST {base_url}/chat/completions). */
  base_url: z.string().url(),
  model: z.string().min(1),
  /** Name of the API key in the secrets file (POST /app/scorers/secret); none for a local server without a key. */
  api_key_secret: z.string().min(1).max(100).optional(),
  /** Template: {{question}}, {{answer}}, {{transcript}}, {{tools}} are replaced by the turn's. */
  prompt: z.string().min(1).max(50_000),
  /** What the judge answers: a number (0–1 by convention), a boolean, or one of `labels`. */
  output: z.enum(['number', 'boolean', 'label']).default('number'),
  labels: z.array(z.string().min(1)).max(50).optional(),
  /** Calls in flight at once. */
  concurrency: z.number().int().min(1).max(32).default(4),
  max_tokens: z.number().int().min(1).max(8192).default(300),
  /** Attempts after the first when a call fails (network, 5xx, 429, an answer that is not the asked JSON). */
  retries: z.number().int().min(0).max(10).default(2),
  /** USD per million tokens, for the estimate and the run's cost when the price table does not know the model. */
  price: z.strictObject({ input_per_mtok: z.number().min(0), output_per_mtok: z.number().min(0) }).optional(),
});

export const ScorerInput = z
  .strictObject({
    scorer_id: z.string().regex(/^[a-z0-9][a-z0-9_.-]{0,63}$/, 'scorer_id: lower-case letters, digits, _ . - (at most 64)'),
    /** The score's name (default: the scorer_id). */
    name: z.string().min(1).max(200).optional(),
    description: z.string().max(2000).optional(),
    /** Score new turns as they arrive. */
    auto: z.boolean().default(false),
    rule: Rule.optional(),
    judge: Judge.optional(),
  })
  .refine((s) => (s.rule ? 1 : 0) + (s.judge ? 1 : 0) === 1, { message: 'a scorer has exactly one of rule or judge', path: ['rule'] });

export const Scorer = z.object({
  scorer_id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  auto: z.boolean(),
  kind: z.enum(['rule', 'judge']),
  rule: z.record(z.string(), z.unknown()).nullable(),
  judge: z.record(z.string(), z.unknown()).nullable(),
  /** Bumped when the definition changes: scores carry it (`scorer_version: 'v3'`). */
  version: z.number().int(),
  updated_at: DateTimeOut,
});

/** Which turns a run reads: conversations by id, or the conversations list's filters (and search); at most max_turns. */
export const Selection = z.strictObject({
  conversation_ids: z.array(z.string()).max(10_000).optional(),
  filters: z
    .strictObject({
      agent_names: z.array(z.string()).max(100).optional(),
      models: z.array(z.string()).max(100).optional(),
      status: z.enum(['all', 'error', 'ok']).default('all'),
      active_after: z.string().optional(),
      active_before: z.string().optional(),
      scores: z.array(ScoreFilter).max(10).optional(),
    })
    .optional(),
  search: z.string().max(256).optional(),
  /** Failure cluster (POST /app/clusters): its conversations. */
  cluster_id: z.string().optional(),
  max_turns: z.number().int().min(1).max(10_000_000).optional(),
});

export const ScorerRun = z.object({
  run_id: z.string(),
  project_id: z.string(),
  scorer_id: z.string(),
  scorer_version: z.string(),
  status: z.enum(['running', 'completed', 'failed', 'cancelled']),
  /** Turns the selection holds (known once read). */
  turns: z.number().int(),
  scored: z.number().int(),
  /** Already scored by this scorer version (a re-run or a resumed run skips them). */
  skipped: z.number().int(),
  failed: z.number().int(),
  /** Judge calls' cost so far (null: unknown price). */
  cost_usd: z.number().nullable(),
  started_at: DateTimeOut,
  ended_at: DateTimeOut.nullable(),
  error: z.string().nullable(),
  /** Turns per second (rule scorers: the scoring rate). */
  turns_per_second: z.number().nullable(),
});

export const scorerOps = {
  'scorers.list': op({
    method: 'POST', path: '/app/scorers', auth: 'none',
    summary: "A project's scorers",
    input: z.strictObject({ project_id: z.string().min(1) }),
    output: z.object({ scorers: z.array(Scorer) }),
  }),
  'scorers.save': op({
    method: 'POST', path: '/app/scorers/save', auth: 'none',
    summary: 'Creates or changes a scorer of a project (its version goes up when the definition changes)',
    // A judge sends turns, and the API key it names from the secrets file, to the endpoint it names:
    // only the user may point one somewhere (any local process could otherwise take the key).
    keyFor: (input) => (input.scorer.judge ? 'defining an LLM judge' : null),
    keyForDoc: 'LLM judges (they send turns and a kept API key to the endpoint they name)',
    input: z.strictObject({ project_id: z.string().min(1), scorer: ScorerInput }),
    output: Scorer,
  }),
  'scorers.delete': op({
    method: 'POST', path: '/app/scorers/delete', auth: 'none',
    summary: 'Deletes a scorer definition (its scores stay)',
    input: z.strictObject({ project_id: z.string().min(1), scorer_id: z.string().min(1) }),
    output: z.object({ deleted: z.boolean() }),
  }),
  'scorers.secret': op({
    method: 'POST', path: '/app/scorers/secret', auth: 'key',
    summary: "Keeps a judge endpoint's API key in the secrets file under a name (value null removes it)",
    input: z.strictObject({ name: z.string().min(1).max(100), value: z.string().min(1).max(10_000).nullable() }),
    output: z.object({ name: z.string(), stored: z.boolean() }),
  }),
  'scorers.estimate': op({
    method: 'POST', path: '/app/scorers/estimate', auth: 'none',
    summary: 'What a run would do before it starts: turns, those left to score, and for a judge the tokens and cost it would spend',
    input: z.strictObject({ project_id: z.string().min(1), scorer_id: z.string().min(1), selection: Selection.default({}) }),
    output: z.object({
      turns: z.number().int(), to_score: z.number().int(), already_scored: z.number().int(),
      est_input_tokens: z.number().int(), est_output_tokens: z.number().int(), est_cost_usd: z.number().nullable(),
    }),
  }),
  'scorers.run': op({
    method: 'POST', path: '/app/scorers/run', auth: 'none',
    summary: 'Runs a scorer on a selection (in the background; `wait: true` answers once it ended). Turns already scored by this version are skipped, so a stopped run resumes.',
    input: z.strictObject({ project_id: z.string().min(1), scorer_id: z.string().min(1), selection: Selection.default({}), wait: z.boolean().default(false) }),
    output: ScorerRun,
  }),
  'scorers.runs': op({
    method: 'POST', path: '/app/scorers/runs', auth: 'none',
    summary: "A project's scorer runs since start, newest first",
    input: z.strictObject({ project_id: z.string().min(1) }),
    output: z.object({ runs: z.array(ScorerRun) }),
  }),
} as const;
