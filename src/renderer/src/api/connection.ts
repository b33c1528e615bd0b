/**
 * Whether the Loupe server answers (browser against `loupe serve`; IPC in Electron never goes away).
 *
 * A request that cannot reach the server (fetch rejects: connection refused, server stopped) marks the
 * app offline: react-query's onlineManager is set offline, so queries keep the data they have and
 * pause their retries instead of failing, and the shell shows one banner. A probe then asks the server
 * every second; when it answers, the app is online again, paused queries resume and every query is
 * refetched (push events sent while the server was away were missed). No page shows the browser's
 * own "Failed to fetch": the client throws `unreachableError()` instead.
 */
import { onlineManager } from '@tanstack/react-query';
import { useSyncExternalStore } from 'react';
import { ServiceError } from '../../../shared/errors';

/** Status used on errors that mean "no answer at all" (not an HTTP status). */
export const UNREACHABLE = 0;
export const UNREACHABLE_MESSAGE = 'The Loupe server is not reachable';

export const unreachableError = () => new ServiceError(UNREACHABLE, UNREACHABLE_MESSAGE);
export const isUnreachable = (e: unknown): boolean => e instanceof ServiceError && e.status === UNREACHABLE;

const PROBE_MS = 1000;
let offline = false;
let probe: ReturnType<typeof setTimeout> | null = null;
const listeners = new Set<() => void>();
const onlineHooks = new Set<() => void>();

// The browser's own online/offline events say nothing about a loopback server: only our probe decides.
onlineManager.setEventListener(() => () => {});

function set(next: boolean): void {
  if (offline === next) return;
  offline = next;
  onlineManager.setOnline(!next);
  for (const l of listeners) l();
  if (!next) for (const h of onlineHooks) h();
}

/** Called by the client when a request got no answer; starts probing. */
export function reportUnreachable(): void {
  set(true);
  probe ??= setTimeout(runProbe, PROBE_MS);
}

/** Called when any answer arrives (a request, the event stream opening). */
export function reportReachable(): void {
  set(false);
}

async function runProbe(): Promise<void> {
  try {
    // Any HTTP answer means the server is up; only a rejected fetch means it is not.
    await fetch('/v1/health', { cache: 'no-store' });
    probe = null;
    set(false);
  } catch {
    probe = setTimeout(runProbe, PROBE_MS);
  }
}

/** Runs `hook` each time the server comes back (used to refetch everything). */
export function onReconnect(hook: () => void): () => void {
  onlineHooks.add(hook);
  return () => onlineHooks.delete(hook);
}

export function isOffline(): boolean {
  return offline;
}

export function useOffline(): boolean {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => offline,
  );
}
