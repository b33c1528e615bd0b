import type { AppStore, TraceStore } from '../store/ports.js';
import type { EventBus } from './events.js';

/**
 * Members a service module adds to the context (TypeScript declaration merging), so this file need
 * not import the modules that import it: training/runtime.ts adds `training`.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface ServiceExtensions {}

/**
 * What every handler receives. Handlers are plain functions over this context; they know nothing
 * of HTTP or IPC. Long-lived runtimes (the training job runner) hang off it too.
 */
export interface ServiceContext extends ServiceExtensions {
  /** Everything recorded about spans (store/ports.ts). */
  traces: TraceStore;
  /** Feedback, settings, training records (store/ports.ts). */
  app: AppStore;
  events: EventBus;
  /** Data directory: database, training key, checkpoints, datasets. */
  dataDir: string;
  /** The local training API key (semantics §9.1). */
  apiKey: string;
  /** Read-only mode, disk space and failed writes (system/store-health.ts); set by startLoupe. */
  health?: import('./system/store-health.js').StoreHealth;
  /** One-time login codes for the served page (settings/login-codes.ts); set by startLoupe. */
  login?: import('../settings/login-codes.js').LoginCodes;
  /** Secrets of the settings, kept out of the database (settings/secrets.ts); set by startLoupe. */
  secrets?: import('../settings/secrets.js').SecretStore;
  /** Large OTLP bodies kept on disk until imported (ingest/spool.ts); set by startLoupe unless turned off. */
  spool?: import('./ingest/spool.js').Spool;
  /** This server's loopback URL once it listens. */
  baseUrl?: string;
}
