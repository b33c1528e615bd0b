import type { LoupeEvent } from '../shared/events';
import type { WireError } from '../shared/errors';

/** The only surface the preload exposes to the renderer (semantics §10). */
export interface LoupeBridge {
  /** `callId` (optional, unique per call) lets `cancel` name the call later. */
  call(operation: string, input: unknown, callId?: string): Promise<{ ok: true; result: unknown } | { ok: false; error: WireError }>;
  /** The answer of call `callId` is no longer needed: the main process stops its reads. */
  cancel(callId: string): void;
  onEvent(listener: (event: LoupeEvent) => void): () => void;
}

declare global {
  interface Window {
    api?: LoupeBridge;
  }
}
