/**
 * POST /v1/preview/models/{id}/log (semantics §9.6): split metrics onto the latest checkpoint, and
 * every trajectory stored as a trace in the model's project (rollouts.ts builds them), through the
 * OTLP importer like any exporter's spans, so rollouts read in the chat view, group by reward and
 * survive export and re-import. Over HTTP the body (up to 64 MiB) is read as a stream and parsed,
 * checked and turned into spans by the intake worker; the spans are then parsed by the ingest body
 * worker: the server thread never parses it.
 */
import type { OpParsedInput, OpOutput } from '../../../shared/contract/index.js';
import type { ServiceContext } from '../context.js';
import type { ModelRow } from '../../store/ports.js';
import { readBody, type RawBodyRequest } from '../raw-body.js';
import { getModelOr404 } from './models.js';
import { buildRollouts, type Rollouts } from './rollouts.js';
import { importSpans } from './import-spans.js';
import { RawBody } from './remote.js';
import { storeLinkedRollouts } from './rollout-join.js';
import { projectOf, runtimeOf } from './util.js';

/** What a /log stores once its input is known, whichever thread built it. */
async function store(ctx: ServiceContext, model: ModelRow, latest: { id: string; metrics: Record<string, number> } | null, r: Rollouts | (Omit<Rollouts, 'request'> & { request: Buffer | null })): Promise<OpOutput<'training.log'>> {
  const project_id = projectOf(model);
  // Spans first, then metrics and rewards together (decision 0002): a retried /log rewrites the
  // spans idempotently, so no reward is ever stored for spans that are not.
  if (r.request) await importSpans(ctx, project_id, r.request);
  await storeLinkedRollouts(ctx, project_id, r.linked, (req) => importSpans(ctx, project_id, req));
  await ctx.app.training.recordRollouts({
    checkpoint: latest ? { id: latest.id, metrics: { ...latest.metrics, ...r.metrics } } : null,
    feedback: r.rewards.map((x) => ({ project_id, target_kind: 'trace', target_id: x.trace_id, feedback_type: 'reward', payload: { reward: x.reward }, creator: 'loupe-training' })),
  });
  if (r.rewards.length) ctx.events.emit({ type: 'data.changed', project_id, tables: ['spans', 'feedback'] });
  return {};
}

const now = () => BigInt(Date.now()) * 1_000_000n;

/** IPC (and in-process callers): the input is parsed already. */
export async function logTrajectories(input: OpParsedInput<'training.log'>, ctx: ServiceContext): Promise<OpOutput<'training.log'>> {
  const model = await getModelOr404(ctx, input.model_id);
  if (model.backend) {
    const { model_id: _m, ...body } = input;
    await runtimeOf(ctx).remote.call(model.backend, 'POST', `/v1/preview/models/${encodeURIComponent(model.remote_model_id!)}/log`, body);
  }
  const latest = await ctx.app.training.latestCheckpoint(model.id);
  return store(ctx, model, latest, buildRollouts(model, input.split, latest?.step ?? 0, input.trajectory_groups, now()));
}

/** HTTP: the body goes to the intake worker, which checks it and builds the rollout spans there. */
export async function logFromBody(req: RawBodyRequest, ctx: ServiceContext): Promise<OpOutput<'training.log'>> {
  const model = await getModelOr404(ctx, String(req.params.model_id));
  const body = await readBody(req);
  const latest = await ctx.app.training.latestCheckpoint(model.id);
  const rt = runtimeOf(ctx);
  const forward = model.backend ? Buffer.from(body) : null; // the worker takes the buffer; the remote gets the body as sent
  const r = await rt.intake.logBody(body, { id: model.id, name: model.name, entity: model.entity, project: model.project, run_id: model.run_id }, latest?.step ?? 0, String(model.id), now());
  if (forward) {
    // The path names the remote model (it wins over the body's model_id there as here).
    await rt.remote.call(model.backend!, 'POST', `/v1/preview/models/${encodeURIComponent(model.remote_model_id!)}/log`, new RawBody(forward, 'application/json'));
  }
  return store(ctx, model, latest, r);
}
