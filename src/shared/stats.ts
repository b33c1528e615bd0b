/**
 * Exact percentile of an ascending-sorted list, linear interpolation between closest ranks
 * (numpy's default). `p` is a fraction in [0, 1]. Used by the threads query (p50/p99 turn
 * durations) and by the benchmarks.
 */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (!sorted.length) return null;
  const idx = p * (sorted.length - 1);
  const lo = Math.floor(idx);
  const hi = Math.ceil(idx);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (idx - lo);
}

/** Percentile of an unsorted list (copies and sorts); NaN when empty. */
export function percentileOf(values: readonly number[], p: number): number {
  return percentile([...values].sort((a, b) => a - b), p) ?? NaN;
}
