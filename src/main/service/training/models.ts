/** Models and checkpoints (semantics §9.2, §9.3). */
import fs from 'node:fs';
import { conflict, notFound } from '../../../shared/errors.js';
import type { OpParsedInput, OpOutput } from '../../../shared/contract/index.js';
import type { ServiceContext } from '../context.js';
import type { ModelRow } from '../../store/ports.js';
import { parseRemoteBase } from './remote.js';
import { fallbackBaseModel } from './settings.js';
import { checkpointDir, iso, modelDir, newId, nowUs, runtimeOf } from './util.js';
import { modelHeaders } from './substitution.js';
import type { CallOptions } from '../handler-types.js';

export async function getModelOr404(ctx: ServiceContext, id: string): Promise<ModelRow> {
  const m = await ctx.app.training.getModel(id);
  if (!m) throw notFound(`Model not found: ${id}`);
  return m;
}

const modelOut = (m: ModelRow): OpOutput<'training.createModel'> => ({
  id: m.id,
  entity: m.entity,
  project: m.project,
  name: m.name,
  base_model: m.base_model,
  run_id: m.run_id,
  runtime_model: m.runtime_model ?? m.base_model,
});

/** Creates (or returns) the model; its answer's headers say what runs it (substitution.ts). */
export async function createModel(input: OpParsedInput<'training.createModel'>, ctx: ServiceContext, call: CallOptions = {}): Promise<OpOutput<'training.createModel'>> {
  const out = await createOrFind(input, ctx);
  for (const [k, v] of Object.entries(modelHeaders({ ...out, backend: null }))) call.header?.(k, v); // a remote model's runtime is its own name: never a substitution
  return out;
}

async function createOrFind(input: OpParsedInput<'training.createModel'>, ctx: ServiceContext): Promise<OpOutput<'training.createModel'>> {
  const rt = runtimeOf(ctx);
  const repo = ctx.app.training;
  const entity = input.entity ?? 'local';
  const existing = await repo.findModel(entity, input.project, input.name);
  if (existing) {
    if (input.return_existing) return modelOut(existing);
    throw conflict(`Model ${entity}/${input.project}/${input.name} already exists (pass return_existing: true to reuse it)`);
  }
  const remote = parseRemoteBase(input.base_model);
  // Any name is accepted (issue 11): a base model the built-in trainer does not have (e.g.
  // "OpenPipe/Qwen3-14B-Instruct") is served by the built-in fallback, and runtime_model says so.
  const runtime = remote ? input.base_model : rt.engine.baseModels().includes(input.base_model) ? input.base_model : await fallbackBaseModel(ctx);
  const id = newId();
  const row: ModelRow = {
    id,
    entity,
    project: input.project,
    name: input.name,
    base_model: input.base_model,
    run_id: newId().replace(/-/g, '').slice(0, 8),
    backend: remote?.backend ?? null,
    remote_model_id: null,
    runtime_model: runtime,
    created_at_us: nowUs(),
  };
  if (remote) {
    const r = await rt.remote.createModel(remote.backend, remote.base, { entity, project: input.project, name: input.name });
    row.remote_model_id = r.id;
    await repo.insertModel(row);
    await rt.remote.syncCheckpoints(row);
    return modelOut(row);
  }
  // Weights first, row second: a model row always has its step-0 checkpoint on disk.
  const dir = checkpointDir(ctx.dataDir, id, 0);
  await rt.engine.initCheckpoint(runtime, dir);
  // Two concurrent creates of the same name: the loser answers as the first one did.
  const again = await repo.findModel(entity, input.project, input.name);
  if (again) {
    fs.rmSync(modelDir(ctx.dataDir, id), { recursive: true, force: true });
    if (input.return_existing) return modelOut(again);
    throw conflict(`Model ${entity}/${input.project}/${input.name} already exists`);
  }
  await repo.createModel(row, { id: newId(), model_id: id, step: 0, metrics: {}, created_at_us: nowUs() });
  return modelOut(row);
}

export async function deleteModel(input: OpParsedInput<'training.deleteModel'>, ctx: ServiceContext): Promise<OpOutput<'training.deleteModel'>> {
  const rt = runtimeOf(ctx);
  const m = await getModelOr404(ctx, input.model_id);
  // Its queued jobs end now and its running job stops before its next gradient step (waited for,
  // so no worker keeps training a deleted model).
  await rt.runner.cancelModel(m.id, `model ${m.id} was deleted`);
  if (m.backend) await rt.remote.call(m.backend, 'DELETE', `/v1/preview/models/${encodeURIComponent(m.remote_model_id!)}`).catch(() => undefined);
  const deleted = await ctx.app.training.deleteModel(m.id);
  fs.rmSync(modelDir(ctx.dataDir, m.id), { recursive: true, force: true });
  return { model_id: m.id, deleted_checkpoints: deleted, deleted_run: true };
}

export async function listCheckpoints(input: OpParsedInput<'training.listCheckpoints'>, ctx: ServiceContext): Promise<OpOutput<'training.listCheckpoints'>> {
  const m = await getModelOr404(ctx, input.model_id);
  const repo = ctx.app.training;
  let afterStep: number | null = null;
  if (input.after !== undefined) {
    const c = await repo.checkpointById(m.id, input.after);
    if (!c) throw notFound(`Checkpoint ${input.after} (the after cursor) not found for model ${m.id}`);
    afterStep = c.step;
  }
  const rows = await repo.pageCheckpoints(m.id, afterStep, input.limit, input.order);
  const data = rows.slice(0, input.limit).map((c) => ({ id: c.id, step: c.step, metrics: c.metrics }));
  return { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: rows.length > input.limit };
}

/** Extension (semantics §11): the models in the store, a page at a time, so a UI need not remember ids. */
export async function listModels(input: OpParsedInput<'training.listModels'>, ctx: ServiceContext): Promise<OpOutput<'training.listModels'>> {
  const rows = await ctx.app.training.pageModels({
    entity: input.entity ?? null,
    project: input.project ?? null,
    after: input.after ?? null,
    limit: input.limit,
    order: input.order,
  });
  if (!rows) throw notFound(`Model ${input.after} (the after cursor) not found`);
  const data = rows.slice(0, input.limit).map((m) => ({ ...modelOut(m), created_at: iso(m.created_at_us)!, latest_step: m.latest_step }));
  return { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: rows.length > input.limit };
}

export async function deleteCheckpoints(
  input: OpParsedInput<'training.deleteCheckpoints'>,
  ctx: ServiceContext,
): Promise<OpOutput<'training.deleteCheckpoints'>> {
  const m = await getModelOr404(ctx, input.model_id);
  const repo = ctx.app.training;
  const latest = await repo.latestCheckpoint(m.id);
  const steps = [...new Set(input.steps)];
  if (latest && steps.includes(latest.step)) {
    throw conflict(`Step ${latest.step} is the latest checkpoint of model ${m.id} and cannot be deleted; nothing was deleted`);
  }
  if (m.backend) {
    await runtimeOf(ctx).remote.call(m.backend, 'DELETE', `/v1/preview/models/${encodeURIComponent(m.remote_model_id!)}/checkpoints`, { steps });
  }
  const deleted = await repo.deleteCheckpointSteps(m.id, steps);
  for (const s of deleted) fs.rmSync(checkpointDir(ctx.dataDir, m.id, s), { recursive: true, force: true });
  return { deleted_count: deleted.length, not_found_steps: steps.filter((s) => !deleted.includes(s)) };
}
