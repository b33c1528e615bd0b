/**
 * One push-event subscription shared by every listener (one EventSource over HTTP, one IPC listener
 * in Electron), opened on first use. `data.changed` also drives live refresh (api/query.ts).
 */
import { useEffect } from 'react';
import { useLatest } from '../hooks/latest';
import type { LoupeEvent } from '../../../shared/events';
import { onEvent } from './client';
import { handleEvent, refetchEverything } from './query';

const listeners = new Set<(e: LoupeEvent) => void>();
let unsubscribe: (() => void) | null = null;

function ensureSubscribed(): void {
  if (unsubscribe) return;
  unsubscribe = onEvent((e) => {
    handleEvent(e);
    for (const l of listeners) l(e);
  }, refetchEverything);
}

export function subscribe(listener: (e: LoupeEvent) => void): () => void {
  ensureSubscribed();
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Mount once at the top of the app so live refresh runs even when no page listens. */
export function useLiveRefresh(): void {
  useEffect(() => subscribe(() => {}), []);
}

/** Calls `listener` for each push event while the component is mounted (latest closure, one subscription). */
export function useEvents(listener: (e: LoupeEvent) => void): void {
  const ref = useLatest(listener);
  useEffect(() => subscribe((e) => ref.current(e)), [ref]);
}
