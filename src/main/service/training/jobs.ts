/** Job submission and reads (semantics §9.4). Work itself happens in the runner. */
import { invalid, notFound } from '../../../shared/errors.js';
import type { OpParsedInput, OpOutput } from '../../../shared/contract/index.js';
import type { ServiceContext } from '../context.js';
import type { JobRow } from '../../store/ports.js';
import { getModelOr404 } from './models.js';
import { dataFilePath } from './sft-data.js';
import { iso, newId, nowUs, runtimeOf } from './util.js';

async function submit(ctx: ServiceContext, modelId: string, kind: 'rl' | 'sft', payload: unknown): Promise<{ id: string }> {
  const rt = runtimeOf(ctx);
  await getModelOr404(ctx, modelId);
  const id = newId();
  await ctx.app.training.insertJob({ id, model_id: modelId, kind, status: 'QUEUED', payload, created_at_us: nowUs() });
  ctx.events.emit({ type: 'job.status', job_id: id, model_id: modelId, status: 'QUEUED' });
  rt.runner.kick(modelId);
  return { id };
}

export function createRlJob(input: OpParsedInput<'training.createRlJob'>, ctx: ServiceContext): Promise<OpOutput<'training.createRlJob'>> {
  const { model_id, ...payload } = input;
  return submit(ctx, model_id, 'rl', payload);
}

export async function createSftJob(input: OpParsedInput<'training.createSftJob'>, ctx: ServiceContext): Promise<OpOutput<'training.createSftJob'>> {
  try {
    dataFilePath(input.training_data_url);
  } catch (err) {
    throw invalid('training_data_url', (err as Error).message, input.training_data_url);
  }
  const { model_id, ...payload } = input;
  return submit(ctx, model_id, 'sft', payload);
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
  };
}

export async function jobEvents(input: OpParsedInput<'training.jobEvents'>, ctx: ServiceContext): Promise<OpOutput<'training.jobEvents'>> {
  const j = await getJobOr404(ctx, input.job_id);
  const rows = await ctx.app.training.pageEvents(j.id, input.after ?? null, input.limit);
  if (!rows) throw notFound(`Event ${input.after} (the after cursor) not found for job ${j.id}`);
  const data = rows.slice(0, input.limit).map((e) => ({ id: e.id, type: e.type, data: e.data, created_at: iso(e.created_at_us)! }));
  return { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: rows.length > input.limit };
}
