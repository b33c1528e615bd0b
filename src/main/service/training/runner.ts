/**
 * The job runner (semantics §9.4): jobs persist in SQLite and run one at a time per model, in
 * submission order. Engine work happens in the trainer's worker thread, so HTTP and IPC keep
 * answering while a job trains. Each job emits training_started → gradient_step× →
 * training_ended | training_failed; the next checkpoint is written in the same transaction as
 * training_ended, so it exists before a client can see the job end.
 */
import fs from 'node:fs';
import type { ServiceContext } from '../context.js';
import type { JobRow } from '../../store/sqlite/training.js';
import type { StepMetrics, TrainerEngine } from '../../training/engine.js';
import { averageMetrics, checkpointDir, errorMessage, iso, modelDir, newId, nowUs } from './util.js';
import { buildRlSamples, rlOptions } from './rl-samples.js';
import { readSftExamples } from './sft-data.js';
import type { RemoteBackends } from './remote.js';

export type JobEventType = 'training_started' | 'gradient_step' | 'training_ended' | 'training_failed';

interface RlPayload {
  trajectory_groups: Parameters<typeof buildRlSamples>[0];
  experimental_config?: Record<string, unknown> | null;
}
interface SftPayload {
  training_data_url: string;
  config: { batch_size: number | 'auto'; learning_rate?: number | number[] };
  experimental_config?: Record<string, unknown> | null;
}

/** Default SFT learning rate of the built-in model (the hosted default of 5e-6 is tuned for billions of weights). */
export const BUILTIN_SFT_LR = 3e-3;

export class JobRunner {
  /** Models whose queue is being drained right now. */
  private readonly active = new Map<string, Promise<void>>();
  private closed = false;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly engine: TrainerEngine,
    private readonly remote: RemoteBackends,
  ) {}

  /** At start: a job left RUNNING by a previous process failed; queued jobs resume. */
  recover(): void {
    for (const job of this.ctx.store.training.jobsWithStatus('RUNNING')) {
      this.finishFailed(job, 'Loupe stopped while this job was running; submit it again');
    }
    const models = new Set(this.ctx.store.training.jobsWithStatus('QUEUED').map((j) => j.model_id));
    for (const m of models) this.kick(m);
  }

  /** Starts draining a model's queue unless that is already happening. */
  kick(modelId: string): void {
    if (this.closed || this.active.has(modelId)) return;
    const run = this.drain(modelId);
    this.active.set(modelId, run);
  }

  /** Resolves when no job is running (tests and shutdown). */
  async idle(): Promise<void> {
    while (this.active.size) await Promise.allSettled([...this.active.values()]);
  }

  /** No new job starts after this (the running one finishes or fails). */
  stop(): void {
    this.closed = true;
  }

  /** A queued job whose model is deleted fails cleanly with training_failed. */
  failQueued(modelId: string, reason: string): void {
    for (const job of this.ctx.store.training.jobsWithStatus('QUEUED', modelId)) this.finishFailed(job, reason);
  }

  private async drain(modelId: string): Promise<void> {
    // Yield first so the HTTP answer carrying the job id goes out before any work starts.
    await new Promise((r) => setImmediate(r));
    for (;;) {
      const next = this.closed ? undefined : this.ctx.store.training.jobsWithStatus('QUEUED', modelId)[0];
      if (!next) {
        this.active.delete(modelId); // same tick as the check: a kick after this starts a new drain
        return;
      }
      await this.run(next);
    }
  }

  private async run(job: JobRow): Promise<void> {
    const repo = this.ctx.store.training;
    const model = repo.getModel(job.model_id);
    if (!model) return this.finishFailed(job, `model ${job.model_id} was deleted`);
    repo.updateJob(job.id, { status: 'RUNNING', training_start_us: nowUs() });
    this.status(job, 'RUNNING');
    if (model.backend) {
      try {
        await this.remote.runJob(model, job, (type, data) => this.event(job, type, data), () => this.closed);
        this.complete(job, repo.latestCheckpoint(model.id)?.step ?? null, null);
      } catch (err) {
        this.finishFailed(repo.getJob(job.id) ?? job, errorMessage(err));
      }
      return;
    }
    const base = repo.latestCheckpoint(model.id);
    if (!base) return this.finishFailed(job, `model ${model.id} has no checkpoint to train from`);
    const step = base.step + 1;
    const outDir = checkpointDir(this.ctx.dataDir, model.id, step);
    const baseDir = checkpointDir(this.ctx.dataDir, model.id, base.step);
    const metrics: StepMetrics[] = [];
    const onStep = (m: StepMetrics) => {
      metrics.push(m);
      this.event(job, 'gradient_step', { ...m });
    };
    try {
      fs.rmSync(outDir, { recursive: true, force: true }); // leftovers of an interrupted job
      if (job.kind === 'rl') {
        const p = job.payload as RlPayload;
        const opts = rlOptions(p.experimental_config);
        const samples = buildRlSamples(p.trajectory_groups, opts);
        this.event(job, 'training_started', { num_sequences: samples.length });
        // With no samples the engine still writes step + 1 (same weights, its own metadata updated).
        await this.engine.rl({ baseCheckpointDir: baseDir, outCheckpointDir: outDir, onStep, samples, loss: opts.loss, learningRate: opts.learningRate });
      } else {
        const p = job.payload as SftPayload;
        const examples = readSftExamples(p.training_data_url);
        this.event(job, 'training_started', { num_sequences: examples.length });
        await this.engine.sft({
          baseCheckpointDir: baseDir,
          outCheckpointDir: outDir,
          onStep,
          examples,
          batchSize: p.config.batch_size,
          learningRate: p.config.learning_rate ?? BUILTIN_SFT_LR,
        });
      }
      if (!repo.getModel(model.id)) throw new Error(`model ${model.id} was deleted while the job ran`);
      const checkpointId = newId();
      const ended = repo.transaction(() => {
        repo.insertCheckpoint({ id: checkpointId, model_id: model.id, step, metrics: averageMetrics(metrics), created_at_us: nowUs() });
        return this.insertEvent(job, 'training_ended', {});
      });
      this.complete(job, step, ended);
    } catch (err) {
      // The model may have been deleted while the worker wrote its files: remove what it left.
      if (!repo.getModel(model.id)) fs.rmSync(modelDir(this.ctx.dataDir, model.id), { recursive: true, force: true });
      else if (!repo.checkpointByStep(model.id, step)) fs.rmSync(outDir, { recursive: true, force: true });
      this.finishFailed(job, errorMessage(err));
    }
  }

  private complete(job: JobRow, step: number | null, ended: ReturnType<JobRunner['insertEvent']> | null): void {
    this.ctx.store.training.updateJob(job.id, { status: 'COMPLETED', training_end_us: nowUs(), step });
    if (ended) this.publish(job, ended);
    this.status(job, 'COMPLETED');
  }

  private finishFailed(job: JobRow, message: string): void {
    const repo = this.ctx.store.training;
    const ev = repo.transaction(() => {
      repo.updateJob(job.id, { status: 'FAILED', training_end_us: nowUs(), error_message: message });
      return this.insertEvent(job, 'training_failed', { error_message: message });
    });
    this.publish(job, ev);
    this.status(job, 'FAILED');
  }

  private insertEvent(job: JobRow, type: JobEventType, data: Record<string, unknown>) {
    const row = { id: newId(), job_id: job.id, type, data, created_at_us: nowUs() };
    this.ctx.store.training.insertEvent(row);
    return row;
  }

  /** Stores an event and pushes it to live views. */
  private event(job: JobRow, type: JobEventType, data: Record<string, unknown>): void {
    this.publish(job, this.insertEvent(job, type, data));
  }

  private publish(job: JobRow, e: { id: string; type: string; data: Record<string, unknown>; created_at_us: number }): void {
    this.ctx.events.emit({ type: 'job.event', job_id: job.id, model_id: job.model_id, event: { id: e.id, type: e.type, data: e.data, created_at: iso(e.created_at_us)! } });
  }

  private status(job: JobRow, status: string): void {
    this.ctx.events.emit({ type: 'job.status', job_id: job.id, model_id: job.model_id, status });
  }
}
