/**
 * Turns a distribution object of a group row into one of two drawable shapes. The server's object is
 * `{total_count, present_count, missing_count, ...}` plus numeric bins or top values (semantics §7);
 * this is the one place that knows those field names.
 */
import { textOf } from '../../../../shared/text';

export type NormalDist =
  | { kind: 'numeric'; present: number; missing: number; min: number | null; max: number | null; bins: { lo: number; hi: number; count: number }[] }
  | { kind: 'categorical'; present: number; missing: number; values: { value: string; count: number }[]; other: number };

type Obj = Record<string, unknown>;
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

export function normalizeDistribution(raw: unknown): NormalDist | null {
  if (!isObj(raw)) return null;
  const present = num(raw.present_count) ?? 0;
  const missing = num(raw.missing_count) ?? 0;
  const bins = raw.bins ?? raw.buckets ?? raw.histogram;
  if (raw.kind === 'numeric' || Array.isArray(bins)) {
    const list = (Array.isArray(bins) ? bins : []).filter(isObj).map((b) => ({
      lo: num(b.lo ?? b.start ?? b.min ?? b.lower ?? b.from) ?? 0,
      hi: num(b.hi ?? b.end ?? b.max ?? b.upper ?? b.to) ?? 0,
      count: num(b.count) ?? 0,
    }));
    return { kind: 'numeric', present, missing, min: num(raw.min) ?? list[0]?.lo ?? null, max: num(raw.max) ?? list.at(-1)?.hi ?? null, bins: list };
  }
  const top = raw.top_values ?? raw.top ?? raw.values ?? raw.categories;
  if (Array.isArray(top)) {
    const values = top.filter(isObj).map((t) => ({ value: textOf(t.value ?? t.key), count: num(t.count) ?? 0 }));
    return { kind: 'categorical', present, missing, values, other: num(raw.other_count) ?? 0 };
  }
  return null;
}

/**
 * The bins of a histogram of whole numbers (an integer attribute), from the server's equal-width
 * bins over min..max (semantics §7). When there are more bins than whole numbers in the range, each
 * whole number k lies in exactly one bin — the one the server put it in, floor((k − min) / width) —
 * so the histogram becomes one bar per value, labelled k..k, with exact counts (and no empty
 * fractional bins). Otherwise each bin keeps its count and is labelled with the whole numbers it
 * holds (ceil(lo) .. the last one below hi; the last bin includes max). Bins holding no whole number
 * (necessarily empty) are dropped.
 */
export function integerBins(d: Extract<NormalDist, { kind: 'numeric' }>): { lo: number; hi: number; count: number }[] {
  const { min, max, bins } = d;
  if (min === null || max === null || !bins.length || !Number.isInteger(min) || !Number.isInteger(max)) return bins;
  const n = bins.length;
  if (min === max) return [{ lo: min, hi: max, count: bins.reduce((a, b) => a + b.count, 0) }];
  const width = (max - min) / n;
  if (width < 1) {
    const out: { lo: number; hi: number; count: number }[] = [];
    for (let k = min; k <= max; k++) out.push({ lo: k, hi: k, count: bins[Math.min(n - 1, Math.floor((k - min) / width))]!.count });
    return out;
  }
  const out: { lo: number; hi: number; count: number }[] = [];
  for (let i = 0; i < n; i++) {
    const lo = Math.ceil(min + i * width);
    const hi = i === n - 1 ? max : Math.ceil(min + (i + 1) * width) - 1;
    if (hi >= lo) out.push({ lo, hi, count: bins[i]!.count });
  }
  return out;
}
