/**
 * Headless entry: open the store, build the service context, start the loopback HTTP server that
 * serves the contract, OTLP ingest and the renderer. Used by `loupe serve`, by the Electron main
 * process (which adds IPC on top) and by every HTTP/e2e test (port 0, temp data dir).
 */
import { databaseFile, LOCAL_STORE, openStores, type StoreOptions, type Stores } from './store/index.js';
import type { AppStore } from './store/ports.js';
import { EventBus } from './service/events.js';
import type { ServiceContext } from './service/context.js';
import { startTrainingRuntime } from './service/training/runtime.js';
import { startReplays } from './service/replay/handlers.js';
import { startAutoScoring } from './service/evals/auto.js';
import { ensureTrainingKey } from './settings/training-key.js';
import { appInfo, defaultRendererDir } from './settings/app-root.js';
import { buildHttpServer } from './transport/http.js';
import { preferredPort, savedStoreUrl } from './service/system/settings.js';
import { watchExternalWrites } from './service/system/external-writes.js';
import { acquireDataLock } from './settings/data-lock.js';
import { LoginCodes, loginUrl } from './settings/login-codes.js';
import { openSecretStore, type Encrypter, type SecretStore } from './settings/secrets.js';
import { securePrivateFiles } from './settings/private-files.js';
import { keepReserve, releaseReserve } from './settings/disk-reserve.js';
import { StoreHealth } from './service/system/store-health.js';
import { classifyStoreFailure } from './store/failures.js';
import { runIntegrityCheck } from './service/system/integrity.js';
import { errorMessage } from '../shared/errors.js';
import { Spool, spoolConfigFromEnv, type SpoolConfig } from './service/ingest/spool.js';
import { logJoiner } from './service/ingest/log-join.js';

export interface StartOptions {
  dataDir: string;
  /**
   * 0 = any free port. When absent: the `server.port` setting saved in Settings, else 4318
   * (OTLP/HTTP); either way falling back to a free port when taken.
   */
  port?: number;
  /** Directory of the built renderer to serve at '/'; default out/renderer when present. */
  rendererDir?: string | null;
  /** Path of an Electron build of better-sqlite3 (see store/sqlite/open.ts). */
  nativeBinding?: string;
  /** Read worker threads of the SQLite store (default: $LOUPE_READ_WORKERS, else 2; decision 0018). */
  readers?: number;
  log?: (line: string) => void;
  /** What holds the data folder, as a second instance is told ("loupe serve", "Loupe desktop app"). */
  what?: string;
  /**
   * The trace store: a clickhouse:// URL, or 'sqlite' for the data folder's file. Absent: the store
   * saved in Settings (store.url), else the data folder's file. Feedback, settings and training stay
   * in the data folder either way (decision 0015).
   */
  store?: string;
  /** Electron's safeStorage in the desktop app: secrets of the settings are then encrypted with the OS keychain. */
  encrypter?: Encrypter;
  /** The OTLP spool (service/ingest/spool.ts): over $LOUPE_SPOOL_*, null = off (every body stored before it is answered). */
  spool?: Partial<SpoolConfig> | null;
}

export interface RunningLoupe {
  url: string;
  /** A one-time link that signs the browser page in (settings/login-codes.ts). */
  loginUrl: string;
  port: number;
  ctx: ServiceContext;
  close(): Promise<void>;
}

export const DEFAULT_PORT = 4318;

/**
 * The server's wait for another writer's lock (a CLI import on the same folder). Its own write
 * transactions are short, so a CLI import waits for them (5 s); the server does not wait long for a
 * CLI import's: past this it answers 503 + Retry-After: 1 (OTLP exporters retry) — issue 13.6 measured
 * lock waits of 4.9 s, during which better-sqlite3 held the server thread. The wait now happens on the
 * store's writer thread (decision 0016), but every write of the server, app records included, queues
 * behind it, so it stays short.
 */
export const SERVER_BUSY_TIMEOUT_MS = 200;

export async function startLoupe(opts: StartOptions): Promise<RunningLoupe> {
  for (const warning of securePrivateFiles(opts.dataDir)) opts.log?.(warning);
  // One running Loupe per data folder (issue 13.1): throws DataDirInUseError naming the holder.
  const lock = acquireDataLock(opts.dataDir, { what: opts.what ?? 'loupe serve', nativeBinding: opts.nativeBinding });
  let store: Stores;
  const health = new StoreHealth(opts.dataDir);
  const secrets = openSecretStore(opts.dataDir, opts.encrypter);
  let apiKey: string;
  try {
    apiKey = ensureTrainingKey(opts.dataDir);
    store = await openCheckedStore(opts, health, secrets);
  } catch (err) {
    lock.release();
    throw err;
  }
  if (store.traces.adapter !== 'sqlite') opts.log?.(`spans in ${store.traces.location}; feedback, settings and training in ${store.app.file}`);
  const ctx: ServiceContext = { traces: store.traces, app: store.app, events: new EventBus(), dataDir: opts.dataDir, apiKey, health, login: new LoginCodes(), secrets };
  try {
    ctx.training = await startTrainingRuntime(ctx);
    startReplays(ctx);
    const spoolConfig = opts.spool === null ? null : spoolConfigFromEnv();
    if (spoolConfig) {
      // Bodies a previous run acknowledged and did not import are drained from here on.
      ctx.spool = new Spool(opts.dataDir, ctx.traces, { ...spoolConfig, ...opts.spool }, { events: ctx.events, afterImport: () => logJoiner(ctx).retryPending() }).start();
    }
    const rendererDir = opts.rendererDir === undefined ? defaultRendererDir() : opts.rendererDir;
    const http = buildHttpServer(ctx, { rendererDir, version: appInfo().version, log: opts.log });
    const port = await http.listen(opts.port ?? (await preferredPort(ctx, opts.log)) ?? DEFAULT_PORT);
    ctx.baseUrl = `http://127.0.0.1:${port}`;
    lock.setUrl(ctx.baseUrl);
    const stopWatching = watchExternalWrites(ctx);
    // Failure signatures and `auto` scorers on new turns (issue 20).
    const stopScoring = startAutoScoring(ctx);
    const disk = health.disk();
    // A nearly full disk (23.3): Loupe starts and reads; writes answer 503 until there is room again.
    if (disk?.low && !health.readOnlyReason) opts.log?.(`the disk holding ${opts.dataDir} has ${Math.round(disk.free_bytes / 1024 / 1024)} MiB free: reads work, writes answer 503 until space is freed`);
    // Room for the next start on a full disk (settings/disk-reserve.ts).
    if (!health.readOnlyReason) keepReserve(opts.dataDir, opts.log);
    const checked = health.readOnlyReason ? Promise.resolve() : runIntegrityCheck(ctx, { full: false, log: opts.log });
    let closing: Promise<void> | null = null;
    return {
      url: ctx.baseUrl,
      loginUrl: loginUrl(ctx.baseUrl, ctx.login!.issue()),
      port,
      ctx,
      close: () =>
        (closing ??= (async () => {
          stopWatching();
          await stopScoring();
          await http.app.close();
          await ctx.spool?.close();
          await ctx.replays?.close();
          await ctx.training?.close();
          await checked.catch(() => undefined);
          await store.close();
          health.close();
          lock.release();
        })()),
    };
  } catch (err) {
    await ctx.spool?.close();
    await ctx.replays?.close();
    await ctx.training?.close();
    await store.close();
    lock.release();
    throw err;
  }
}

/**
 * Opens the store; a file SQLite calls damaged while migrating is opened read-only instead (issue
 * 13.10), so what can still be read can be exported. A file that cannot be opened at all is an error
 * that says what to do.
 */
/** Read workers: the option, else $LOUPE_READ_WORKERS (0–16), else the store's default. */
function readWorkers(opts: StartOptions): number | undefined {
  if (opts.readers !== undefined) return opts.readers;
  const env = process.env.LOUPE_READ_WORKERS;
  if (env === undefined || env === '') return undefined;
  const n = Number(env);
  if (!Number.isInteger(n) || n < 0 || n > 16) throw new Error(`LOUPE_READ_WORKERS: "${env}" is not a number of read worker threads (0-16)`);
  return n;
}

async function openCheckedStore(opts: StartOptions, health: StoreHealth, secrets: SecretStore): Promise<Stores> {
  const { traceStore, explain } = chosenTraceStore(opts.store, secrets);
  try {
    return await openStores(opts.dataDir, { nativeBinding: opts.nativeBinding, busyTimeoutMs: SERVER_BUSY_TIMEOUT_MS, readers: readWorkers(opts), traceStore });
  } catch (e) {
    const err = explain(e);
    const kind = classifyStoreFailure(err);
    if (kind === 'full') return openOnFullDisk(opts, health, traceStore);
    if (kind !== 'damaged') throw err;
    const reason = `the database file is damaged (${errorMessage(err)})`;
    try {
      const store = await openStores(opts.dataDir, { nativeBinding: opts.nativeBinding, readonly: true, readers: readWorkers(opts), traceStore });
      health.readOnlyReason = reason;
      opts.log?.(`${reason}: Loupe runs READ-ONLY; export what you need, then move ${databaseFile(opts.dataDir)} aside to start afresh`);
      return store;
    } catch {
      throw new Error(`${reason} and cannot be opened: move it aside (a new empty store is created) or restore a backup`);
    }
  }
}

/**
 * A store that could not be opened for lack of space (SQLite's shared-memory index could not be
 * created, or a migration ran out of room): read-only on the reserve the folder kept for this
 * (settings/disk-reserve.ts), or an error naming the folder and the free space. Nothing is written.
 */
async function openOnFullDisk(opts: StartOptions, health: StoreHealth, traceStore: StoreOptions['traceStore']): Promise<Stores> {
  const free = () => `${health.disk()?.free_bytes ?? 'unknown'} bytes free`;
  const reason = `the disk holding ${opts.dataDir} is full (${free()})`;
  const released = releaseReserve(opts.dataDir);
  try {
    const store = await openStores(opts.dataDir, { nativeBinding: opts.nativeBinding, readonly: true, readers: readWorkers(opts), traceStore });
    health.readOnlyReason = `${reason}: free some space and restart Loupe to write again`;
    opts.log?.(`${reason}: Loupe runs READ-ONLY${released ? ` on the ${released / 1024} KiB it kept in reserve` : ''}; free some space and restart it to write again`);
    return store;
  } catch (e) {
    throw new Error(`Loupe cannot start on ${opts.dataDir}: the disk is full (${free()}; SQLite needs room for its 32 KiB shared-memory index: ${errorMessage(e)}); free some space and start again`, { cause: e });
  }
}

/**
 * The trace store to open: the one asked for (--store, $LOUPE_STORE), else the one saved in Settings.
 * `explain` adds the way out to an error opening a saved store (its user may not remember saving it).
 */
export function chosenTraceStore(asked: string | undefined, secrets: SecretStore): { traceStore: StoreOptions['traceStore']; explain(err: unknown): unknown } {
  if (asked !== undefined) return { traceStore: asked, explain: (err) => err };
  let saved: string | null = null;
  return {
    traceStore: async (app: AppStore) => (saved = await savedStoreUrl(app, secrets)),
    explain: (err) =>
      saved === null ? err : new Error(`${errorMessage(err)} (the store saved in Settings; \`--store ${LOCAL_STORE}\` starts on the data folder's file instead)`),
  };
}
