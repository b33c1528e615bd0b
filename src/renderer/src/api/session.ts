/**
 * The page's credential when served by `loupe serve` (the Electron window needs none: IPC is the
 * app's own door). The server never hands the key to a plain request — any local process could make
 * one — so the page signs in once with the one-time code of the link `loupe serve` printed
 * (`?login=CODE`, exchanged at POST /app/session), keeps the key in this origin's localStorage and
 * removes the code from the address bar. See docs/security.md.
 */
const STORAGE_KEY = 'loupe.key';

let keyPromise: Promise<string> | null = null;

/** The API key of this server, or '' when the page has not signed in (keyed features then say so). */
export function localKey(): Promise<string> {
  keyPromise ??= signIn();
  return keyPromise;
}

async function signIn(): Promise<string> {
  const url = new URL(window.location.href);
  const code = url.searchParams.get('login');
  if (code) {
    url.searchParams.delete('login');
    window.history.replaceState(window.history.state, '', url.toString());
    try {
      const res = await fetch('/app/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code }) });
      if (res.ok) {
        const { key } = (await res.json()) as { key: string };
        window.localStorage.setItem(STORAGE_KEY, key);
        return key;
      }
    } catch {
      // Offline: fall back to a key stored earlier.
    }
  }
  return window.localStorage.getItem(STORAGE_KEY) ?? '';
}

/** Forgets a key the server refused (a new data folder, a rotated key): the next login link signs in again. */
export function forgetKey(): void {
  window.localStorage.removeItem(STORAGE_KEY);
  keyPromise = Promise.resolve('');
}

/** Authorization header for keyed requests (empty when not signed in). */
export async function authHeaders(): Promise<Record<string, string>> {
  const key = await localKey();
  return key ? { authorization: `Bearer ${key}` } : {};
}
