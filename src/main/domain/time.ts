/**
 * Time at the wire boundary. Internally times are integer nanoseconds (bigint) so ordering is exact;
 * out, they are ISO 8601 UTC with 'Z' and microseconds (semantics §1).
 */

/** ISO string with microseconds from nanoseconds since the epoch. */
export function isoFromNs(ns: bigint | number): string {
  const us = typeof ns === 'bigint' ? ns / 1000n : BigInt(Math.trunc(ns / 1000));
  return isoFromUs(us);
}

/** ISO string with microseconds from microseconds since the epoch (exact as a JS number until year 2255). */
export function isoFromUs(us: bigint | number): string {
  const big = typeof us === 'bigint' ? us : BigInt(Math.trunc(us));
  const ms = big / 1000n;
  const rest = Number(((big % 1000n) + 1000n) % 1000n);
  const base = new Date(Number(ms - (big < 0n && rest !== 0 ? 1n : 0n))).toISOString(); // yyyy-mm-ddThh:mm:ss.mmmZ
  return `${base.slice(0, 23)}${String(rest).padStart(3, '0')}Z`;
}

/** Times are stored as signed 64-bit nanoseconds: 1677-09-21 … 2262-04-11. */
const INT64_MAX = 2n ** 63n - 1n;
const clampNs = (ns: bigint): bigint => (ns > INT64_MAX ? INT64_MAX : ns < -INT64_MAX ? -INT64_MAX : ns);

/**
 * Nanoseconds from an ISO 8601 string; a string without an offset is UTC. Keeps sub-millisecond
 * digits (up to nanoseconds) that Date.parse would drop. Returns null when unparseable. A date
 * outside the int64 range (year 9999 as "no upper bound") is clamped to its end, so a filter on it
 * means what it says (nothing is after it) instead of failing to bind (issue 13.2).
 */
export function nsFromIso(s: string): bigint | null {
  const ns = parseIsoNs(s);
  return ns === null ? null : clampNs(ns);
}

function parseIsoNs(s: string): bigint | null {
  const m = /^(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2})?)(?:[.,](\d+))?\s*(Z|z|[+-]\d{2}:?\d{2})?$/.exec(s.trim());
  if (!m) {
    const t = Date.parse(s);
    return Number.isNaN(t) ? null : BigInt(t) * 1_000_000n;
  }
  const [, head, frac = '', zone = 'Z'] = m;
  const t = Date.parse(`${head!.replace(' ', 'T')}${zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone}`);
  if (Number.isNaN(t)) return null;
  const fracNs = BigInt((frac + '000000000').slice(0, 9));
  return BigInt(t) * 1_000_000n + fracNs;
}
