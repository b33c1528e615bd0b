import type { Handlers } from '../handler-types.js';
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
  'system.spoolDrained': async (input, ctx) => ({ drained: ctx.spool ? await ctx.spool.drained(input.timeout_ms) : true, spooled: ctx.spool?.status() ?? null }),
  'system.checkIntegrity': async (input, ctx) => ({ ...(await runIntegrityCheck(ctx, { full: input.full })), read_only: !!ctx.health?.readOnlyReason }),
  'system.projects': async (_input, ctx, call) => ({ projects: await ctx.traces.projects(call) }),
  'system.import': (input, ctx) => runImport(input, ctx),
  'system.export': (input, ctx, call) => exportSelection(input, ctx, call),
  'system.getSettings': (_input, ctx) => settingsView(ctx),
  'system.setSettings': (input, ctx) => updateSettings(input.values, ctx),
  'system.loadDemo': (input, ctx) => loadDemo(ctx, { seed: input.seed, projectId: input.project_id, events: ctx.events }),
} satisfies Partial<Handlers>;
