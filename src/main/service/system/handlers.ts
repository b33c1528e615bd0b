import type { Handlers } from '../handlers.js';
import { isoFromNs } from '../../domain/time.js';
import { loadDemo } from '../../demo/load.js';
import { runImport } from './import.js';
import { exportSelection } from './export.js';
import { settingsView, updateSettings } from './settings.js';
import { runIntegrityCheck } from './integrity.js';
import { healthView } from './store-health.js';

/** Handlers of the app-level operations (contract/system.ts). */
export const systemHandlers = {
  'system.health': (_input, ctx) => healthView(ctx),
  'system.checkIntegrity': async (input, ctx) => ({ ...(await runIntegrityCheck(ctx, { full: input.full })), read_only: !!ctx.health?.readOnlyReason }),
  'system.projects': (_input, ctx) => ({
    projects: ctx.store.meta.listProjects().map((p) => ({
      project_id: p.project_id,
      span_count: p.span_count,
      last_activity: p.last_start_ns == null ? null : isoFromNs(p.last_start_ns),
    })),
  }),
  'system.import': (input, ctx) => runImport(input, ctx),
  'system.export': (input, ctx) => exportSelection(input, ctx),
  'system.getSettings': (_input, ctx) => settingsView(ctx),
  'system.setSettings': (input, ctx) => updateSettings(input.values, ctx),
  'system.loadDemo': (input, ctx) => loadDemo(ctx.store, { seed: input.seed, projectId: input.project_id, events: ctx.events }),
} satisfies Partial<Handlers>;
