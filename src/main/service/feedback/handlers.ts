import type { Handlers } from '../handler-types.js';
import { invalid, notFound } from '../../../shared/errors.js';
import { parseSvcRefs } from '../../domain/refs.js';

/** Handlers of the feedback operations (contract/feedback.ts, semantics §8). */
export const feedbackHandlers = {
  'feedback.create': async (input, ctx) => {
    const readings = parseSvcRefs(input.svc_ref);
    // A project named like `acme/trace` makes the ref read more than one way: the project that exists wins.
    const known = readings.length > 1 ? new Set((await ctx.traces.projects()).map((p) => p.project_id)) : null;
    const target = readings.find((r) => known?.has(r.project_id)) ?? readings[0];
    if (!target) throw invalid('svc_ref', "svc_ref must look like 'svc:///<project_id>/<conversation|trace|span>/<id>'", input.svc_ref);
    const { svc_ref: _ref, ...rest } = input;
    const record = await ctx.app.feedback.insert({ ...rest, project_id: target.project_id, target_kind: target.kind, target_id: target.id });
    ctx.events.emit({ type: 'data.changed', project_id: target.project_id, tables: ['feedback'] });
    return record;
  },
  'feedback.update': async (input, ctx) => {
    const { project_id, id, ...patch } = input;
    const record = await ctx.app.feedback.update(project_id, id, patch);
    if (!record) throw notFound(`project '${project_id}' has no feedback record '${id}'`);
    ctx.events.emit({ type: 'data.changed', project_id, tables: ['feedback'] });
    return record;
  },
  'feedback.delete': async (input, ctx) => {
    if (!(await ctx.app.feedback.remove(input.project_id, input.id))) throw notFound(`project '${input.project_id}' has no feedback record '${input.id}'`);
    ctx.events.emit({ type: 'data.changed', project_id: input.project_id, tables: ['feedback'] });
    return { deleted: true as const };
  },
  'feedback.query': (input, ctx) => {
    let target = null;
    if (input.svc_ref != null) {
      target = parseSvcRefs(input.svc_ref).find((r) => r.project_id === input.project_id) ?? null;
      if (!target) {
        throw invalid('svc_ref', `svc_ref must address project '${input.project_id}'`, input.svc_ref);
      }
    }
    return ctx.app.feedback.query({
      project_id: input.project_id,
      target_kind: target?.kind ?? null,
      target_id: target?.id ?? null,
      feedback_type: input.feedback_type ?? null,
      limit: input.limit,
      offset: input.offset,
    });
  },
} satisfies Partial<Handlers>;
