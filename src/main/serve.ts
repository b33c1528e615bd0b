/**
 * Headless entry: open the store, build the service context, start the loopback HTTP server that
 * serves the contract, OTLP ingest and the renderer. Used by `loupe serve`, by the Electron main
 * process (which adds IPC on top) and by every HTTP/e2e test (port 0, temp data dir).
 */
import { openStore } from './store/index.js';
import { EventBus } from './service/events.js';
import type { ServiceContext } from './service/context.js';
import { startTrainingRuntime } from './service/training/runtime.js';
import { ensureTrainingKey } from './settings/training-key.js';
import { appInfo, defaultRendererDir } from './settings/app-root.js';
import { buildHttpServer } from './transport/http.js';
import { preferredPort } from './service/system/settings.js';
import { watchExternalWrites } from './service/system/external-writes.js';

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
  log?: (line: string) => void;
}

export interface RunningLoupe {
  url: string;
  port: number;
  ctx: ServiceContext;
  close(): Promise<void>;
}

export const DEFAULT_PORT = 4318;

export async function startLoupe(opts: StartOptions): Promise<RunningLoupe> {
  const apiKey = ensureTrainingKey(opts.dataDir);
  const store = openStore(opts.dataDir, { nativeBinding: opts.nativeBinding });
  const ctx: ServiceContext = { store, app: store.app, events: new EventBus(), dataDir: opts.dataDir, apiKey };
  try {
    ctx.training = await startTrainingRuntime(ctx);
    const rendererDir = opts.rendererDir === undefined ? defaultRendererDir() : opts.rendererDir;
    const http = buildHttpServer(ctx, { rendererDir, version: appInfo().version, log: opts.log });
    const port = await http.listen(opts.port ?? (await preferredPort(ctx, opts.log)) ?? DEFAULT_PORT);
    const stopWatching = watchExternalWrites(ctx);
    let closing: Promise<void> | null = null;
    return {
      url: `http://127.0.0.1:${port}`,
      port,
      ctx,
      close: () =>
        (closing ??= (async () => {
          stopWatching();
          await http.app.close();
          await ctx.training?.close();
          store.close();
        })()),
    };
  } catch (err) {
    await ctx.training?.close();
    store.close();
    throw err;
  }
}
