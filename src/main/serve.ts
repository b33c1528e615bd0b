/**
 * Headless entry: open the store, build the service context, start the loopback HTTP server that
 * serves the contract, OTLP ingest and the renderer. Used by `loupe serve`, by the Electron main
 * process (which adds IPC on top) and by every HTTP/e2e test (port 0, temp data dir).
 * Owned by the server work stream.
 */
import type { ServiceContext } from './service/context.js';

export interface StartOptions {
  dataDir: string;
  /** 0 = any free port. Default 4318 (OTLP/HTTP), falling back to a free port when taken. */
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

export async function startLoupe(opts: StartOptions): Promise<RunningLoupe> {
  void opts;
  throw new Error('startLoupe: not implemented yet');
}
