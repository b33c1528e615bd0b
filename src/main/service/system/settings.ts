/**
 * App settings (`GET/POST /app/settings`): where the data lives and a small string map the UI keeps
 * (kept as one JSON value in the settings table so no schema change is needed per setting).
 * Training settings have their own operations (training.getSettings).
 */
import type { ServiceContext } from '../context.js';
import type { AppStore } from '../../store/ports.js';
import type { SecretStore } from '../../settings/secrets.js';
import { keyFile } from '../../settings/training-key.js';
import { parseStoreSpec, redactStoreUrl } from '../../store/index.js';
import { ServiceError, errorMessage, invalid } from '../../../shared/errors.js';
import { PORT_SETTING, STORE_SETTING } from '../../../shared/settings.js';

export { PORT_SETTING, STORE_SETTING };

/**
 * The settings map is one JSON value under this key. The store URL sits in it with the password
 * masked (the map is answered to the page and sits in loupe.db); the whole URL is a secret
 * (settings/secrets.ts). Which keys may be set, and which need the key, is declared in
 * shared/settings.ts and checked by the contract.
 */
const KEY = 'app.settings';

async function readValues(ctx: Pick<ServiceContext, 'app'>): Promise<Record<string, string>> {
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
    database_file: ctx.app.file,
    trace_store: { adapter: ctx.traces.adapter, location: ctx.traces.location },
    database_bytes: (await ctx.traces.storageStats()).total_bytes,
    training_key_file: keyFile(ctx.dataDir),
    values: await readValues(ctx),
  };
}

export async function updateSettings(values: Record<string, string | null>, ctx: ServiceContext) {
  const next = await readValues(ctx);
  for (const [k, v] of Object.entries(values)) {
    if (k === STORE_SETTING) saveStoreUrl(v, next, ctx);
    else if (v === null) delete next[k];
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

/** Checks and saves (or clears: null, '' or 'sqlite') the trace store of the next start. */
function saveStoreUrl(value: string | null, next: Record<string, string>, ctx: ServiceContext): void {
  let url: string | null;
  try {
    url = value === null ? null : parseStoreSpec(value);
  } catch (err) {
    throw invalid(['values', STORE_SETTING], errorMessage(err), redactStoreUrl(value ?? ''));
  }
  if (!ctx.secrets) throw new ServiceError(500, 'no secret store to keep the store URL in');
  if (url === null) {
    delete next[STORE_SETTING];
    ctx.secrets.delete(STORE_SETTING);
    return;
  }
  ctx.secrets.set(STORE_SETTING, url);
  next[STORE_SETTING] = redactStoreUrl(url);
}

/**
 * The store URL saved in Settings, or null (the data folder's file). A URL whose password the
 * desktop app encrypted with the OS keychain cannot be read by `loupe serve`: that is an error saying
 * what to do, not a silent fall back to another store.
 */
export async function savedStoreUrl(app: AppStore, secrets: SecretStore): Promise<string | null> {
  const shown = (await readValues({ app }))[STORE_SETTING];
  if (!shown) return null;
  const full = secrets.get(STORE_SETTING);
  if (full !== null) return full;
  throw new Error(
    `the store saved in Settings (${shown}) cannot be read here: its URL was stored encrypted by the desktop app. ` +
      'Pass --store (or $LOUPE_STORE), or save it again in Settings',
  );
}
