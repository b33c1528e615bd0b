/**
 * Strings in the order the stores keep them: by their UTF-8 bytes (SQLite's BINARY collation,
 * ClickHouse's String). JavaScript's `<` compares UTF-16 code units, which agrees except where a
 * surrogate is involved: a pair (a code point past U+FFFF) sorts after U+E000–U+FFFF in UTF-8, and a
 * lone surrogate is written as U+FFFD. Without allocating for the common case: the code units are
 * compared until the first difference, and only a difference at a surrogate compares the encodings.
 */
const utf8 = new TextEncoder();

const isSurrogate = (unit: number): boolean => unit >= 0xd800 && unit < 0xe000;

export function compareUtf8(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (isSurrogate(x) || isSurrogate(y)) return Buffer.compare(utf8.encode(a), utf8.encode(b));
    return x < y ? -1 : 1;
  }
  if (a.length === b.length) return 0;
  // One is a prefix of the other: its bytes are a prefix too, unless it ends inside a surrogate pair.
  if (n > 0 && isSurrogate((a.length < b.length ? a : b).charCodeAt(n - 1))) return Buffer.compare(utf8.encode(a), utf8.encode(b));
  return a.length < b.length ? -1 : 1;
}
