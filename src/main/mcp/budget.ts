/**
 * Every MCP answer is bounded: an agent's context is small and a 20,000-span trace is megabytes. A
 * tool's budget counts the bytes of both forms of its answer (the readable text and the structured
 * content as JSON), since clients may hand either or both to the model. Long values are cut with a
 * marker that says how to read the rest; lists are cut to the rows that fit, and say so.
 */

export const KB = 1024;

export const bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/** What one answer weighs against its budget. */
export const answerBytes = (a: { text: string; structured: unknown }): number => bytes(a.text) + bytes(JSON.stringify(a.structured));

export interface Cut {
  text: string;
  /** Characters left out (0 when whole). */
  omitted: number;
}

/**
 * `text` at most `max` characters (code units); past that, its head and a marker naming how many
 * characters follow and, when given, how to read them.
 */
export function cutText(text: string, max: number, more?: string): Cut {
  if (text.length <= max) return { text, omitted: 0 };
  const omitted = text.length - max;
  return { text: `${text.slice(0, max)}…[cut: ${omitted.toLocaleString('en-US')} more characters${more ? `; ${more}` : ''}]`, omitted };
}

/** `cutText` for nullable values, keeping only the text. */
export const cutOrNull = (text: string | null | undefined, max: number, more?: string): string | null =>
  text == null ? null : cutText(text, max, more).text;

/**
 * The largest k in [0, n] whose answer fits the budget, for answers that grow with k (rows kept).
 * Binary search: O(log n) renderings.
 */
export function fitCount(n: number, weigh: (k: number) => number, budget: number, guess?: number): number {
  // A good guess (rows' sizes summed) settles it in two renderings instead of log2(n).
  if (guess !== undefined && guess >= 0 && guess < n && weigh(guess) <= budget && weigh(guess + 1) > budget) return guess;
  if (weigh(n) <= budget) return n;
  let lo = 0;
  let hi = n; // weigh(hi) > budget
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (weigh(mid) <= budget) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** A budget as people read it: "24 KB". */
export const budgetText = (budget: number): string => `${Math.round(budget / KB)} KB`;

/**
 * How many rows fit, estimated from each row's own size (its text line and its JSON) over a fixed
 * part: a guess for fitCount.
 */
export function guessRows<T>(rows: readonly T[], fixed: number, budget: number, line: (row: T) => string): number {
  let used = fixed;
  for (let k = 0; k < rows.length; k++) {
    used += bytes(line(rows[k]!)) + bytes(JSON.stringify(rows[k])) + 2;
    if (used > budget) return k;
  }
  return rows.length;
}
