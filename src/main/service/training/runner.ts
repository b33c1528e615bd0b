/**
 * The job runner (semantics §9.4): jobs persist in SQLite and run one at a time per model, in
 * submission order. Engine work happens in the trainer's worker thread, so HTTP and IPC keep
 * answering while a job trains. Each job emits training_started → gradient_step× →
 * training_ended | training_failed; the next checkpoint is written in the same transaction as
 * training_ended, so it exists before a client can see the job end.
 */
import fs from 'node:fs';
import type { ServiceContext } from '../context.js';
import type { CheckpointRow, JobEventRow, JobRow } from '../../store/ports.js';
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
  /** Models kicked while their drain was already running: it looks at the queue once more before ending. */
  private readonly kickedAgain = new Set<string>();
  private eventsWritten: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly engine: TrainerEngine,
    private readonly remote: RemoteBackends,
  ) {}

  /** At start: a job left RUNNING by a previous process failed; queued jobs resume. */
  async recover(): Promise<void> {
    for (const job of await this.ctx.app.training.jobsWithStatus('RUNNING')) {
      await this.finishFailed(job, 'Loupe stopped while this job was running; submit it again');
    }
    const models = new Set((await this.ctx.app.training.jobsWithStatus('QUEUED')).map((j) => j.model_id));
    for (const m of models) this.kick(m);
  }

  /** Starts draining a model's queue unless that is already happening. */
  kick(modelId: string): void {
    if (this.closed) return;
    if (this.active.has(modelId)) {
      this.kickedAgain.add(modelId);
      return;
    }
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
  async failQueued(modelId: string, reason: string): Promise<void> {
    for (const job of await this.ctx.app.training.jobsWithStatus('QUEUED', modelId)) await this.finishFailed(job, reason);
  }

  private async drain(modelId: string): Promise<void> {
    // Yield first so the HTTP answer carrying the job id goes out before any work starts.
    await new Promise((r) => setImmediate(r));
    for (;;) {
      this.kickedAgain.delete(modelId);
      const next = this.closed ? undefined : (await this.ctx.app.training.jobsWithStatus('QUEUED', modelId))[0];
      if (!next) {
        // A job queued while the queue was read kicked again: read it once more.
        if (this.kickedAgain.has(modelId) && !this.closed) continue;
        this.active.delete(modelId); // same tick as the check: a kick after this starts a new drain
        return;
      }
      await this.run(next);
    }
  }

  private async run(job: JobRow): Promise<void> {
    const repo = this.ctx.app.training;
    const model = await repo.getModel(job.model_id);
    if (!model) return this.finishFailed(job, `model ${job.model_id} was deleted`);
    await repo.updateJob(job.id, { status: 'RUNNING', training_start_us: nowUs() });
    this.status(job, 'RUNNING');
    if (model.backend) {
      try {
        await this.remote.runJob(model, job, (type, data) => this.event(job, type, data), () => this.closed);
        await this.complete(job, (await repo.latestCheckpoint(model.id))?.step ?? null, null);
      } catch (err) {
        await this.finishFailed((await repo.getJob(job.id)) ?? job, errorMessage(err));
      }
      return;
    }
    const base = await repo.latestCheckpoint(model.id);
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
      if (!(await repo.getModel(model.id))) throw new Error(`model ${model.id} was deleted while the job ran`);
      const checkpoint = { id: newId(), model_id: model.id, step, metrics: averageMetrics(metrics), created_at_us: nowUs() };
      await this.complete(job, step, checkpoint);
    } catch (err) {
      // The model may have been deleted while the worker wrote its files: remove what it left.
      if (!(await repo.getModel(model.id))) fs.rmSync(modelDir(this.ctx.dataDir, model.id), { recursive: true, force: true });
      else if (!(await repo.checkpointByStep(model.id, step))) fs.rmSync(outDir, { recursive: true, force: true });
      await this.finishFailed(job, errorMessage(err));
    }
  }

  /**
   * The job's end in one write: the checkpoint it made (null for a remote job, already mirrored),
   * training_ended, and the COMPLETED row, so the checkpoint exists before a client sees the end.
   * A remote job's training_ended was already stored by the remote follower.
   */
  private async complete(job: JobRow, step: number | null, checkpoint: CheckpointRow | null): Promise<void> {
    await this.eventsWritten;
    const ended = checkpoint ? eventRow(job, 'training_ended', {}) : null;
    await this.ctx.app.training.completeJob(job.id, { checkpoint, event: ended, patch: { training_end_us: nowUs(), step } });
    if (ended) this.publish(job, ended);
    this.status(job, 'COMPLETED');
  }

  private async finishFailed(job: JobRow, message: string): Promise<void> {
    await this.eventsWritten;
    const ev = eventRow(job, 'training_failed', { error_message: message });
    await this.ctx.app.training.failJob(job.id, { event: ev, patch: { training_end_us: nowUs(), error_message: message } });
    this.publish(job, ev);
    this.status(job, 'FAILED');
  }

  /**
   * Stores an event and pushes it to live views. Called from the engine's synchronous callbacks, so
   * writes are chained (kept in order) and `complete`/`finishFailed` wait for the chain first: a
   * job's terminal event is always its last.
   */
  private event(job: JobRow, type: JobEventType, data: Record<string, unknown>): void {
    const row = eventRow(job, type, data);
    this.eventsWritten = this.eventsWritten
      .then(() => this.ctx.app.training.insertEvent(row))
      .then(
        () => this.publish(job, row),
        (err: unknown) => console.warn(`loupe: could not store event ${type} of job ${job.id}: ${errorMessage(err)}`),
      );
  }

  private publish(job: JobRow, e: { id: string; type: string; data: Record<string, unknown>; created_at_us: number }): void {
    this.ctx.events.emit({ type: 'job.event', job_id: job.id, model_id: job.model_id, event: { id: e.id, type: e.type, data: e.data, created_at: iso(e.created_at_us)! } });
  }

  private status(job: JobRow, status: string): void {
    this.ctx.events.emit({ type: 'job.status', job_id: job.id, model_id: job.model_id, status });
  }
}

const eventRow = (job: JobRow, type: JobEventType, data: Record<string, unknown>): JobEventRow => ({ id: newId(), job_id: job.id, type, data, created_at_us: nowUs() });
