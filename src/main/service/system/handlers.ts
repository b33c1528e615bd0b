import type { Handlers } from '../handlers.js';
import { isoFromNs } from '../../domain/time.js';

/** Handlers of the app-level operations (contract/system.ts). */
export const systemHandlers = {
  'system.projects': (_input, ctx) => ({
    projects: ctx.store.meta.listProjects().map((p) => ({
      project_id: p.project_id,
      span_count: p.span_count,
      last_activity: p.last_start_ns == null ? null : isoFromNs(p.last_start_ns),
    })),
  }),
} satisfies Partial<Handlers>;
