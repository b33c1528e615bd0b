/**
 * The loopback door (semantics §10, style habit 9). The server binds 127.0.0.1 only, but a web page
 * the user visits can still reach it through DNS rebinding (attacker.example resolving to 127.0.0.1)
 * or plain cross-site requests. So: the Host header must name a loopback host, and an Origin header,
 * when a browser sends one, must be this very server. No CORS headers are ever sent, so other sites
 * cannot read answers either.
 */
const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** `127.0.0.1:4318`, `localhost`, `[::1]:80` → true; anything else (or a missing Host) → false. */
export function isLoopbackHost(host: string | undefined): boolean {
  if (!host) return false;
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d{1,5}))?$/.exec(host.trim().toLowerCase());
  return !!m && LOOPBACK_NAMES.has(m[1]!);
}

/**
 * An absent Origin is a non-browser client (curl, exporters, scripts) or a same-origin GET: allowed.
 * A present one must be http://<loopback name>:<our port>. `null` (sandboxed frames, file://) is refused.
 */
export function isAllowedOrigin(origin: string | undefined, port: number): boolean {
  if (origin === undefined) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  const urlPort = url.port ? Number(url.port) : url.protocol === 'http:' ? 80 : 443;
  return url.protocol === 'http:' && LOOPBACK_NAMES.has(url.hostname) && urlPort === port && origin === url.origin;
}

/** Why a request is refused, or null when it may pass. */
export function guardRequest(headers: { host?: string; origin?: string | string[] }, port: number): string | null {
  if (!isLoopbackHost(headers.host)) return 'Forbidden: Host header must name this machine (127.0.0.1, localhost or [::1])';
  const origin = Array.isArray(headers.origin) ? headers.origin[0] : headers.origin;
  if (!isAllowedOrigin(origin, port)) return 'Forbidden: cross-origin requests are not allowed';
  return null;
}
