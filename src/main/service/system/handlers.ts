import type { Handlers } from '../handlers.js';
import { isoFromNs } from '../../domain/time.js';
import { loadDemo } from '../../demo/load.js';
import { runImport } from './import.js';
import { exportSelection } from './export.js';
import { settingsView, updateSettings } from './settings.js';
import { runIntegrityCheck } from './integrity.js';
import { eventsTicket, loginUrl } from '../../settings/login-codes.js';
import { unauthorized, unavailable } from '../../../shared/errors.js';
import { healthView } from './store-health.js';

/** Handlers of the app-level operations (contract/system.ts). */
export const systemHandlers = {
  'system.session': (input, ctx) => {
    if (!ctx.login?.redeem(input.code)) throw unauthorized('This login link was used already or has expired: run `loupe url` for a fresh one');
    return { key: ctx.apiKey };
  },
  'system.eventsTicket': (_input, ctx) => ({ ticket: eventsTicket(ctx.apiKey) }),
  'system.loginLink': (_input, ctx) => {
    if (!ctx.login || !ctx.baseUrl) throw unavailable('This Loupe serves no pages');
    return { url: loginUrl(ctx.baseUrl, ctx.login.issue()) };
  },
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
