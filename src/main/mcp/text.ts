/**
 * Small formatters of the readable form of answers: compact, one fact per token where possible.
 */
import { cutText } from './budget.js';

export const fmtTokens = (n: number | null | undefined): string =>
  n == null ? '–' : n >= 10_000 ? `${(n / 1000).toFixed(0)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);

/** Unknown cost is "–", never $0. */
export const fmtCost = (usd: number | null | undefined): string =>
  usd == null ? 'cost –' : usd === 0 ? '$0' : usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;

export const fmtMs = (ms: number | null | undefined): string =>
  ms == null ? '–' : ms >= 60_000 ? `${(ms / 60_000).toFixed(1)} min` : ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms * 10) / 10} ms`;

/** Text in quotes on one line, at most `max` characters (already-cut values keep their marker). */
export function quote(text: string, max: number): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return `"${cutText(one, max).text}"`;
}

/** A signed delta: "+12", "-3", "±0". */
export const signed = (n: number, fmt: (x: number) => string = String): string => (n > 0 ? `+${fmt(n)}` : n < 0 ? `-${fmt(-n)}` : '±0');
