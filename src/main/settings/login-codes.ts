/**
 * How the page served by `loupe serve` gets the key without any other local process getting it
 * (issue 13.4, docs/security.md). Anything the server hands out to a plain GET, every local process
 * (of every local user) can fetch too, so the page cannot simply ask for the key. Instead the user
 * holds a one-time login code: `loupe serve` prints a link `http://127.0.0.1:P/?login=CODE` on its
 * stderr (a terminal only that user sees), the page exchanges the code once for the key
 * (`POST /app/session`), keeps the key in its own origin's localStorage and drops the code from its
 * address. A code works once and for ten minutes, so a link left in shell history or browser history is
 * worthless. A fresh link for a running server: `loupe url` (it reads the key file, private to the user).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const LOGIN_TTL_MS = 10 * 60 * 1000;

export class LoginCodes {
  private readonly codes = new Map<string, number>();

  /** A new single-use code, valid for `ttlMs`. */
  issue(ttlMs = LOGIN_TTL_MS): string {
    const code = randomBytes(18).toString('base64url');
    this.codes.set(code, Date.now() + ttlMs);
    return code;
  }

  /** True once for a valid code (then it is gone); false for anything else. */
  redeem(code: string): boolean {
    const now = Date.now();
    for (const [c, until] of this.codes) if (until < now) this.codes.delete(c);
    for (const [c] of this.codes) {
      if (c.length === code.length && timingSafeEqual(Buffer.from(c), Buffer.from(code))) {
        this.codes.delete(c);
        return true;
      }
    }
    return false;
  }
}

/**
 * The ticket of `GET /events?ticket=…`: EventSource cannot send an Authorization header, and a key in a
 * URL would open the whole keyed API. An HMAC of the key opens the event stream only; it survives a
 * restart (so a page's EventSource reconnects by itself) and changes with the key.
 */
export const eventsTicket = (apiKey: string) => createHmac('sha256', apiKey).update('loupe events ticket v1').digest('base64url');

export const loginUrl = (baseUrl: string, code: string) => `${baseUrl}/?login=${code}`;

/** Asks a running Loupe (its URL from loupe.lock.json) for a fresh login link, with the key. */
export async function requestLoginUrl(baseUrl: string, key: string): Promise<string> {
  const res = await fetch(`${baseUrl}/app/login-link`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{}' });
  if (!res.ok) throw new Error(`${baseUrl} answered ${res.status} to a login-link request: ${await res.text()}`);
  return ((await res.json()) as { url: string }).url;
}
