/**
 * The CLI's calls to the Loupe serving a data folder (issue 23.5): every failure said in words. After
 * a crash the folder's holder file still names the dead server's URL, and a bare fetch said only
 * "fetch failed"; now the user reads "no Loupe is running on this data folder …" (nothing answers at
 * the address the lock file names, and whether that process is gone) or "the Loupe at … answered
 * <status>: <its detail>".
 */
import os from 'node:os';
import { readHolder, type LockHolder } from './data-lock.js';

/** How long the CLI waits for the running Loupe's answer. */
const ANSWER_MS = 10_000;

/** Whether the holder's process still exists (same machine only; null = cannot tell). */
function alive(holder: LockHolder): boolean | null {
  if (holder.host !== os.hostname()) return null;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Why a fetch got no answer, in words ("connection refused", "no answer within 10 s"). */
function noAnswer(err: unknown): string {
  const e = err as { name?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError') return `no answer within ${ANSWER_MS / 1000} s`;
  const code = e.cause?.code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET') return 'the connection was reset';
  return e.cause?.message ?? (err instanceof Error ? err.message : String(err));
}

/**
 * Calls `path` on the Loupe serving `dataDir` with the folder's key and resolves with its JSON.
 * `what` names the request in messages ("a login link").
 */
export async function callRunningLoupe<T>(dataDir: string, key: string, what: string, path: string, body: unknown = {}): Promise<T> {
  const start = `start one with: loupe serve --data-dir ${dataDir}`;
  const holder = readHolder(dataDir);
  if (!holder?.url) throw new Error(`no Loupe is running on this data folder (${dataDir}): ${start}`);
  let res: Response;
  try {
    res = await fetch(`${holder.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(ANSWER_MS),
    });
  } catch (err) {
    const why = noAnswer(err);
    const who = `pid ${holder.pid}, ${holder.what}, since ${holder.since}`;
    const state = alive(holder);
    if (state === true && why.startsWith('no answer')) throw new Error(`the Loupe serving ${dataDir} (${who}) at ${holder.url} did not answer ${what} (${why})`, { cause: err });
    const gone = state === false ? '; that process is gone (it crashed or was killed)' : '';
    throw new Error(`no Loupe is running on this data folder (${dataDir}): its lock file names ${holder.url} (${who}), but nothing answers there (${why})${gone}; ${start}`, { cause: err });
  }
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: said below with the text itself
  }
  if (!res.ok) {
    const detail = (json as { detail?: unknown } | null)?.detail;
    throw new Error(`the Loupe at ${holder.url} answered ${res.status} to ${what}: ${typeof detail === 'string' ? detail : text.slice(0, 300) || '(no body)'}`);
  }
  if (json === null) throw new Error(`the Loupe at ${holder.url} answered ${what} with something that is not JSON: ${text.slice(0, 300)}`);
  return json as T;
}

/** A fresh one-time login link from the Loupe serving `dataDir` (`loupe url`; the desktop app when a server holds its folder). */
export async function requestLoginUrl(dataDir: string, key: string): Promise<string> {
  return (await callRunningLoupe<{ url: string }>(dataDir, key, 'a login-link request', '/app/login-link')).url;
}
