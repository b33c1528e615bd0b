/** Handlers of the replay operations (contract/replays.ts); the runner and the report live beside them. */
import { randomUUID } from 'node:crypto';
import type { OpParsedInput, OpOutput } from '../../../shared/contract/index.js';
import { invalid, notFound, unavailable } from '../../../shared/errors.js';
import type { ServiceContext } from '../context.js';
import type { Handlers } from '../handler-types.js';
import { readRecording, type Recording } from './recording.js';
import { loadState, listStates, replayOut, type ReplayState, type StoredTarget } from './state.js';
import { priceOf, ReplayRunner } from './runner.js';
import { replayReport } from './report.js';
import { selectedRows as listRows } from '../evals/turns.js';
import { clusterConversations } from '../evals/clusters.js';
import { getScorer } from '../evals/scorers.js';
import { parseArtifactUrl, readDatasetSources } from '../training/datasets.js';

declare module '../context.js' {
  interface ServiceExtensions {
    /** Replays running in the background; set by startReplays. */
    replays?: ReplayRunner;
  }
}

/** Starts the replay runner and resumes replays a stopped server left running. */
export function startReplays(ctx: ServiceContext): ReplayRunner {
  const runner = new ReplayRunner(ctx);
  ctx.replays = runner;
  runner.recover();
  return runner;
}

const runnerOf = (ctx: ServiceContext): ReplayRunner => {
  if (!ctx.replays) throw unavailable('The replay runner is not started');
  return ctx.replays;
};

type Selection = OpParsedInput<'replays.estimate'>;
type TargetIn = OpParsedInput<'replays.create'>['target'];

/** The selection's turns, read whole (a conversation's in the order they happened); replays of earlier runs are left out. */
async function selectedTurns(ctx: ServiceContext, sel: Selection, signal?: AbortSignal): Promise<Recording[]> {
  if (sel.trace_ids) {
    const out: Recording[] = [];
    for (const [i, id] of [...new Set(sel.trace_ids)].entries()) {
      const rec = await readRecording(ctx, sel.project_id, id, signal);
      if (!rec) throw invalid(['trace_ids', i], `trace ${id} is not in project ${sel.project_id}`, id);
      if (rec.replay_of) throw invalid(['trace_ids', i], `trace ${id} is itself a replay (of ${rec.replay_of}); replay its original`, id);
      out.push(rec);
    }
    return out;
  }
  const { conversations, traces, field, max } = await selectedRows(ctx, sel);
  const ids = [...(conversations.length ? await ctx.traces.exportTraceIds({ project_id: sel.project_id, conversation_ids: conversations }, { signal }) : []), ...traces];
  if (!ids.length) throw invalid(field, `no turn of this selection is stored in project ${sel.project_id}`);
  const out: Recording[] = [];
  for (const id of ids) {
    const rec = await readRecording(ctx, sel.project_id, id, signal);
    if (rec && !rec.replay_of) out.push(rec);
  }
  const order = new Map([...conversations, ...traces].map((c, i) => [c, i]));
  const rank = (r: Recording) => order.get(r.conversation_id ?? r.trace_id) ?? order.get(r.trace_id) ?? 0;
  out.sort((a, b) => rank(a) - rank(b) || (a.start_ms ?? 0) - (b.start_ms ?? 0));
  return out.slice(0, max);
}

/** Conversations (and bare traces) a conversation-level selection names, in its order. */
async function selectedRows(ctx: ServiceContext, sel: Selection): Promise<{ conversations: string[]; traces: string[]; field: string; max: number }> {
  if (sel.conversation_ids) return { conversations: [...new Set(sel.conversation_ids)], traces: [], field: 'conversation_ids', max: Infinity };
  if (sel.dataset) return { conversations: await datasetConversations(ctx, sel.project_id, sel.dataset), traces: [], field: 'dataset', max: Infinity };
  const conversations: string[] = [];
  const traces: string[] = [];
  for await (const row of listRows(ctx, sel.project_id, sel.selection!, (id) =>
    clusterConversations(ctx, sel.project_id, id).catch((e: Error) => {
      throw invalid(['selection', 'cluster_id'], `${e.message} (POST /app/clusters lists them)`, id);
    }),
  )) {
    (row.kind === 'conversation' ? conversations : traces).push(row.id);
  }
  return { conversations, traces, field: sel.selection!.cluster_id ? 'selection.cluster_id' : 'selection', max: sel.selection!.max_turns ?? Infinity };
}

/** The conversations a dataset was made from (POST /datasets/from-conversations keeps them beside its file). */
async function datasetConversations(ctx: ServiceContext, projectId: string, url: string): Promise<string[]> {
  const art = parseArtifactUrl(url);
  if (!art) throw invalid('dataset', 'must be a dataset URL wandb-artifact:///<entity>/<project>/<name>:v<N>', url);
  const d = await ctx.app.training.getDataset(art.entity, art.project, art.name, art.version);
  if (!d) throw invalid('dataset', `dataset ${url} not found (GET /v1/preview/datasets lists them)`, url);
  const sources = readDatasetSources(ctx.dataDir, d.file);
  if (!sources) throw invalid('dataset', `dataset ${url} was uploaded, not made from conversations: its lines are not linked to traces`, url);
  if (sources.project_id !== projectId) throw invalid('dataset', `dataset ${url} was made from project ${sources.project_id}, not ${projectId}`, url);
  return sources.conversation_ids;
}

function selectedBy(sel: Selection): NonNullable<ReplayState['selected_by']> {
  const kind = sel.trace_ids ? 'trace_ids' : sel.conversation_ids ? 'conversation_ids' : sel.dataset ? 'dataset' : 'selection';
  return { kind, dataset: sel.dataset ?? null, cluster_id: sel.selection?.cluster_id ?? null };
}

async function storedTarget(ctx: ServiceContext, t: TargetIn, replayId: string | null): Promise<{ target: StoredTarget; ownSecret: string | null }> {
  if ('model_id' in t) {
    const model = await ctx.app.training.getModel(t.model_id);
    if (!model) throw invalid(['target', 'model_id'], `no model ${t.model_id} (GET /v1/preview/models lists them)`, t.model_id);
    const cp = t.step === undefined ? await ctx.app.training.latestCheckpoint(model.id) : await ctx.app.training.checkpointByStep(model.id, t.step);
    if (!cp) throw invalid(['target', 'step'], `model ${t.model_id} has no checkpoint${t.step === undefined ? '' : ` at step ${t.step}`}`, t.step);
    return { target: { kind: 'checkpoint', model_id: model.id, step: cp.step, model: `${model.entity}/${model.project}/${model.name}:step${cp.step}` }, ownSecret: null };
  }
  let secret = t.api_key_secret ?? null;
  let ownSecret: string | null = null;
  if (secret && !ctx.secrets?.get(secret)) throw invalid(['target', 'api_key_secret'], `the secrets file has no readable secret ${secret}`, secret);
  if (t.api_key && replayId) {
    if (!ctx.secrets) throw unavailable('no secrets file to keep the key in');
    secret = ownSecret = `replay.${replayId}`;
    ctx.secrets.set(secret, t.api_key);
  }
  return { target: { kind: 'endpoint', base_url: t.base_url, model: t.model, api_key_secret: secret, price: t.price ?? null }, ownSecret };
}

function estimateOf(turns: Recording[], target: StoredTarget): OpOutput<'replays.estimate'> {
  const input = turns.reduce((a, r) => a + (r.input_tokens ?? 0), 0);
  const output = turns.reduce((a, r) => a + (r.output_tokens ?? 0), 0);
  return {
    turns: turns.length,
    model_calls: turns.reduce((a, r) => a + r.model_calls, 0),
    input_tokens: input,
    output_tokens: output,
    cost_usd: priceOf(target, input, output),
    turns_without_model_calls: turns.filter((r) => r.model_calls === 0).length,
  };
}

export const replayHandlers = {
  'replays.estimate': async (input, ctx, call) => {
    const turns = await selectedTurns(ctx, input, call.signal);
    return estimateOf(turns, (await storedTarget(ctx, input.target, null)).target);
  },
  'replays.create': async (input, ctx) => {
    const runner = runnerOf(ctx);
    for (const [i, id] of (input.scorers ?? []).entries()) {
      await getScorer(ctx, input.project_id, id).catch(() => {
        throw invalid(['scorers', i], `project ${input.project_id} has no scorer ${id} (POST /app/scorers lists them)`, id);
      });
    }
    const turns = await selectedTurns(ctx, input);
    const replayId = randomUUID().replace(/-/g, '');
    const probe = (await storedTarget(ctx, input.target, null)).target;
    if (input.budget.max_cost_usd !== undefined && priceOf(probe, 1000, 1000) === null) {
      throw invalid(['budget', 'max_cost_usd'], `the price of ${'model' in input.target ? input.target.model : ''} is unknown, so a cost budget cannot be enforced: give target.price`);
    }
    const { target, ownSecret } = await storedTarget(ctx, input.target, replayId);
    const estimate = estimateOf(turns, target);
    const state: ReplayState = {
      replay_id: replayId,
      project_id: input.project_id,
      label: input.label ?? null,
      status: 'running',
      reason: null,
      target,
      own_secret: ownSecret,
      overrides: input.overrides,
      budget: input.budget,
      on_divergence: input.on_divergence,
      check: input.check ?? null,
      selected_by: selectedBy(input),
      scorers: input.scorers ?? [],
      estimate,
      created_at: new Date().toISOString(),
      ended_at: null,
      items: turns.map((r) => ({
        original_trace_id: r.trace_id, replay_trace_id: null, conversation_id: r.conversation_id, status: 'pending', diverged: false,
        divergence: null, error: null, input_tokens: 0, output_tokens: 0, cost_usd: null, duration_ms: null,
      })),
    };
    runner.start(state);
    return { replay_id: replayId, estimate };
  },
  'replays.list': async (input, ctx) => {
    const all = listStates(ctx.dataDir).map((s) => ctx.replays?.get(s.replay_id) ?? s);
    return {
      replays: all
        .filter((s) => !input.project_id || s.project_id === input.project_id)
        .sort((a, b) => (a.created_at < b.created_at ? 1 : -1))
        .map((s) => {
          const { items: _items, ...rest } = replayOut(s);
          return rest;
        }),
    };
  },
  'replays.get': async (input, ctx) => replayOut(stateOr404(ctx, input.replay_id)),
  'replays.cancel': async (input, ctx) => {
    const s = stateOr404(ctx, input.replay_id);
    return replayOut((await runnerOf(ctx).cancel(s.replay_id)) ?? s);
  },
  'replays.report': async (input, ctx, call) => replayReport(ctx, stateOr404(ctx, input.replay_id), input.sort, call.signal),
} satisfies Partial<Handlers>;

function stateOr404(ctx: ServiceContext, id: string): ReplayState {
  const s = ctx.replays?.get(id) ?? loadState(ctx.dataDir, id);
  if (!s) throw notFound(`no replay ${id}`);
  return s;
}
