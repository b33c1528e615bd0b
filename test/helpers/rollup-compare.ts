/**
 * What the span-rollup tests of both adapters compare (test/unit/rollups.test.ts for SQLite,
 * test/unit/clickhouse-rollups.test.ts): every measure the rollups keep, a condition that makes the
 * same request scan, and rounding of float sums that add in another order.
 */

/** A condition every span meets (span_id is never null): the same rows, read by a scan. */
export const ALWAYS = { $expr: { $not: { $eq: [{ $getField: 'span_id' }, { $literal: null }] } } };

/** Every measure the rollups answer. */
export const MEASURES = [
  { alias: 'n', aggregation: 'count' },
  ...['duration_ms', 'total_tokens', 'total_cost_usd'].flatMap((key) =>
    ['sum', 'avg', 'min', 'max', 'count'].map((aggregation) => ({ alias: `${key}_${aggregation}`, aggregation, value: { key, source: 'derived' } })),
  ),
  ...['is_error', 'is_invocation'].flatMap((key) =>
    ['count_true', 'count_false', 'sum', 'avg', 'min', 'max', 'count'].map((aggregation) => ({ alias: `${key}_${aggregation}`, aggregation, value: { key, source: 'derived' } })),
  ),
];

/** Group rows with floats to 10 significant digits (sums of per-unit sums add in another order). */
export const rounded = (x: unknown): unknown =>
  JSON.parse(JSON.stringify(x, (_k, v: unknown) => (typeof v === 'number' && !Number.isInteger(v) ? Number(v.toPrecision(10)) : v)));
