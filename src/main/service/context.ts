import type { AppStore, TraceStore } from '../store/ports.js';
import type { EventBus } from './events.js';

/**
 * What every handler receives. Handlers are plain functions over this context; they know nothing
 * of HTTP or IPC. Long-lived runtimes (the training job runner) hang off it too.
 */
export interface ServiceContext {
  /** Everything recorded about spans (store/ports.ts). */
  traces: TraceStore;
  /** Feedback, settings, training records (store/ports.ts). */
  app: AppStore;
  events: EventBus;
  /** Data directory: database, training key, checkpoints, datasets. */
  dataDir: string;
  /** The local training API key (semantics §9.1). */
  apiKey: string;
  /** Training runtime (job runner, trainer worker); set by createService. */
  training?: import('./training/runtime.js').TrainingRuntime;
  /** Read-only mode, disk space and failed writes (system/store-health.ts); set by startLoupe. */
  health?: import('./system/store-health.js').StoreHealth;
  /** One-time login codes for the served page (settings/login-codes.ts); set by startLoupe. */
  login?: import('../settings/login-codes.js').LoginCodes;
  /** Secrets of the settings, kept out of the database (settings/secrets.ts); set by startLoupe. */
  secrets?: import('../settings/secrets.js').SecretStore;
  /** This server's loopback URL once it listens. */
  baseUrl?: string;
}
