import { EventEmitter } from 'node:events';
import type { LoupeEvent } from '../../shared/events.js';

/** In-process fan-out of LoupeEvents to the IPC bridge, the /events SSE stream and tests. */
export class EventBus {
  private readonly emitter = new EventEmitter();
  constructor() {
    this.emitter.setMaxListeners(0);
  }
  emit(event: LoupeEvent): void {
    this.emitter.emit('event', event);
  }
  on(listener: (event: LoupeEvent) => void): () => void {
    this.emitter.on('event', listener);
    return () => this.emitter.off('event', listener);
  }
}
