/**
 * The page's credential when served by `loupe serve` (the Electron window needs none: IPC is the
 * app's own door). The server never hands the key to a plain request — any local process could make
 * one — so the page signs in once with the one-time code of the link `loupe serve` printed
 * (`?login=CODE`, exchanged at POST /app/session), keeps the key in this origin's localStorage and
 * removes the code from the address bar. See docs/security.md.
 * Whether the page is signed in, and why not, is kept here too (issue 22.8): a bare URL, a link used
 * twice or a key the server no longer knows each leave the page signed out, and the shell says how to
 * sign in (shell/SignInNote.tsx) instead of a bare "Missing or invalid API key".
 */
import { useSyncExternalStore } from 'react';

const STORAGE_KEY = 'loupe.key';

/** Not signed in: no key yet (bare URL), the link's code was refused (used or expired), or the stored key was refused. */
export type SignIn = 'pending' | 'signed-in' | 'no-key' | 'link-refused' | 'key-refused';

let keyPromise: Promise<string> | null = null;
let state: SignIn = 'pending';
const listeners = new Set<() => void>();

function setState(next: SignIn): void {
  if (state === next) return;
  state = next;
  for (const l of listeners) l();
}

/** The API key of this server, or '' when the page has not signed in (keyed features then say so). */
export function localKey(): Promise<string> {
  keyPromise ??= signIn();
  return keyPromise;
}

async function signIn(): Promise<string> {
  const url = new URL(window.location.href);
  const code = url.searchParams.get('login');
  let refused = false;
  if (code) {
    url.searchParams.delete('login');
    window.history.replaceState(window.history.state, '', url.toString());
    try {
      const res = await fetch('/app/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code }) });
      if (res.ok) {
        const { key } = (await res.json()) as { key: string };
        window.localStorage.setItem(STORAGE_KEY, key);
        setState('signed-in');
        return key;
      }
      refused = true;
    } catch {
      // Offline: fall back to a key stored earlier.
    }
  }
  const stored = window.localStorage.getItem(STORAGE_KEY) ?? '';
  setState(stored ? 'signed-in' : refused ? 'link-refused' : 'no-key');
  return stored;
}

/** Forgets a key the server refused (a new data folder, a rotated key): the next login link signs in again. */
export function forgetKey(): void {
  window.localStorage.removeItem(STORAGE_KEY);
  keyPromise = Promise.resolve('');
  setState('key-refused');
}

/** Authorization header for keyed requests (empty when not signed in). */
export async function authHeaders(): Promise<Record<string, string>> {
  const key = await localKey();
  return key ? { authorization: `Bearer ${key}` } : {};
}

/** How to sign in, for messages where a keyed feature was refused. */
export const SIGN_IN_HOW =
  'Run `loupe url` in a terminal (with the same --data-dir) and open the link it prints, or open the sign-in link `loupe serve` printed when it started; each link works once, within 10 minutes.';

/** The page's sign-in state (always 'signed-in' in the Electron window). */
export function useSignIn(): SignIn {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => (window.api ? 'signed-in' : state),
  );
}
