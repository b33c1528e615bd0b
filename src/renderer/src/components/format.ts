/** Display formatting shared by lists, chat and timeline. Null/undefined show as an en dash. */
export const DASH = '–';

export function fmtCost(usd: number | null | undefined): string {
  if (usd === null || usd === undefined) return DASH;
  if (usd === 0) return '$0';
  // Small amounts keep two significant digits (a difference of $0.0000069 is not "$0.0000").
  if (usd < 0.0001) return `$${usd.toFixed(Math.min(10, 1 - Math.floor(Math.log10(usd))))}`;
  if (usd < 0.01) return `$${usd.toFixed(4)}`;
  return `$${usd.toFixed(2)}`;
}

export function fmtTokens(n: number | null | undefined): string {
  if (n === null || n === undefined) return DASH;
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)}M`;
  if (n >= 10_000) return `${Math.round(n / 1000)}k`;
  if (n >= 1000) return `${(n / 1000).toFixed(1)}k`;
  return String(n);
}

/**
 * Input → output tokens of a total, or "–" when no span of it reported usage (`usage_known` false,
 * decision 0022): unknown usage is never shown as 0 / 0.
 */
export function fmtUsage(input: number, output: number, known: boolean, sep = ' → '): string {
  return known ? `${fmtTokens(input)}${sep}${fmtTokens(output)}` : DASH;
}

export function fmtDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return DASH;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const m = Math.floor(ms / 60_000);
  return `${m}m ${Math.round((ms % 60_000) / 1000)}s`;
}

/** A time for a narrow column: the time of day when it is today, else the day and the minute ("Nov 26 14:05"). */
export function fmtTimeShort(iso: string | null | undefined): string {
  if (!iso) return DASH;
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const d = new Date(t);
  if (d.toDateString() === new Date().toDateString()) return d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  return `${d.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })} ${d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })}`;
}

export function fmtTime(iso: string | null | undefined, relative = false): string {
  if (!iso) return DASH;
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  if (relative) {
    const s = (Date.now() - t) / 1000;
    if (s < 60) return 'just now';
    if (s < 3600) return `${Math.floor(s / 60)} min ago`;
    if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
    if (s < 30 * 86_400) return `${Math.floor(s / 86_400)} d ago`;
  }
  return new Date(t).toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });
}
