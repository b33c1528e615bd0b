/**
 * Job submission, cancellation and reads (semantics §9.4). Work itself happens in the runner. A
 * job's request body goes to a payload file (payload.ts) and the row keeps a summary; an RL body
 * over HTTP is parsed and checked by the intake worker, never on the server thread.
 */
import { conflict, notFound } from '../../../shared/errors.js';
import type { OpParsedInput, OpOutput } from '../../../shared/contract/index.js';
import type { ServiceContext } from '../context.js';
import type { JobRow } from '../../store/ports.js';
import { readBody, type RawBodyRequest } from '../raw-body.js';
import { getModelOr404 } from './models.js';
import { resolveTrainingData } from './datasets.js';
import { appliedRate } from './learning-rate.js';
import { payloadRel, removePayload, rlSummary, writePayload } from './payload.js';
import { iso, newId, nowUs, runtimeOf } from './util.js';

type RlConfig = OpParsedInput<'training.createRlJob'>['experimental_config'];

/** The learning rate part of an RL job's summary (remote models get the request as sent). */
function rlRate(cfg: RlConfig, remote: boolean): Record<string, unknown> {
  if (remote) return { learning_rate: { sent: cfg?.learning_rate ?? null, how: 'remote' } };
  return { learning_rate: appliedRate('rl', cfg?.learning_rate, cfg?.loupe_learning_rate), loss: cfg?.loss_fn ?? (cfg?.ppo ? 'ppo' : 'cispo') };
}

async function enqueue(ctx: ServiceContext, id: string, modelId: string, kind: 'rl' | 'sft', rel: string, summary: Record<string, unknown>): Promise<{ id: string }> {
  await ctx.app.training.insertJob({ id, model_id: modelId, kind, status: 'QUEUED', payload_file: rel, summary, created_at_us: nowUs() });
  ctx.events.emit({ type: 'job.status', job_id: id, model_id: modelId, status: 'QUEUED' });
  runtimeOf(ctx).runner.kick(modelId);
  return { id };
}

/** IPC (and in-process callers): the input is already parsed and small. */
export async function createRlJob(input: OpParsedInput<'training.createRlJob'>, ctx: ServiceContext): Promise<OpOutput<'training.createRlJob'>> {
  const { model_id, ...payload } = input;
  const model = await getModelOr404(ctx, model_id);
  const id = newId();
  const rel = payloadRel(id);
  writePayload(ctx.dataDir, rel, payload);
  const summary = { ...rlSummary(payload.trajectory_groups), experimental_config: payload.experimental_config ?? null, ...rlRate(payload.experimental_config, !!model.backend) };
  return enqueue(ctx, id, model.id, 'rl', rel, summary);
}

/** HTTP: the body (up to 64 MiB) is read as a stream and parsed, checked and stored by the intake worker. */
export async function createRlJobFromBody(req: RawBodyRequest, ctx: ServiceContext): Promise<OpOutput<'training.createRlJob'>> {
  const rt = runtimeOf(ctx);
  const body = await readBody(req);
  const id = newId();
  const rel = payloadRel(id);
  const value = await rt.intake.rlBody(body, ctx.dataDir, rel);
  let model;
  try {
    model = await getModelOr404(ctx, String(value.model_id));
  } catch (err) {
    removePayload(ctx.dataDir, rel);
    throw err;
  }
  const { model_id: _m, ...counts } = value;
  return enqueue(ctx, id, model.id, 'rl', rel, { ...counts, ...rlRate(value.experimental_config as RlConfig, !!model.backend) });
}

export async function createSftJob(input: OpParsedInput<'training.createSftJob'>, ctx: ServiceContext): Promise<OpOutput<'training.createSftJob'>> {
  const model = await getModelOr404(ctx, input.model_id);
  // A remote model reads its data itself (a file URL must be readable there); a dataset is uploaded to it.
  const data = model.backend && !input.training_data_url.includes('-artifact:///') ? null : await resolveTrainingData(ctx, input.training_data_url);
  const { model_id: _m, ...payload } = input;
  const config = input.config ?? {};
  const id = newId();
  const rel = payloadRel(id);
  writePayload(ctx.dataDir, rel, payload);
  const summary = {
    training_data_url: input.training_data_url,
    dataset: data?.dataset ? { id: data.dataset.id, lines: data.dataset.lines, bytes: data.dataset.bytes } : null,
    batch_size: config.batch_size ?? 'auto',
    assistant_turns: config.assistant_turns ?? 'all',
    learning_rate: model.backend ? { sent: config.learning_rate ?? null, how: 'remote' } : appliedRate('sft', config.learning_rate, config.loupe_learning_rate),
  };
  return enqueue(ctx, id, model.id, 'sft', rel, summary);
}

async function getJobOr404(ctx: ServiceContext, id: string): Promise<JobRow> {
  const j = await ctx.app.training.getJob(id);
  if (!j) throw notFound(`Training job not found: ${id}`);
  return j;
}

export async function getJob(input: OpParsedInput<'training.getJob'>, ctx: ServiceContext): Promise<OpOutput<'training.getJob'>> {
  return jobOut(await getJobOr404(ctx, input.job_id));
}

/**
 * Extension: a queued job ends at once; a running one stops before its next gradient step (the
 * answer waits for that). Both end CANCELLED with a training_failed event, so a polling client stops.
 */
export async function cancelJob(input: OpParsedInput<'training.cancelJob'>, ctx: ServiceContext): Promise<OpOutput<'training.cancelJob'>> {
  const j = await getJobOr404(ctx, input.job_id);
  if (j.status !== 'QUEUED' && j.status !== 'RUNNING') throw conflict(`Training job ${j.id} already ended (${j.status}); only QUEUED or RUNNING jobs can be cancelled`);
  await runtimeOf(ctx).runner.cancel(j.id, 'cancelled by request');
  return jobOut(await getJobOr404(ctx, j.id));
}

/**
 * Extension (semantics §11): jobs newest first. A model_id with no jobs (or a deleted model, whose
 * jobs stay readable) is an empty page, not a 404.
 */
export async function listJobs(input: OpParsedInput<'training.listJobs'>, ctx: ServiceContext): Promise<OpOutput<'training.listJobs'>> {
  const rows = await ctx.app.training.pageJobs({ modelId: input.model_id ?? null, status: input.status ?? null, after: input.after ?? null, limit: input.limit });
  if (!rows) throw notFound(`Training job ${input.after} (the after cursor) not found`);
  const data = rows.slice(0, input.limit).map(jobOut);
  return { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: rows.length > input.limit };
}

function jobOut(j: JobRow): OpOutput<'training.getJob'> {
  return {
    id: j.id,
    model_id: j.model_id,
    kind: j.kind,
    status: j.status,
    created_at: iso(j.created_at_us)!,
    training_start: iso(j.training_start_us),
    training_end: iso(j.training_end_us),
    error_message: j.error_message,
    step: j.step,
    summary: j.summary,
  };
}

export async function jobEvents(input: OpParsedInput<'training.jobEvents'>, ctx: ServiceContext): Promise<OpOutput<'training.jobEvents'>> {
  const j = await getJobOr404(ctx, input.job_id);
  const rows = await ctx.app.training.pageEvents(j.id, input.after ?? null, input.limit);
  if (!rows) throw notFound(`Event ${input.after} (the after cursor) not found for job ${j.id}`);
  const data = rows.slice(0, input.limit).map((e) => ({ id: e.id, type: e.type, data: e.data, created_at: iso(e.created_at_us)! }));
  return { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: rows.length > input.limit };
}
