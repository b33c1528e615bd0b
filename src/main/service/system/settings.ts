/**
 * App settings (`GET/POST /app/settings`): where the data lives and a small string map the UI keeps
 * (kept as one JSON value in the settings table so no schema change is needed per setting).
 * Training settings have their own operations (training.getSettings).
 */
import fs from 'node:fs';
import type { ServiceContext } from '../context.js';
import { keyFile } from '../../settings/training-key.js';

const KEY = 'app.settings';

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
