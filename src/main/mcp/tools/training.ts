/**
 * Training, read-only: models, a model's checkpoints, jobs, and one job with a page of its events —
 * the training API's own reads (`training.listModels`, `listCheckpoints`, `listJobs`, `getJob`,
 * `jobEvents`). Over HTTP they need the key, as the training API does.
 */
import { z } from 'zod';
import { KB, answerBytes, cutText, fitCount } from '../budget.js';
import { tool } from '../tool.js';

const BUDGET = 12 * KB;
const limit = (dflt: number) => z.number().int().min(1).max(100).default(dflt).describe(`items per page, 1–100 (default ${dflt})`);
const after = z.string().min(1).optional().describe('next_cursor of the previous answer (the last id it listed)');
const pageOut = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), next_cursor: z.string().nullable() });

/** A page of the training API as an answer: items fitted to the budget, the cursor after the last shown. */
function pageAnswer<T extends { id: string }>(items: T[], hasMore: boolean, head: string, line: (t: T) => string) {
  const build = (k: number) => {
    const shown = items.slice(0, k);
    const next = k < items.length || hasMore ? (shown.at(-1)?.id ?? null) : null;
    return { structured: { items: shown, next_cursor: next }, text: `${head}\n${shown.length ? shown.map(line).join('\n') : '(none)'}${next ? `\nMore: call again with after="${next}".` : ''}` };
  };
  return build(fitCount(items.length, (k) => answerBytes(build(k)), BUDGET));
}

const Model = z.object({ id: z.string(), entity: z.string(), project: z.string(), name: z.string(), base_model: z.string(), runtime_model: z.string(), created_at: z.string(), latest_step: z.number().int().nullable() });
export const listModels = tool({
  name: 'list_models',
  title: 'List trained models',
  description: 'Models of the training API, newest first, with their base model and latest checkpoint step. Needs the key over HTTP.',
  budget: BUDGET,
  input: z.object({ project: z.string().min(1).optional().describe('only models of this training project'), limit: limit(20), after }),
  output: pageOut(Model),
  async run(args, env) {
    const p = await env.caller.call('training.listModels', { project: args.project, limit: args.limit, after: args.after }, env.signal);
    const items = p.data.map((m) => ({ id: m.id, entity: m.entity, project: m.project, name: m.name, base_model: m.base_model, runtime_model: m.runtime_model, created_at: m.created_at, latest_step: m.latest_step }));
    return pageAnswer(items, p.has_more, `${items.length} model${items.length === 1 ? '' : 's'}${p.has_more ? ' (more follow)' : ''}:`, (m) => `- ${m.id}: ${m.entity}/${m.project}/${m.name} on ${m.base_model} (runs ${m.runtime_model}) · latest step ${m.latest_step ?? '–'} · created ${m.created_at}`);
  },
});

const Checkpoint = z.object({ id: z.string(), step: z.number().int(), metrics: z.record(z.string(), z.number()) });
export const listCheckpoints = tool({
  name: 'list_checkpoints',
  title: 'List checkpoints of a model',
  description: 'A model\'s checkpoints by step with their metrics. Needs the key over HTTP.',
  budget: BUDGET,
  input: z.object({ model_id: z.string().min(1), limit: limit(50), after, newest_first: z.boolean().default(false) }),
  output: pageOut(Checkpoint),
  async run(args, env) {
    const p = await env.caller.call('training.listCheckpoints', { model_id: args.model_id, limit: args.limit, after: args.after, order: args.newest_first ? 'desc' : 'asc' }, env.signal);
    return pageAnswer(p.data, p.has_more, `Checkpoints of model ${args.model_id}:`, (c) => `- step ${c.step} (${c.id}): ${Object.entries(c.metrics).map(([k, v]) => `${k}=${v}`).join(', ') || 'no metrics'}`);
  },
});

const Job = z.object({ id: z.string(), model_id: z.string(), kind: z.enum(['rl', 'sft']), status: z.string(), created_at: z.string(), training_start: z.string().nullable(), training_end: z.string().nullable(), step: z.number().int().nullable(), error_message: z.string().nullable() });
type JobT = z.infer<typeof Job>;
const jobOf = (j: JobT): JobT => ({ id: j.id, model_id: j.model_id, kind: j.kind, status: j.status, created_at: j.created_at, training_start: j.training_start, training_end: j.training_end, step: j.step, error_message: j.error_message === null ? null : cutText(j.error_message, 600).text });
const jobLine = (j: JobT) => `- ${j.id}: ${j.kind} job of model ${j.model_id} · ${j.status} · step ${j.step ?? '–'} · created ${j.created_at}${j.error_message ? ` · error: ${j.error_message}` : ''}`;

export const listTrainingJobs = tool({
  name: 'list_training_jobs',
  title: 'List training jobs',
  description: 'Training jobs (SFT and RL), newest first, optionally of one model or in one status. Needs the key over HTTP.',
  budget: BUDGET,
  input: z.object({ model_id: z.string().min(1).optional(), status: z.enum(['QUEUED', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED']).optional(), limit: limit(20), after }),
  output: pageOut(Job),
  async run(args, env) {
    const p = await env.caller.call('training.listJobs', { model_id: args.model_id, status: args.status, limit: args.limit, after: args.after }, env.signal);
    return pageAnswer(p.data.map(jobOf), p.has_more, 'Training jobs:', jobLine);
  },
});

const Event = z.object({ id: z.string(), type: z.string(), created_at: z.string(), data: z.string().describe('the event\'s data as JSON (cut when long)') });
export const getTrainingJob = tool({
  name: 'get_training_job',
  title: 'Read a training job and its events',
  description: 'One training job (status, step, error) and a page of its events in order (losses, checkpoints, errors). Needs the key over HTTP.',
  budget: BUDGET,
  input: z.object({ job_id: z.string().min(1), events_after: z.string().min(1).optional().describe('next_cursor of the previous answer'), events_limit: limit(50) }),
  output: z.object({ job: Job, events: z.array(Event), next_cursor: z.string().nullable() }),
  async run(args, env) {
    const [job, events] = await Promise.all([
      env.caller.call('training.getJob', { job_id: args.job_id }, env.signal),
      env.caller.call('training.jobEvents', { job_id: args.job_id, after: args.events_after, limit: args.events_limit }, env.signal),
    ]);
    const j = jobOf(job);
    const list = events.data.map((e) => ({ id: e.id, type: e.type, created_at: e.created_at, data: cutText(JSON.stringify(e.data), 400).text }));
    const build = (k: number) => {
      const shown = list.slice(0, k);
      const next = k < list.length || events.has_more ? (shown.at(-1)?.id ?? args.events_after ?? null) : null;
      const text = `${jobLine(j).slice(2)}\nEvents:\n${shown.map((e) => `- ${e.created_at} ${e.type}: ${e.data}`).join('\n')}${next ? `\nMore: get_training_job with events_after="${next}".` : ''}`;
      return { structured: { job: j, events: shown, next_cursor: next }, text };
    };
    return build(fitCount(list.length, (k) => answerBytes(build(k)), BUDGET));
  },
});
