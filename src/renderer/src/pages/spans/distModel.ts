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
