/**
 * App settings (`GET/POST /app/settings`): where the data lives and a small string map the UI keeps
 * (kept as one JSON value in the settings table so no schema change is needed per setting).
 * Training settings have their own operations (training.getSettings).
 */
import type { ServiceContext } from '../context.js';
import { keyFile } from '../../settings/training-key.js';

const KEY = 'app.settings';
/** The port Settings saves; read by startLoupe when no --port / LOUPE_PORT was given. */
export const PORT_SETTING = 'server.port';

async function readValues(ctx: ServiceContext): Promise<Record<string, string>> {
  const text = await ctx.app.settings.get(KEY);
  try {
    return JSON.parse(text ?? '{}') as Record<string, string>;
  } catch {
    return {};
  }
}

export async function settingsView(ctx: ServiceContext) {
  return {
    data_dir: ctx.dataDir,
    database_file: ctx.traces.location,
    database_bytes: (await ctx.traces.storageStats()).total_bytes,
    training_key_file: keyFile(ctx.dataDir),
    values: await readValues(ctx),
  };
}

export async function updateSettings(values: Record<string, string | null>, ctx: ServiceContext) {
  const next = await readValues(ctx);
  for (const [k, v] of Object.entries(values)) {
    if (v === null) delete next[k];
    else next[k] = v;
  }
  await ctx.app.settings.set({ [KEY]: JSON.stringify(next) });
  return settingsView(ctx);
}

/**
 * The preferred port saved in Settings, or null when none is set. A value that is not a port
 * (set through the API by hand) is reported through `warn` and ignored rather than failing startup.
 */
export async function preferredPort(ctx: ServiceContext, warn?: (line: string) => void): Promise<number | null> {
  const raw = (await readValues(ctx))[PORT_SETTING];
  if (raw === undefined || raw.trim() === '') return null;
  const port = Number(raw);
  if (/^\d+$/.test(raw.trim()) && port >= 1 && port <= 65535) return port;
  warn?.(`setting ${PORT_SETTING} = "${raw}" is not a port (1-65535); ignoring it`);
  return null;
}
