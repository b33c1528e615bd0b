/**
 * The job runner (semantics §9.4): jobs persist in SQLite and run one at a time per model, in
 * submission order. Engine work happens in the trainer's job worker, so HTTP and IPC keep answering
 * while a job trains. Each job emits training_started {num_sequences = the number of gradient_step
 * events that follow} → gradient_step× → training_ended | training_failed; the next checkpoint is
 * written in the same transaction as training_ended, so it exists before a client can see the job
 * end. A job can be cancelled (or its model deleted): it stops before its next gradient step and
 * ends CANCELLED. When a job ends its payload file is deleted. Recovery at start: docs/training.md.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ServiceContext } from '../context.js';
import type { CheckpointRow, JobEventRow, JobRow } from '../../store/ports.js';
import type { StepMetrics, TrainerEngine, TrainRequest } from '../../training/engine.js';
import { removeTempCheckpoints } from '../../training/checkpoint-files.js';
import { MAX_SFT_FILE_BYTES } from '../../training/sft-file.js';
import type { OpParsedInput } from '../../../shared/contract/index.js';
import { ServiceError } from '../../../shared/errors.js';
import { averageMetrics, checkpointDir, errorMessage, iso, modelDir, newId, nowUs, type JobEventType } from './util.js';
import { PAYLOAD_DIR, payloadRel, removePayload, writePayload } from './payload.js';
import { appliedRate, describeRate } from './learning-rate.js';
import { modelFacts } from './substitution.js';
import { removeIncoming, resolveTrainingData } from './datasets.js';
import type { RemoteBackends } from './remote.js';

export type { JobEventType } from './util.js';

type RlConfig = NonNullable<OpParsedInput<'training.createRlJob'>['experimental_config']>;
type SftPayload = Omit<OpParsedInput<'training.createSftJob'>, 'model_id'>;

/** How long a cancel waits for the running job to stop (one gradient step, on a loaded machine). */
const CANCEL_WAIT_MS = 120_000;

export const RESTART_MESSAGE = 'Loupe stopped while this job was running; submit it again';

interface Running {
  job: JobRow;
  controller: AbortController;
  done: Promise<void>;
}

export class JobRunner {
  /** Models whose queue is being drained right now. */
  private readonly active = new Map<string, Promise<void>>();
  /** Models kicked while their drain was already running: it looks at the queue once more before ending. */
  private readonly kickedAgain = new Set<string>();
  /** The job each draining model is running. */
  private readonly running = new Map<string, Running>();
  private eventsWritten: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly engine: TrainerEngine,
    private readonly remote: RemoteBackends,
  ) {}

  /**
   * At start, before any request: a job left RUNNING by a previous process failed; files a crash
   * left behind are removed (temp checkpoint folders, weights without a checkpoint row, folders of
   * deleted models, payloads of ended jobs, half-received dataset uploads); queued jobs resume.
   */
  async recover(): Promise<void> {
    const repo = this.ctx.app.training;
    for (const job of await repo.jobsWithStatus('RUNNING')) await this.end(job, 'FAILED', RESTART_MESSAGE);
    for (const job of await repo.endedJobsWithPayload()) await this.dropPayload(job);
    await this.sweepFiles();
    removeIncoming(this.ctx.dataDir);
    const models = new Set((await repo.jobsWithStatus('QUEUED')).map((j) => j.model_id));
    for (const m of models) this.kick(m);
  }

  private async sweepFiles(): Promise<void> {
    const repo = this.ctx.app.training;
    const root = path.join(this.ctx.dataDir, 'models');
    const known = new Set(await repo.modelIds());
    for (const id of fs.existsSync(root) ? fs.readdirSync(root) : []) {
      if (!known.has(id)) {
        fs.rmSync(path.join(root, id), { recursive: true, force: true });
        continue;
      }
      const dir = modelDir(this.ctx.dataDir, id);
      removeTempCheckpoints(dir);
      const steps = new Set((await repo.listCheckpoints(id)).map((c) => `step${c.step}`));
      for (const name of fs.readdirSync(dir)) if (/^step\d+$/.test(name) && !steps.has(name)) fs.rmSync(path.join(dir, name), { recursive: true, force: true });
    }
    // Payload files of jobs that no longer wait or run (e.g. written just before a crash, row never inserted).
    const payloads = path.join(this.ctx.dataDir, PAYLOAD_DIR);
    for (const f of fs.existsSync(payloads) ? fs.readdirSync(payloads) : []) {
      const job = await repo.getJob(f.replace(/\.json$/, ''));
      if (!job || (job.status !== 'QUEUED' && job.status !== 'RUNNING')) fs.rmSync(path.join(payloads, f), { force: true });
    }
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

  /**
   * Cancels one job: a queued one ends now; a running one is aborted and this resolves once it
   * stopped (before its next gradient step). Both end CANCELLED with a training_failed event.
   */
  async cancel(jobId: string, reason: string): Promise<void> {
    const r = [...this.running.values()].find((x) => x.job.id === jobId);
    if (r) return this.abort(r, reason);
    const job = await this.ctx.app.training.getJob(jobId);
    if (job && job.status === 'QUEUED') await this.end(job, 'CANCELLED', reason);
  }

  /** Cancels every unfinished job of a model (it is being deleted) and waits for the running one to stop. */
  async cancelModel(modelId: string, reason: string): Promise<void> {
    for (const job of await this.ctx.app.training.jobsWithStatus('QUEUED', modelId)) await this.end(job, 'CANCELLED', reason);
    const r = this.running.get(modelId);
    if (r) await this.abort(r, reason);
  }

  private async abort(r: Running, reason: string): Promise<void> {
    r.controller.abort(reason);
    await Promise.race([r.done, new Promise((res) => setTimeout(res, CANCEL_WAIT_MS).unref())]);
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
      const controller = new AbortController();
      const done = this.run(next, controller.signal);
      this.running.set(modelId, { job: next, controller, done });
      await done;
      this.running.delete(modelId);
    }
  }

  /** The job's payload file (rows older than migration 0006 carry it inline: written out first). */
  private async payloadFile(job: JobRow): Promise<string> {
    if (!job.payload_file && job.payload !== null) {
      const rel = payloadRel(job.id);
      writePayload(this.ctx.dataDir, rel, job.payload as Record<string, unknown>);
      await this.ctx.app.training.updateJob(job.id, { payload_file: rel, payload: null });
      job.payload_file = rel;
    }
    if (!job.payload_file) throw new Error(`job ${job.id} has no payload`);
    return path.join(this.ctx.dataDir, job.payload_file);
  }

  private async run(job: JobRow, signal: AbortSignal): Promise<void> {
    const repo = this.ctx.app.training;
    const model = await repo.getModel(job.model_id);
    if (!model) return this.end(job, 'FAILED', `model ${job.model_id} was deleted`);
    await repo.updateJob(job.id, { status: 'RUNNING', training_start_us: nowUs() });
    this.status(job, 'RUNNING');
    const emit = (type: JobEventType, data: Record<string, unknown>) => this.event(job, type, data);
    if (model.backend) {
      try {
        await this.remote.runJob(model, job, await this.payloadFile(job), emit, () => this.closed || signal.aborted);
        await this.complete(job, (await repo.latestCheckpoint(model.id))?.step ?? null, null);
      } catch (err) {
        const j = (await repo.getJob(job.id)) ?? job;
        await this.end(j, signal.aborted ? 'CANCELLED' : 'FAILED', signal.aborted ? String(signal.reason) : errorMessage(err));
      }
      return;
    }
    const base = await repo.latestCheckpoint(model.id);
    if (!base) return this.end(job, 'FAILED', `model ${model.id} has no checkpoint to train from`);
    const step = base.step + 1;
    const outDir = checkpointDir(this.ctx.dataDir, model.id, step);
    const baseDir = checkpointDir(this.ctx.dataDir, model.id, base.step);
    const metrics: StepMetrics[] = [];
    const hooks: TrainRequest = {
      baseCheckpointDir: baseDir,
      outCheckpointDir: outDir,
      signal,
      // The hosted client takes num_sequences as its progress total: the number of gradient steps.
      // Beside it (data is free-form for the client): what model really trains and at what rate (issue 22.12, 22.14).
      onStart: (info) => emit('training_started', { num_sequences: info.numSteps, model: modelFacts(model), learning_rate: describeRate(job.summary.learning_rate) }),
      onStep: (m) => {
        metrics.push(m);
        emit('gradient_step', { ...m });
      },
    };
    try {
      fs.rmSync(outDir, { recursive: true, force: true }); // leftovers of an interrupted job
      if (job.kind === 'rl') await this.runRl(job, hooks);
      else await this.runSft(job, hooks);
      if (!(await repo.getModel(model.id))) throw new Error(`model ${model.id} was deleted while the job ran`);
      await this.complete(job, step, { id: newId(), model_id: model.id, step, metrics: averageMetrics(metrics), created_at_us: nowUs() });
    } catch (err) {
      // The model may have been deleted while the worker wrote its files: remove what it left.
      if (!(await repo.getModel(model.id))) fs.rmSync(modelDir(this.ctx.dataDir, model.id), { recursive: true, force: true });
      else if (!(await repo.checkpointByStep(model.id, step))) fs.rmSync(outDir, { recursive: true, force: true });
      await this.end(job, signal.aborted ? 'CANCELLED' : 'FAILED', signal.aborted ? String(signal.reason) : errorMessage(err));
    }
  }

  private async runRl(job: JobRow, hooks: TrainRequest): Promise<void> {
    const cfg = ((job.summary.experimental_config ?? (job.payload as { experimental_config?: RlConfig } | null)?.experimental_config) ?? {}) as RlConfig;
    await this.engine.rl({
      ...hooks,
      // Read and turned into samples in the job worker: the payload may be tens of MiB.
      payloadFile: {
        path: await this.payloadFile(job),
        options: {
          normalize: (cfg.normalize_advantages ?? true) && (cfg.scale_rewards ?? true),
          allowWithoutLogprobs: cfg.allow_training_without_logprobs ?? false,
        },
      },
      loss: cfg.loss_fn ?? (cfg.ppo ? 'ppo' : 'cispo'),
      learningRate: appliedRate('rl', cfg.learning_rate, cfg.loupe_learning_rate).applied as number,
    });
  }

  private async runSft(job: JobRow, hooks: TrainRequest): Promise<void> {
    const p = JSON.parse(fs.readFileSync(await this.payloadFile(job), 'utf8')) as SftPayload;
    const data = await resolveTrainingData(this.ctx, p.training_data_url).catch((err: unknown) => {
      // Checked at submission; the file may have gone since. Report the reason, not the 422 shape.
      const d = err instanceof ServiceError && Array.isArray(err.detail) ? err.detail[0]?.msg : errorMessage(err);
      throw new Error(`training_data_url ${p.training_data_url}: ${d}`);
    });
    const config = p.config ?? {};
    await this.engine.sft({
      ...hooks,
      dataFile: { path: data.path, label: data.label, maxBytes: MAX_SFT_FILE_BYTES },
      batchSize: config.batch_size ?? 'auto',
      learningRate: appliedRate('sft', config.learning_rate, config.loupe_learning_rate).applied,
      assistantTurns: config.assistant_turns ?? 'all',
    });
  }

  /**
   * The job's end in one write: the checkpoint it made (null for a remote job, already mirrored),
   * training_ended, and the COMPLETED row, so the checkpoint exists and the job reads COMPLETED
   * before a client sees the end (local and remote jobs alike). The payload goes.
   */
  private async complete(job: JobRow, step: number | null, checkpoint: CheckpointRow | null): Promise<void> {
    await this.eventsWritten;
    const ended = eventRow(job, 'training_ended', {});
    await this.ctx.app.training.completeJob(job.id, { checkpoint, event: ended, patch: { training_end_us: nowUs(), step, payload_file: null, payload: null } });
    removePayload(this.ctx.dataDir, job.payload_file);
    this.publish(job, ended);
    this.status(job, 'COMPLETED');
  }

  /** FAILED or CANCELLED: status, message and the training_failed event in one write; the payload goes. */
  private async end(job: JobRow, status: 'FAILED' | 'CANCELLED', message: string): Promise<void> {
    await this.eventsWritten;
    const ev = eventRow(job, 'training_failed', { error_message: message });
    await this.ctx.app.training.failJob(job.id, { event: ev, status, patch: { training_end_us: nowUs(), error_message: message, payload_file: null, payload: null } });
    removePayload(this.ctx.dataDir, job.payload_file);
    this.publish(job, ev);
    this.status(job, status);
  }

  private async dropPayload(job: JobRow): Promise<void> {
    removePayload(this.ctx.dataDir, job.payload_file);
    await this.ctx.app.training.updateJob(job.id, { payload_file: null, payload: null });
  }

  /**
   * Stores an event and pushes it to live views. Called from the engine's synchronous callbacks, so
   * writes are chained (kept in order) and `complete`/`end` wait for the chain first: a job's
   * terminal event is always its last.
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
