/**
 * Time-range inputs: `<input type="datetime-local">` gives local wall-clock text without an offset;
 * the server reads a naive time as UTC (semantics §1), so convert to an ISO string with Z here.
 */
export function toIso(local: string): string | null {
  if (!local.trim()) return null;
  const t = new Date(local).getTime();
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

/** Presets relative to now, as ISO start times (end open). */
export const PRESETS: { label: string; ms: number }[] = [
  { label: '1 h', ms: 3_600_000 },
  { label: '24 h', ms: 86_400_000 },
  { label: '7 d', ms: 7 * 86_400_000 },
  { label: '30 d', ms: 30 * 86_400_000 },
];

/** ISO back to the datetime-local text (local time, minutes). */
export function toLocalInput(iso: string): string {
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
