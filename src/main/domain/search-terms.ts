/**
 * The terms a text index looks a search up by, for every adapter (issue 19): trigrams, as SQLite's
 * FTS5 trigram index has them (sqlite/fts.ts), and the ClickHouse adapter keeps in its own term
 * table (clickhouse/search-index.ts). A span's texts (search-text.ts) are indexed by every trigram
 * of their characters; a needle is looked up by the AND of its trigrams, at most MAX_NEEDLE_TERMS of
 * them spread over it. Every text holding the needle holds all of them, so the AND names a superset
 * of the matching spans: the adapters check each candidate against the texts themselves.
 *
 * ClickHouse has no case-folding tokenizer: it indexes the lowercased text (String.toLowerCase, the
 * exact check's own folding) and hashes each trigram to 32 bits — a collision only adds candidates.
 */

/** Characters (code points) of a term; a needle shorter than this has no term. */
export const TERM_CHARS = 3;
/** Trigrams of a long needle looked up (spread over it): each one narrows little once a few match. */
export const MAX_NEEDLE_TERMS = 12;
/** Traces of one conversation per indexed document (sqlite/fts.ts measured the size / candidates trade-off). */
export const TRACES_PER_DOCUMENT = 4;

/** The trigrams a needle is looked up by (as written: the index folds case), or null when it is too short. */
export function needleTrigrams(needle: string): string[] | null {
  const chars = [...needle];
  if (chars.length < TERM_CHARS) return null;
  const all: string[] = [];
  for (let i = 0; i + TERM_CHARS <= chars.length; i++) all.push(chars.slice(i, i + TERM_CHARS).join(''));
  const picked =
    all.length <= MAX_NEEDLE_TERMS ? all : Array.from({ length: MAX_NEEDLE_TERMS }, (_, k) => all[Math.round((k * (all.length - 1)) / (MAX_NEEDLE_TERMS - 1))]!);
  return [...new Set(picked)];
}

// FNV-1a, 32 bits, over UTF-16 code units.
const FNV_OFFSET = 0x811c9dc5;
const fnv = (h: number, unit: number) => Math.imul(h ^ unit, 0x01000193) >>> 0;

/** The 32-bit term of a trigram (already folded). */
export function termHash(trigram: string): number {
  let h = FNV_OFFSET;
  for (let i = 0; i < trigram.length; i++) h = fnv(h, trigram.charCodeAt(i));
  return h;
}

// A lone surrogate: a needle holding one matches inside a character, which no trigram of code points names.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const SURROGATE = /[\ud800-\udfff]/;

/**
 * The hashed terms a case-insensitive needle is looked up by (the ClickHouse index), or null when the
 * index cannot answer it (under TERM_CHARS, or a lone surrogate): the caller then tests every span.
 */
export function needleTerms(needle: string): number[] | null {
  if (LONE_SURROGATE.test(needle)) return null;
  const trigrams = needleTrigrams(needle.toLowerCase());
  return trigrams && [...new Set(trigrams.map(termHash))];
}

/** Adds every hashed trigram of a text (lowercased) to `into`. */
export function addTextTerms(text: string, into: Set<number>): void {
  const t = text.toLowerCase();
  if (!SURROGATE.test(t)) {
    // One code unit per character: the trigram at i is t[i..i+2].
    for (let i = 0; i + TERM_CHARS <= t.length; i++) into.add(fnv(fnv(fnv(FNV_OFFSET, t.charCodeAt(i)), t.charCodeAt(i + 1)), t.charCodeAt(i + 2)));
    return;
  }
  const chars = [...t];
  for (let i = 0; i + TERM_CHARS <= chars.length; i++) into.add(termHash(chars[i]! + chars[i + 1]! + chars[i + 2]!));
}
