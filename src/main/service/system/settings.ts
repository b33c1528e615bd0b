/**
 * App settings (`GET/POST /app/settings`): where the data lives and a small string map the UI keeps
 * (kept as one JSON value in the settings table so no schema change is needed per setting).
 * Training settings have their own operations (training.getSettings).
 */
import fs from 'node:fs';
import type { ServiceContext } from '../context.js';
import { keyFile } from '../../settings/training-key.js';

const KEY = 'app.settings';
/** The port Settings saves; read by startLoupe when no --port / LOUPE_PORT was given. */
export const PORT_SETTING = 'server.port';

function readValues(ctx: ServiceContext): Record<string, string> {
  try {
    return JSON.parse(ctx.store.meta.getSetting(KEY) ?? '{}') as Record<string, string>;
  } catch {
    return {};
  }
}

const size = (f: string) => fs.statSync(f, { throwIfNoEntry: false })?.size ?? 0;

export function settingsView(ctx: ServiceContext) {
  return {
    data_dir: ctx.dataDir,
    database_file: ctx.store.file,
    database_bytes: size(ctx.store.file) + size(`${ctx.store.file}-wal`),
    training_key_file: keyFile(ctx.dataDir),
    values: readValues(ctx),
  };
}

export function updateSettings(values: Record<string, string | null>, ctx: ServiceContext) {
  const next = readValues(ctx);
  for (const [k, v] of Object.entries(values)) {
    if (v === null) delete next[k];
    else next[k] = v;
  }
  ctx.store.meta.setSetting(KEY, JSON.stringify(next));
  return settingsView(ctx);
}

/**
 * The preferred port saved in Settings, or null when none is set. A value that is not a port
 * (set through the API by hand) is reported through `warn` and ignored rather than failing startup.
 */
export function preferredPort(ctx: ServiceContext, warn?: (line: string) => void): number | null {
  const raw = readValues(ctx)[PORT_SETTING];
  if (raw === undefined || raw.trim() === '') return null;
  const port = Number(raw);
  if (/^\d+$/.test(raw.trim()) && port >= 1 && port <= 65535) return port;
  warn?.(`setting ${PORT_SETTING} = "${raw}" is not a port (1-65535); ignoring it`);
  return null;
}
