/**
 * A lookup table keyed by names that arrive from outside (sort fields, measure keys, content types),
 * without Object.prototype behind it: `table['constructor']` or `table['__proto__']` is then
 * undefined — an unknown name (a 422 naming it) — instead of a function that reached SQL text and
 * answered 500 (issue 13.8).
 */
export function dict<T>(entries: Record<string, T>): Record<string, T> {
  return Object.assign(Object.create(null) as Record<string, T>, entries);
}
