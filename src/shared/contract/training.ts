import { z } from 'zod';
import { op } from './define.js';
import { ScoreFilter } from './scores.js';

/**
 * The training API (interface.md training table, semantics §9) plus its extensions (§11):
 * SFT datasets from conversations, training settings and remote trainer backends.
 * Payloads follow the open client of the hosted training service so that client works unchanged.
 */

// ---- shared parts -------------------------------------------------------------------------

/** A chat message as the chat-completions interface carries it; extra keys (tool_calls, name...) kept. */
const ChatMessageIn = z.looseObject({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
  content: z.union([z.string(), z.array(z.unknown()), z.null()]).optional(),
});

/** A chat-completion choice as returned by /v1/chat/completions (trainable when it has logprobs). */
const ChoiceIn = z.looseObject({
  finish_reason: z.string().nullable().optional(),
  index: z.number().int().optional(),
  logprobs: z
    .looseObject({
      content: z.array(z.looseObject({ token: z.string(), logprob: z.number() })).nullable().optional(),
    })
    .nullable()
    .optional(),
  message: z.looseObject({ role: z.literal('assistant'), content: z.string().nullable().optional() }),
});

const MessageOrChoice = z.union([ChoiceIn, ChatMessageIn]);

/** A function tool as chat completions declare it (`parameters`, a JSON Schema, constrains the arguments of a forced call). */
const ToolIn = z.looseObject({
  type: z.literal('function'),
  function: z.looseObject({ name: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'function names hold letters, digits, "_", "." and "-" (1–64)') }),
});
const ToolChoice = z.union([
  z.enum(['none', 'auto', 'required']),
  z.looseObject({ type: z.literal('function'), function: z.looseObject({ name: z.string().min(1) }) }),
]);
const Metrics = z.record(z.string(), z.union([z.number(), z.boolean()]));

export const Trajectory = z.looseObject({
  messages_and_choices: z.array(MessageOrChoice).min(1),
  tools: z.array(z.unknown()).nullable().optional(),
  additional_histories: z.array(z.unknown()).optional().default([]),
  reward: z.number(),
  metrics: Metrics.optional().default({}),
  metadata: z.record(z.string(), z.unknown()).optional().default({}),
  logs: z.array(z.string()).optional().default([]),
});
export type Trajectory = z.infer<typeof Trajectory>;

export const TrajectoryGroup = z.looseObject({
  trajectories: z.array(Trajectory),
  exceptions: z.array(z.unknown()).optional().default([]),
  metadata: z.record(z.string(), z.unknown()).optional().default({}),
  metrics: Metrics.optional().default({}),
  logs: z.array(z.string()).optional().default([]),
});
export type TrajectoryGroup = z.infer<typeof TrajectoryGroup>;

const ModelOut = z.object({
  id: z.string(),
  entity: z.string(),
  project: z.string(),
  name: z.string(),
  base_model: z.string(),
  run_id: z.string(),
  /**
   * The base model Loupe actually runs for this model (extension): `base_model` when the built-in
   * trainer has it, the built-in default for any other name, `remote:<backend>/…` for a remote one.
   */
  runtime_model: z.string(),
});

/** A listed model (extension, semantics §11): the model plus when it was made and its latest step. */
const ListedModel = ModelOut.extend({ created_at: z.string(), latest_step: z.number().int().nullable() });

const JobStatus = z.enum(['QUEUED', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED']);

const JobOut = z.object({
  id: z.string(),
  model_id: z.string(),
  kind: z.enum(['rl', 'sft']),
  status: JobStatus,
  created_at: z.string(),
  training_start: z.string().nullable(),
  training_end: z.string().nullable(),
  error_message: z.string().nullable(),
  step: z.number().int().nullable(),
  /** What the job was asked (extension): counts, learning rates as sent and as applied, data URL. */
  summary: z.record(z.string(), z.unknown()),
});

const Page = <T extends z.ZodType>(item: T) =>
  z.object({ object: z.literal('list'), data: z.array(item), first_id: z.string().nullable(), last_id: z.string().nullable(), has_more: z.boolean() });

/** Query values arrive as strings: coerce. */
const PageLimit = z.coerce.number().int().min(1).max(100).default(20);

const num = z.number().nullable().optional();
const int = z.number().int().nullable().optional();
const bool = z.boolean().nullable().optional();
const Rate = z.number().nonnegative();

/**
 * The RL `experimental_config` the hosted service's open client sends (its ExperimentalTrainingConfig,
 * every key typed as the client types it, null allowed), so a wrong type or an unknown loss is a 422
 * naming the key. Keys a newer client may add are accepted. `loupe_learning_rate` (extension) is a
 * learning rate taken literally; `learning_rate` is read relative to the hosted default (docs/training.md).
 */
export const ExperimentalConfig = z
  .looseObject({
    advantage_balance: num,
    allow_training_without_logprobs: bool,
    epsilon: num,
    epsilon_high: num,
    importance_sampling_level: z.enum(['token', 'sequence', 'average', 'geometric_average']).nullable().optional(),
    kimi_k2_tau: num,
    kl_penalty_coef: num,
    kl_penalty_reference_step: int,
    kl_penalty_source: z.enum(['current_learner', 'sample']).nullable().optional(),
    kl_penalty_step_lag: int,
    kl_ref_adapter_path: z.string().nullable().optional(),
    learning_rate: Rate.nullable().optional(),
    logprob_calculation_chunk_size: int,
    loss_fn: z.enum(['cispo', 'ppo']).nullable().optional(),
    mask_prob_ratio: bool,
    max_negative_advantage_importance_sampling_weight: num,
    normalize_advantages: bool,
    num_trajectories_learning_rate_multiplier_power: num,
    packed_sequence_length: int,
    plot_tensors: bool,
    ppo: bool,
    precalculate_logprobs: bool,
    scale_learning_rate_by_reward_std_dev: bool,
    scale_rewards: bool,
    truncated_importance_sampling: num,
    loupe_learning_rate: Rate.optional(),
  })
  .refine((c) => c.loss_fn == null || c.ppo == null || c.ppo === (c.loss_fn === 'ppo'), {
    message: 'loss_fn and ppo disagree (ppo: true means loss_fn "ppo")',
    path: ['ppo'],
  })
  .nullable()
  .optional();

/** One learning rate, or one per batch (SFT). */
const Rates = z.union([Rate, z.array(Rate).min(1)]);

/**
 * The SFT `config` of the open client (its SFTTrainingConfig): batch_size (absent = "auto"),
 * learning_rate read relative to the hosted SFT default, assistant_turns, metric_logging (accepted,
 * nothing to log to); `loupe_learning_rate` (extension) is taken literally.
 */
const SftConfig = z.looseObject({
  batch_size: z.union([z.number().int().min(1), z.literal('auto')]).nullable().optional(),
  learning_rate: Rates.nullable().optional(),
  assistant_turns: z.enum(['all', 'last']).nullable().optional(),
  metric_logging: z.looseObject({}).nullable().optional(),
  loupe_learning_rate: Rates.optional(),
});

const DatasetOut = z.object({
  id: z.string(),
  entity: z.string(),
  project: z.string(),
  name: z.string(),
  /** `v<N>`, as W&B names artifact versions. */
  version: z.string(),
  /** The training_data_url that names exactly this version. */
  url: z.string(),
  bytes: z.number().int(),
  lines: z.number().int(),
  sha256: z.string(),
  source: z.enum(['upload', 'conversations']),
  created_at: z.string(),
});

/** A dataset made here (from conversations, from reviews): its name, default `<project>-<kind>-<time>`. */
const MadeDatasetName = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,100}$/, 'name may hold letters, digits, ".", "_" and "-" only')
  .optional();
const MadeDataset = z.object({
  /** wandb-artifact:///<entity>/<project>/<name>:v<N> (the project id split at its first "/"). */
  url: z.string(),
  path: z.string(),
  lines: z.number().int(),
  dataset: DatasetOut,
});

/** Artifact names: W&B's alphabet (letters, digits, `.`, `_`, `-`). */
export const ARTIFACT_PART = /^(?!\.+$)[A-Za-z0-9._-]{1,128}$/;
const ArtifactPart = z.string().regex(ARTIFACT_PART, 'may hold letters, digits, ".", "_" and "-" only (1–128, not only dots)');

/** One check of /v1/system-check; `applicable: false` = nothing to check here (no GPU on the CPU trainer), not a failure. */
const Check = z.object({
  success: z.boolean(),
  duration: z.number(),
  error: z.string().nullable(),
  applicable: z.boolean(),
  detail: z.string().nullable(),
});

const TrainingSettings = z.object({
  record_completions: z.boolean(),
  /** The built-in base model that serves base_model names the built-in trainer does not have. */
  fallback_base_model: z.string(),
  backends: z.array(z.object({ name: z.string(), base_url: z.string() })),
});

// ---- operations ---------------------------------------------------------------------------

export const trainingOps = {
  'training.chatCompletions': op({
    method: 'POST',
    path: '/v1/chat/completions',
    aliases: ['/v1/chat/completions/'],
    auth: 'key',
    summary: 'Create a chat completion from a checkpoint (semantics §9.7); stream: true answers server-sent events',
    stream: 'sse-optional',
    // Errors in OpenAI's shape {"error": {message, type, param, code}}, so OpenAI clients show them.
    errorShape: 'openai',
    // Not strict: the chat-completions clients send many optional keys (user, metadata, store...);
    // the ones Loupe does not use are accepted and ignored so stock clients work unchanged.
    input: z.looseObject({
      model: z.string().min(1),
      messages: z.array(ChatMessageIn).min(1),
      temperature: z.number().min(0).max(2).nullable().optional(),
      top_p: z.number().gt(0).max(1).nullable().optional(),
      max_tokens: z.number().int().min(1).max(4096).nullable().optional(),
      max_completion_tokens: z.number().int().min(1).max(4096).nullable().optional(),
      n: z.number().int().min(1).max(128).nullable().optional(),
      stop: z.union([z.string(), z.array(z.string()).max(4)]).nullable().optional(),
      seed: z.number().int().nullable().optional(),
      stream: z.boolean().nullable().optional(),
      logprobs: z.boolean().nullable().optional(),
      top_logprobs: z.number().int().min(0).max(20).nullable().optional(),
      tools: z.array(ToolIn).max(128).nullable().optional(),
      tool_choice: ToolChoice.nullable().optional(),
    }),
    output: z.looseObject({ id: z.string(), object: z.string(), created: z.number(), model: z.string() }),
  }),
  'training.createModel': op({
    method: 'POST',
    path: '/v1/preview/models',
    auth: 'key',
    summary: 'Create a model (checkpoint step 0); return_existing answers the existing one',
    input: z.strictObject({
      entity: z.string().min(1).nullable().optional(),
      project: z.string().min(1),
      name: z.string().min(1),
      base_model: z.string().min(1),
      return_existing: z.boolean().default(false),
    }),
    output: ModelOut,
  }),
  'training.listModels': op({
    method: 'GET',
    path: '/v1/preview/models',
    auth: 'key',
    summary: 'Page of models, newest first by default (exclusive `after` cursor = a model id); optional entity/project filters',
    input: z.strictObject({
      entity: z.string().min(1).optional(),
      project: z.string().min(1).optional(),
      after: z.string().min(1).optional(),
      limit: PageLimit,
      order: z.enum(['asc', 'desc']).default('desc'),
    }),
    output: Page(ListedModel),
  }),
  'training.deleteModel': op({
    method: 'DELETE',
    path: '/v1/preview/models/:model_id',
    auth: 'key',
    summary: 'Delete a model and its checkpoints (weight files); its running job stops within one step, its jobs end CANCELLED',
    input: z.strictObject({ model_id: z.string() }),
    output: z.object({ model_id: z.string(), deleted_checkpoints: z.number().int(), deleted_run: z.boolean() }),
  }),
  'training.deleteCheckpoints': op({
    method: 'DELETE',
    path: '/v1/preview/models/:model_id/checkpoints',
    auth: 'key',
    summary: 'Delete checkpoints by step; naming the latest answers 409 and deletes nothing',
    input: z.strictObject({ model_id: z.string(), steps: z.array(z.number().int().min(0)) }),
    output: z.object({ deleted_count: z.number().int(), not_found_steps: z.array(z.number().int()) }),
  }),
  'training.listCheckpoints': op({
    method: 'GET',
    path: '/v1/preview/models/:model_id/checkpoints',
    auth: 'key',
    summary: 'Page of checkpoints ordered by step (exclusive `after` cursor)',
    input: z.strictObject({
      model_id: z.string(),
      after: z.string().min(1).optional(),
      limit: PageLimit,
      order: z.enum(['asc', 'desc']).default('asc'),
    }),
    output: Page(z.object({ id: z.string(), step: z.number().int(), metrics: z.record(z.string(), z.number()) })),
  }),
  'training.log': op({
    method: 'POST',
    path: '/v1/preview/models/:model_id/log',
    auth: 'key',
    summary: 'Log trajectory groups: split metrics on the latest checkpoint, trajectories stored as traces',
    maxBodyBytes: 64 * 1024 * 1024,
    // Up to 64 MiB: checked and turned into spans by a worker thread (service/training/log.ts).
    rawBody: true,
    input: z.strictObject({ model_id: z.string(), split: z.string().min(1), trajectory_groups: z.array(TrajectoryGroup) }),
    output: z.object({}),
  }),
  'training.createSftJob': op({
    method: 'POST',
    path: '/v1/preview/sft-training-jobs',
    auth: 'key',
    summary: 'Queue an SFT job over a dataset (wandb-artifact:///<entity>/<project>/<name>:v<N>) or a JSONL file of {messages, tools} lines',
    input: z.strictObject({
      model_id: z.string(),
      training_data_url: z.string().min(1),
      config: SftConfig.nullable().optional(),
      experimental_config: z.looseObject({}).nullable().optional(),
    }),
    output: z.object({ id: z.string() }),
  }),
  'training.createRlJob': op({
    method: 'POST',
    path: '/v1/preview/training-jobs',
    auth: 'key',
    summary: 'Queue an RL job over trajectory groups (group-relative advantages, cispo/ppo loss)',
    maxBodyBytes: 64 * 1024 * 1024,
    // Bodies up to 64 MiB: read as a stream and parsed, checked and stored by a worker thread, so
    // the server keeps answering while one arrives (service/training/intake.ts).
    rawBody: true,
    input: z.strictObject({
      model_id: z.string(),
      trajectory_groups: z.array(TrajectoryGroup),
      experimental_config: ExperimentalConfig,
    }),
    output: z.object({ id: z.string() }),
  }),
  'training.getJob': op({
    method: 'GET',
    path: '/v1/preview/training-jobs/:job_id',
    auth: 'key',
    summary: 'A training job and its status (QUEUED → RUNNING → COMPLETED | FAILED)',
    input: z.strictObject({ job_id: z.string() }),
    output: JobOut,
  }),
  'training.listJobs': op({
    method: 'GET',
    path: '/v1/preview/training-jobs',
    auth: 'key',
    summary: 'Page of training jobs, newest first (exclusive `after` cursor = a job id); optional model_id/status filters',
    input: z.strictObject({
      model_id: z.string().min(1).optional(),
      status: JobStatus.optional(),
      after: z.string().min(1).optional(),
      limit: PageLimit,
    }),
    output: Page(JobOut),
  }),
  'training.cancelJob': op({
    method: 'POST',
    path: '/v1/preview/training-jobs/:job_id/cancel',
    auth: 'key',
    summary: 'Cancel a job (extension): a queued job ends at once, a running one before its next gradient step; status CANCELLED',
    input: z.strictObject({ job_id: z.string() }),
    output: JobOut,
  }),
  'training.jobEvents': op({
    method: 'GET',
    path: '/v1/preview/training-jobs/:job_id/events',
    auth: 'key',
    summary: 'Page of job events, ascending (exclusive `after` cursor)',
    input: z.strictObject({ job_id: z.string(), after: z.string().min(1).optional(), limit: PageLimit }),
    output: Page(z.object({ id: z.string(), type: z.string(), data: z.record(z.string(), z.unknown()), created_at: z.string() })),
  }),
  'training.health': op({
    method: 'GET',
    path: '/v1/health',
    auth: 'none',
    summary: 'Liveness',
    input: z.strictObject({}),
    output: z.object({ status: z.literal('ok'), version: z.string() }),
  }),
  'training.systemCheck': op({
    method: 'GET',
    path: '/v1/system-check',
    auth: 'none',
    summary: 'Database and trainer checks: 200 when jobs and completions can be taken (the GPU check is "not applicable" on the CPU trainer); 503 when a check fails',
    alsoAnswers: [{ status: 503, description: 'A check failed; the body is the same check object' }],
    input: z.strictObject({}),
    output: z.object({
      api: z.boolean(),
      database: z.boolean(),
      cpu_queue: Check,
      gpu_queue: Check,
      /** Configured remote trainer backends, each asked for /v1/health (reported; they do not fail the check). */
      backends: z.array(z.object({ name: z.string(), success: z.boolean(), duration: z.number(), error: z.string().nullable() })),
    }),
  }),
  // ---- extensions (semantics §11) ----
  'training.uploadDataset': op({
    method: 'POST',
    path: '/v1/preview/datasets',
    auth: 'key',
    summary:
      'Upload SFT training data (the body: JSONL of {messages, tools} lines) as the next version of a dataset; training_data_url wandb-artifact:///<entity>/<project>/<name>:v<N> names it',
    maxBodyBytes: 256 * 1024 * 1024,
    // The body is JSONL, streamed to disk and checked line by line by a worker thread.
    rawBody: true,
    input: z.strictObject({
      entity: ArtifactPart,
      project: ArtifactPart,
      name: ArtifactPart,
      /** IPC only (HTTP sends the JSONL as the request body). */
      content: z.string().optional(),
    }),
    output: DatasetOut,
  }),
  'training.listDatasets': op({
    method: 'GET',
    path: '/v1/preview/datasets',
    auth: 'key',
    summary: 'Page of dataset versions, newest first (exclusive `after` cursor = a dataset version id); optional entity/project/name filters',
    input: z.strictObject({
      entity: z.string().min(1).optional(),
      project: z.string().min(1).optional(),
      name: z.string().min(1).optional(),
      after: z.string().min(1).optional(),
      limit: PageLimit,
    }),
    output: Page(DatasetOut),
  }),
  'datasets.fromConversations': op({
    method: 'POST',
    path: '/datasets/from-conversations',
    auth: 'none',
    summary: 'Write chosen conversations as an SFT dataset version; its wandb-artifact:/// URL is usable as training_data_url',
    input: z.strictObject({
      project_id: z.string().min(1),
      conversation_ids: z.array(z.string().min(1)).min(1).max(10_000),
      name: MadeDatasetName,
    }),
    output: MadeDataset.extend({ skipped: z.array(z.string()) }),
  }),
  'datasets.fromReviews': op({
    method: 'POST',
    path: '/datasets/from-reviews',
    auth: 'none',
    summary: "Write reviewed turns as an SFT dataset version: each corrected turn with the reviewer's answer in place of the original, and turns a `good` score condition picks as they are",
    input: z.strictObject({
      project_id: z.string().min(1),
      /** Only turns of these conversations (default: every reviewed turn of the project). */
      conversation_ids: z.array(z.string().min(1)).min(1).max(10_000).optional(),
      /** Take corrections (scores with a `correction`); default true. */
      corrections: z.boolean().default(true),
      /** Turns carrying a score that matches go in unchanged (e.g. `{"name":"review","labels":["good"]}` or `{"name":"thumbs","min":1}`). */
      good: ScoreFilter.optional(),
      name: MadeDatasetName,
    }),
    output: MadeDataset.extend({
      /** Lines whose last answer is a reviewer's correction. */
      corrected: z.number().int(),
      /** Lines of good turns taken as they are. */
      good: z.number().int(),
      /** Reviewed turns left out: `trace_id`, and why (no longer stored, no user message before it). */
      skipped: z.array(z.object({ trace_id: z.string().nullable(), conversation_id: z.string().nullable(), reason: z.string() })),
    }),
  }),
  'training.getSettings': op({
    method: 'GET',
    path: '/training/settings',
    auth: 'key',
    summary: 'Training settings and remote trainer backends (keys never returned)',
    input: z.strictObject({}),
    output: TrainingSettings,
  }),
  'training.updateSettings': op({
    method: 'POST',
    path: '/training/settings',
    auth: 'key',
    summary: 'Switch completion recording; add, replace (same name) or remove remote trainer backends',
    input: z.strictObject({
      record_completions: z.boolean().optional(),
      fallback_base_model: z.string().min(1).optional(),
      put_backends: z
        .array(
          z.strictObject({
            name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'backend name may hold letters, digits, "_" and "-" only'),
            base_url: z.url({ protocol: /^https?$/ }),
            api_key: z.string().min(1),
          }),
        )
        .optional(),
      remove_backends: z.array(z.string()).optional(),
    }),
    output: TrainingSettings,
  }),
} as const;
