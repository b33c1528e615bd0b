/**
 * The hosted training service's open client — OpenPipe ART's `ServerlessBackend` and the `Client` it
 * uses (src/art/serverless/backend.py, client.py) — replayed request by request: the same paths,
 * bodies and defaults, so a test drives Loupe exactly as that client does. Nothing of Loupe's own is
 * sent (no Loupe learning-rate option, no Loupe base model). Inference goes through the `openai` npm
 * client, as ART's rollouts go through the `openai` Python client (same wire format).
 *
 * The one substitution: ART uploads SFT data to W&B as an artifact (wandb.init → log_artifact of
 * train.jsonl) before naming it `wandb-artifact:///<entity>/<project>/<name>:v0`; here the upload goes
 * to Loupe's dataset operation, which is where that URL resolves.
 */
import OpenAI from 'openai';

/**
 * The `experimental_config` ServerlessBackend.train() sends with all its defaults (backend.py:
 * learning_rate 5e-6, loss_fn resolved to "cispo", build_rl_train_configs' dev config, then the
 * ExperimentalTrainingConfig TypedDict built in _train_model, None values serialized as null).
 */
export const ART_DEFAULT_EXPERIMENTAL_CONFIG = {
  advantage_balance: 0.0,
  allow_training_without_logprobs: false,
  epsilon: null,
  epsilon_high: null,
  importance_sampling_level: 'token',
  kimi_k2_tau: null,
  kl_penalty_coef: 0.0,
  kl_penalty_reference_step: null,
  kl_penalty_source: 'current_learner',
  kl_penalty_step_lag: null,
  kl_ref_adapter_path: null,
  learning_rate: 5e-6,
  logprob_calculation_chunk_size: 1024,
  loss_fn: 'cispo',
  mask_prob_ratio: false,
  max_negative_advantage_importance_sampling_weight: null,
  normalize_advantages: true,
  num_trajectories_learning_rate_multiplier_power: 0.0,
  packed_sequence_length: null,
  plot_tensors: false,
  ppo: false,
  precalculate_logprobs: false,
  scale_learning_rate_by_reward_std_dev: false,
  scale_rewards: true,
  truncated_importance_sampling: null,
} as const;

/** TrainSFTConfig() defaults: learning_rate 5e-5, batch_size "auto" (then not sent). */
export const ART_DEFAULT_SFT_CONFIG = { learning_rate: 5e-5 } as const;

/** Headers the Python `openai` client base (AsyncAPIClient) adds to every request of ART's Client. */
const STAINLESS = { 'x-stainless-lang': 'python', 'x-stainless-async': 'false', 'user-agent': 'AsyncOpenAI/Python 1.99.9' };

export interface ArtModel {
  id: string;
  entity: string;
  project: string;
  name: string;
  base_model: string;
}

export interface ArtEvent {
  id: string;
  type: 'training_started' | 'gradient_step' | 'training_ended' | 'training_failed';
  data: Record<string, number | string>;
}

/** What `ServerlessBackend` sends, one method per client call. */
export class ArtClient {
  readonly openai: OpenAI;
  /** Every request made, as [method, path] (the docs table is checked against this list). */
  readonly calls: [string, string][] = [];

  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string,
  ) {
    // model.openai_client(): base_url and key of the backend (_prepare_backend_for_training).
    this.openai = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey });
  }

  private async request<T>(method: string, path: string, body?: unknown, raw?: { bytes: string; type: string }): Promise<T> {
    this.calls.push([method, path.replace(/\?.*$/, '')]);
    const res = await fetch(`${this.baseUrl}/v1${path}`, {
      method,
      headers: { ...STAINLESS, authorization: `Bearer ${this.apiKey}`, ...(body !== undefined || raw ? { 'content-type': raw?.type ?? 'application/json' } : {}) },
      body: raw ? raw.bytes : body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return (text ? JSON.parse(text) : null) as T;
  }

  /** register(): models.create(entity=model.entity, ..., return_existing=True) — entity None unless set. */
  register(m: { entity: string | null; project: string; name: string; base_model: string }): Promise<ArtModel> {
    return this.request('POST', '/preview/models', { entity: m.entity, project: m.project, name: m.name, base_model: m.base_model, return_existing: true });
  }

  /** _get_step(): checkpoints.list(limit=1, order="desc", model_id=...). */
  async getStep(modelId: string): Promise<number> {
    const page = await this.request<{ data: { step: number }[] }>('GET', `/preview/models/${modelId}/checkpoints?limit=1&order=desc`);
    return page.data[0]?.step ?? 0;
  }

  /** _model_inference_name(model, step): wandb-artifact:///<entity>/<project>/<name>[:step<N>]. */
  inferenceName(m: ArtModel, step?: number): string {
    return `wandb-artifact:///${m.entity}/${m.project}/${m.name}${step === undefined ? '' : `:step${step}`}`;
  }

  /** models.log(model_id, trajectory_groups (model_dump mode="json"), split). */
  log(modelId: string, groups: unknown[], split: string): Promise<unknown> {
    return this.request('POST', `/preview/models/${modelId}/log`, { model_id: modelId, trajectory_groups: groups, split });
  }

  /** train(): training_jobs.create with the default experimental_config, then the event loop; returns every event. */
  async train(modelId: string, groups: unknown[], experimental_config: Record<string, unknown> = ART_DEFAULT_EXPERIMENTAL_CONFIG): Promise<ArtEvent[]> {
    const job = await this.request<{ id: string }>('POST', '/preview/training-jobs', { model_id: modelId, trajectory_groups: groups, experimental_config });
    return this.follow(job.id);
  }

  /**
   * _train_sft(): the trajectories as train.jsonl (one `{"messages": trajectory.messages()}` per line,
   * "tools" when set), uploaded as `<model name>-sft-data-<12 hex>` (here: to Loupe), then
   * sft_training_jobs.create(model_id, training_data_url=wandb-artifact:///…:v0, config={learning_rate: 5e-5}).
   */
  async trainSft(m: ArtModel, lines: { messages: unknown[]; tools?: unknown[] }[], config: Record<string, unknown> = ART_DEFAULT_SFT_CONFIG): Promise<{ url: string; events: ArtEvent[] }> {
    const name = `${m.name}-sft-data-${Math.random().toString(16).slice(2, 14).padEnd(12, '0')}`;
    const jsonl = lines.map((l) => `${JSON.stringify(l)}\n`).join('');
    const q = `entity=${encodeURIComponent(m.entity)}&project=${encodeURIComponent(m.project)}&name=${name}`;
    const uploaded = await this.request<{ version: string }>('POST', `/preview/datasets?${q}`, undefined, { bytes: jsonl, type: 'application/jsonl' });
    if (uploaded.version !== 'v0') throw new Error(`a fresh artifact name should be v0, got ${uploaded.version}`);
    const url = `wandb-artifact:///${m.entity}/${m.project}/${name}:v0`;
    const job = await this.request<{ id: string }>('POST', '/preview/sft-training-jobs', { model_id: m.id, training_data_url: url, config });
    return { url, events: await this.follow(job.id) };
  }

  /**
   * The event loop of _train_model / _train_sft: sleep 1 s, list events after the last seen id (the
   * cursor page is followed to its end), until training_ended (return) or training_failed (throw).
   * As the client does, `after` is not moved past training_started.
   */
  private async follow(jobId: string): Promise<ArtEvent[]> {
    const seen: ArtEvent[] = [];
    let after: string | null = null;
    let numSequences: number | null = null;
    for (;;) {
      await new Promise((r) => setTimeout(r, 1000));
      let cursor = after;
      for (;;) {
        const page: { data: ArtEvent[]; has_more: boolean } = await this.request('GET', `/preview/training-jobs/${jobId}/events${cursor ? `?after=${cursor}` : ''}`);
        for (const ev of page.data) {
          if (!seen.some((e) => e.id === ev.id)) seen.push(ev);
          if (ev.type === 'training_started') {
            numSequences = Number(ev.data.num_sequences);
            continue;
          }
          if (ev.type === 'gradient_step' && numSequences === null) throw new Error('gradient_step before training_started');
          if (ev.type === 'training_ended') return seen;
          if (ev.type === 'training_failed') throw new Error(`Training job failed: ${String(ev.data.error_message)}`);
          after = ev.id;
        }
        if (!page.has_more || page.data.length === 0) break;
        cursor = page.data.at(-1)!.id;
      }
    }
  }

  /** _delete_checkpoint_files(model, steps_to_keep): list every checkpoint, delete the others. */
  async deleteCheckpoints(modelId: string, keep: number[]): Promise<void> {
    const steps: number[] = [];
    let after: string | null = null;
    for (;;) {
      const page: { data: { id: string; step: number }[]; has_more: boolean } = await this.request('GET', `/preview/models/${modelId}/checkpoints${after ? `?after=${after}` : ''}`);
      steps.push(...page.data.map((c) => c.step));
      if (!page.has_more || !page.data.length) break;
      after = page.data.at(-1)!.id;
    }
    const drop = steps.filter((s) => !keep.includes(s));
    if (drop.length) await this.request('DELETE', `/preview/models/${modelId}/checkpoints`, { steps: drop });
  }

  /** delete(): models.delete(model_id). */
  delete(modelId: string): Promise<unknown> {
    return this.request('DELETE', `/preview/models/${modelId}`);
  }
}

/** A chat-completion choice as ART keeps it in messages_and_choices (Choice.model_dump(mode="json")). */
export function choiceDump(c: OpenAI.Chat.Completions.ChatCompletion['choices'][number]): Record<string, unknown> {
  return JSON.parse(JSON.stringify(c)) as Record<string, unknown>;
}

/** A Trajectory as ART's TrajectoryGroup.model_dump(mode="json") sends it. */
export function trajectoryDump(messagesAndChoices: unknown[], reward: number, metrics: Record<string, number> = {}): Record<string, unknown> {
  return {
    messages_and_choices: messagesAndChoices,
    tools: null,
    additional_histories: [],
    reward,
    initial_policy_version: null,
    final_policy_version: null,
    metrics,
    metadata: {},
    logs: [],
  };
}

export const groupDump = (trajectories: Record<string, unknown>[]) => ({ trajectories, exceptions: [], metadata: {}, metrics: {}, logs: [] });
