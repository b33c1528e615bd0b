/**
 * Any value as text, for messages, search text and display: strings as they are, numbers, booleans
 * and bigints in their usual form, null and undefined as '', objects and arrays as JSON (bigints as
 * digits) — never JavaScript's "[object Object]".
 */
export function textOf(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '';
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return v.toString();
  return jsonWithBigints(v) ?? '';
}

const bigintDigits = (_k: string, x: unknown): unknown => (typeof x === 'bigint' ? x.toString() : x);

/**
 * JSON.stringify(v) with bigints written as their digits in a string. A replacer function takes
 * JSON.stringify off its fast path (called back for every key, ~1.5x the cost on a small object,
 * once or more per span ingested): it is used only for a value that holds a bigint, found by the
 * plain call throwing (a replacer that returns every other value as it is prints the same text).
 */
export function jsonWithBigints(v: unknown): string | undefined {
  try {
    return JSON.stringify(v);
  } catch (e) {
    if (e instanceof TypeError && /BigInt/i.test(e.message)) return JSON.stringify(v, bigintDigits);
    throw e;
  }
}
