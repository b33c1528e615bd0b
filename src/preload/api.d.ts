import type { LoupeEvent } from '../shared/events';
import type { WireError } from '../shared/errors';

/** The only surface the preload exposes to the renderer (semantics §10). */
export interface LoupeBridge {
  call(operation: string, input: unknown): Promise<{ ok: true; result: unknown } | { ok: false; error: WireError }>;
  onEvent(listener: (event: LoupeEvent) => void): () => void;
}

declare global {
  interface Window {
    api?: LoupeBridge;
  }
}
