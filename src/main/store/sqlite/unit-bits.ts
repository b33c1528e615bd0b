/**
 * Sets of conversation numbers as compact bitmaps (decision 0026): a `span_rollup_days` row keeps the
 * conversations that have spans in it as a bitmap of their `conversation_summaries.id`, so a group's
 * conversation count — a distinct count, which does not add across days or key combinations — is the
 * popcount of the union of its rows' bitmaps, exact over any set of rows.
 *
 * Encoding: a sequence of runs, each `byte offset (u32 LE) · length (u16 LE) · that many bitmap bytes`
 * (bit i of byte b is number 8·b + i), runs in increasing order. Conversation ids are assigned in import
 * order, so one day's conversations are a few dense ranges: a gap of more than GAP bytes starts a new run,
 * so one old conversation active today costs a run of its own, not the bytes between.
 */
// The Db type from better-sqlite3 itself, not from ./open.js: open.ts registers these functions, and
// importing its type back would make a cycle (test/unit/imports.test.ts).
import type { Database as Db } from 'better-sqlite3';

const GAP = 16;
const MAX_RUN = 0xffff;

/** Bitmap of a set of non-negative integers (sorted or not). */
export function encodeUnits(ids: readonly number[]): Buffer {
  if (!ids.length) return Buffer.alloc(0);
  const bytes = [...new Set(ids.map((id) => Math.floor(id / 8)))].sort((a, b) => a - b);
  const runs: [number, number][] = [];
  for (const b of bytes) {
    const last = runs[runs.length - 1];
    if (last && b - (last[0] + last[1]) <= GAP && b - last[0] < MAX_RUN) last[1] = b - last[0] + 1;
    else runs.push([b, 1]);
  }
  const out = Buffer.alloc(runs.reduce((n, [, len]) => n + 6 + len, 0));
  let at = 0;
  const where = new Map<number, number>();
  for (const [start, len] of runs) {
    out.writeUInt32LE(start, at);
    out.writeUInt16LE(len, at + 4);
    for (let i = 0; i < len; i++) where.set(start + i, at + 6 + i);
    at += 6 + len;
  }
  for (const id of ids) {
    const pos = where.get(Math.floor(id / 8))!;
    out[pos]! |= 1 << (id % 8);
  }
  return out;
}

/** Calls `each(byteOffset, byte)` for every bitmap byte of an encoded set. */
function forEachByte(blob: Buffer, each: (offset: number, byte: number) => void): void {
  let at = 0;
  while (at + 6 <= blob.length) {
    const start = blob.readUInt32LE(at);
    const len = blob.readUInt16LE(at + 4);
    for (let i = 0; i < len; i++) each(start + i, blob[at + 6 + i]!);
    at += 6 + len;
  }
}

/** The members of an encoded set, ascending. */
export function decodeUnits(blob: Buffer): number[] {
  const out: number[] = [];
  forEachByte(blob, (offset, byte) => {
    for (let i = 0; i < 8; i++) if (byte & (1 << i)) out.push(offset * 8 + i);
  });
  return out;
}

const popcount = (b: number) => {
  let n = 0;
  for (let x = b; x; x &= x - 1) n++;
  return n;
};

/** A growing union of encoded sets (one per group), counted at the end. */
class Union {
  private bytes = new Uint8Array(64);
  // Called once per row of a group (~100k rows at 6.2M spans): a plain loop, no callback per byte.
  add(blob: Buffer): void {
    let at = 0;
    while (at + 6 <= blob.length) {
      const start = blob.readUInt32LE(at);
      const len = blob.readUInt16LE(at + 4);
      if (start + len > this.bytes.length) {
        const grown = new Uint8Array(Math.max(start + len, this.bytes.length * 2));
        grown.set(this.bytes);
        this.bytes = grown;
      }
      const bytes = this.bytes;
      for (let i = 0, from = at + 6; i < len; i++) bytes[start + i]! |= blob[from + i]!;
      at += 6 + len;
    }
  }
  count(): number {
    let n = 0;
    for (const b of this.bytes) if (b) n += popcount(b);
    return n;
  }
}

/** Distinct JSON values of several JSON arrays, as one array (first seen first). */
class JsonUnion {
  private seen = new Set<string>();
  private values: unknown[] = [];
  add(text: unknown): void {
    if (typeof text !== 'string') return;
    for (const v of JSON.parse(text) as unknown[]) {
      const key = JSON.stringify(v);
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      this.values.push(v);
    }
  }
  json(): string {
    return JSON.stringify(this.values);
  }
}

/** The error loupe_undecided() fails a statement with (a duration bound inside a name-layer row: analytics/rollups.ts). */
export const UNDECIDED = 'loupe: a duration bound falls inside a row of the name layer';

/**
 * The layer's SQL functions, on every connection (like the body and search functions):
 *  - loupe_units(id): aggregate, the encoded set of the non-null ids (NULL when none);
 *  - loupe_unit_count(blob): aggregate, how many distinct numbers the union of the sets holds;
 *  - loupe_json_union(json): aggregate, the distinct values of JSON arrays as one array;
 *  - loupe_unit(id): the set of one id (NULL for NULL), for a rollup row read beside layer rows;
 *  - loupe_undecided(x): fails the statement with UNDECIDED (the name layer cannot answer it exactly).
 */
export function registerRollupFunctions(db: Db): void {
  // One argument (any row value), so SQLite evaluates it per row reached, never once as a constant.
  db.function('loupe_undecided', (_row: unknown) => {
    throw new Error(UNDECIDED);
  });
  db.function('loupe_unit', { deterministic: true }, (id: unknown) => (id === null || id === undefined ? null : encodeUnits([Number(id)])));
  db.aggregate('loupe_units', {
    start: () => [] as number[],
    step: (acc: number[], id: unknown) => {
      if (id !== null && id !== undefined) acc.push(Number(id));
    },
    result: (acc: number[]) => (acc.length ? encodeUnits(acc) : null),
  });
  db.aggregate('loupe_unit_count', {
    start: () => new Union(),
    step: (acc: Union, blob: unknown) => {
      if (Buffer.isBuffer(blob)) acc.add(blob);
    },
    result: (acc: Union) => acc.count(),
  });
  db.aggregate('loupe_json_union', {
    start: () => new JsonUnion(),
    step: (acc: JsonUnion, text: unknown) => acc.add(text),
    result: (acc: JsonUnion) => acc.json(),
  });
}
