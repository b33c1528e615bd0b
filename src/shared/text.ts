/**
 * Any value as text, for messages, search text and display: strings as they are, numbers, booleans
 * and bigints in their usual form, null and undefined as '', objects and arrays as JSON (bigints as
 * digits) — never JavaScript's "[object Object]".
 */
export function textOf(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '';
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return v.toString();
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x)) ?? '';
}
