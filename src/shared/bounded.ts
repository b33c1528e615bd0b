/**
 * Bounded looks at untrusted parsed JSON, safe on exactly the inputs they exist to catch: iterative
 * (an explicit stack, so a value nested 100,000 levels deep cannot overflow the call stack) and
 * stopping as soon as the answer is known.
 */

/** Whether a value nests more than `limit` arrays/objects deep (`{a: {}}` is 2 levels). */
export function nestedDeeperThan(v: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[v, 0]];
  while (stack.length) {
    const [x, d] = stack.pop()!;
    if (typeof x !== 'object' || x === null || ArrayBuffer.isView(x)) continue;
    if (d >= limit) return true;
    for (const child of Array.isArray(x) ? x : Object.values(x)) {
      if (typeof child === 'object' && child !== null) stack.push([child, d + 1]);
    }
  }
  return false;
}

/** Roughly the length of JSON.stringify(v), counting no further than `limit`. */
export function jsonSizeExceeds(v: unknown, limit: number): boolean {
  let size = 0;
  const stack: unknown[] = [v];
  while (stack.length) {
    const x = stack.pop();
    if (typeof x === 'string') size += x.length + 2;
    else if (typeof x !== 'object' || x === null) size += String(x).length;
    else if (Array.isArray(x)) {
      size += 2 + x.length;
      for (const c of x) stack.push(c);
    } else {
      for (const [k, c] of Object.entries(x)) {
        size += k.length + 4;
        stack.push(c);
      }
    }
    if (size > limit) return true;
  }
  return false;
}

/**
 * A value as it may be echoed back in an error (`input` of a 422): small values unchanged; a long
 * string cut; a large or deep structure replaced by a short description, so an error answer stays
 * small whatever was sent (issue 13.7: a 0.5 MB body once produced a 26 MB error).
 */
export function echoable(v: unknown, maxChars = 512): unknown {
  if (typeof v === 'string') return v.length > maxChars ? `${v.slice(0, maxChars)}… (${v.length} characters)` : v;
  if (typeof v !== 'object' || v === null) return v;
  if (!nestedDeeperThan(v, 8) && !jsonSizeExceeds(v, maxChars)) return v;
  return Array.isArray(v) ? `(an array of ${v.length} items, too large to repeat)` : `(an object with ${Object.keys(v).length} keys, too large to repeat)`;
}
