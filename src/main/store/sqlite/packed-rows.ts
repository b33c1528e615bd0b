/**
 * Prepared span rows (ingest.ts PreparedSpan) packed into one ArrayBuffer per batch, so the ingest
 * worker hands a batch to the writer thread by transfer instead of structured clone (issue 19 item 3:
 * cloning 1,024 arrays of 73 values — serialize on the worker, deserialize on the writer — cost ~3–4.5
 * CPU-s per 100k history spans, and the cloned rows lived through the whole batch, promoted).
 *
 * Each row is packed as soon as its span is prepared (so the row array dies young), into a growing
 * buffer; `batch` closes the buffer and starts the next one. Values keep their exact JavaScript type
 * and value, because they are bound to SQLite as they are: integers that fit 32 bits, other numbers as
 * float64 (−0, NaN and ±Infinity kept), bigints (beyond int64 as their digits), strings as their
 * UTF-16 code units (lone surrogates kept exactly; ASCII ones one byte a character), byte arrays,
 * nested arrays and a body (bodies.ts EncodedBody: its zstd dictionary once per batch).
 *
 * Strings at the positions the row layout marks repeat within a batch (project, trace, service,
 * agent, model, resource attributes…): those go into a per-batch dictionary, written once and decoded
 * into one string the rows share.
 *
 * Layout: [rows][dictionary: count, strings][body dictionaries: count, (hash, bytes)…][u32 offset of the dictionary][u32 rows].
 */
import type { EncodedBody } from './bodies.js';
import type { FastBuffer } from './body-codec.js';

const UNDEFINED = 0;
const NULL = 1;
const FALSE = 2;
const TRUE = 3;
const INT32 = 4;
const FLOAT64 = 5;
const BIGINT64 = 6;
const BIGINT_TEXT = 7;
const ASCII = 8;
const UTF16 = 9;
const DICT = 10;
const BYTES = 11;
const ARRAY = 12;
const BODY = 13;

/** Strings longer than this are never looked up in the dictionary (a repeated value is short; a long one is a text). */
const MAX_DICT_CHARS = 512;

/** A batch of packed rows: `buffer` is transferred to the writer (the sender must not touch it after). */
export interface PackedRows {
  readonly packed: ArrayBuffer;
  readonly byteLength: number;
  readonly rows: number;
}

/** Where a row is in the packer's open buffer. */
export interface PackedRow {
  readonly start: number;
  readonly end: number;
}

export function isPackedRows(p: unknown): p is PackedRows {
  return typeof p === 'object' && p !== null && (p as PackedRows).packed instanceof ArrayBuffer;
}

export class RowPacker {
  private buf: Buffer;
  private view: DataView;
  private at = 0;
  private dict = new Map<string, number>();
  private dictList: string[] = [];
  private bodyDicts = new Map<string, Buffer>();

  /** `dictAt[i]`: whether the strings at position i of a row go through the batch's dictionary. */
  constructor(
    private readonly dictAt: readonly boolean[],
    private capacity = 1 << 20,
  ) {
    this.buf = Buffer.allocUnsafeSlow(capacity);
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.length);
  }

  /** Packs a row; on a value it cannot pack it throws and the buffer is as before. */
  add(row: readonly unknown[]): PackedRow {
    const start = this.at;
    try {
      this.u32(row.length);
      for (let i = 0; i < row.length; i++) this.value(row[i], this.dictAt[i] === true);
    } catch (e) {
      this.at = start;
      throw e;
    }
    return { start, end: this.at };
  }

  /** Bytes packed so far in the open batch. */
  get bytes(): number {
    return this.at;
  }

  /**
   * The batch of `rows` (made by `add` since the last batch, in order; rows packed and then dropped
   * are left out) in one buffer of its own; the next rows go into a new one.
   */
  batch(rows: readonly PackedRow[]): PackedRows {
    let used = 0;
    for (const r of rows) used += r.end - r.start;
    if (used !== this.at || (rows.length && rows[0]!.start !== 0)) this.keepOnly(rows, used);
    const rowsEnd = this.at;
    this.u32(this.dictList.length);
    for (const s of this.dictList) this.string(s);
    this.u32(this.bodyDicts.size);
    for (const [hash, bytes] of this.bodyDicts) {
      this.string(hash);
      this.bytes_(bytes);
    }
    this.u32(rowsEnd);
    this.u32(rows.length);
    const out: PackedRows = { packed: this.buf.buffer as ArrayBuffer, byteLength: this.at, rows: rows.length };
    // The next batch starts with room for one like this (no growth on the way in the common case).
    this.capacity = Math.max(this.capacity, this.at);
    this.buf = Buffer.allocUnsafeSlow(this.capacity);
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.length);
    this.at = 0;
    this.dict = new Map();
    this.dictList = [];
    this.bodyDicts = new Map();
    return out;
  }

  /** Moves the kept rows to the front (rows dropped after `add`: an input's broken tail). */
  private keepOnly(rows: readonly PackedRow[], used: number): void {
    const kept = Buffer.allocUnsafe(used);
    let o = 0;
    for (const r of rows) o += this.buf.copy(kept, o, r.start, r.end);
    kept.copy(this.buf, 0);
    this.at = used;
  }

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.at + n) size *= 2;
    const next = Buffer.allocUnsafeSlow(size);
    this.buf.copy(next, 0, 0, this.at);
    this.buf = next;
    this.view = new DataView(next.buffer, next.byteOffset, next.length);
  }

  private u8(v: number): void {
    this.room(1);
    this.buf[this.at++] = v;
  }

  private u32(v: number): void {
    this.room(4);
    this.view.setUint32(this.at, v, true);
    this.at += 4;
  }

  private value(v: unknown, dict: boolean): void {
    switch (typeof v) {
      case 'string':
        if (dict && v.length <= MAX_DICT_CHARS) {
          let id = this.dict.get(v);
          if (id === undefined) {
            id = this.dictList.length;
            this.dict.set(v, id);
            this.dictList.push(v);
          }
          this.u8(DICT);
          return this.u32(id);
        }
        return this.string(v);
      case 'number':
        // −0 is not the integer 0 (SQLite would store 0 instead of −0.0).
        if ((v | 0) === v && (v !== 0 || 1 / v > 0)) {
          this.room(5);
          this.buf[this.at] = INT32;
          this.view.setInt32(this.at + 1, v, true);
          this.at += 5;
        } else {
          this.room(9);
          this.buf[this.at] = FLOAT64;
          this.view.setFloat64(this.at + 1, v, true);
          this.at += 9;
        }
        return;
      case 'bigint':
        if (BigInt.asIntN(64, v) === v) {
          this.room(9);
          this.buf[this.at] = BIGINT64;
          this.view.setBigInt64(this.at + 1, v, true);
          this.at += 9;
          return;
        }
        this.u8(BIGINT_TEXT);
        return this.string(v.toString());
      case 'boolean':
        return this.u8(v ? TRUE : FALSE);
      case 'undefined':
        return this.u8(UNDEFINED);
      case 'object':
        if (v === null) return this.u8(NULL);
        if (v instanceof Uint8Array) {
          this.u8(BYTES);
          return this.bytes_(v);
        }
        if (Array.isArray(v)) {
          this.u8(ARRAY);
          this.u32(v.length);
          for (const x of v) this.value(x, false);
          return;
        }
        if ((v as EncodedBody).blob instanceof Uint8Array) return this.body(v as EncodedBody);
    }
    throw new TypeError(`a prepared row cannot hold a ${v === null ? 'null' : typeof v} value of this kind`);
  }

  private body(b: EncodedBody): void {
    this.u8(BODY);
    this.bytes_(b.blob);
    if (b.dict_hash === null) return this.u8(NULL);
    if (!b.dict) throw new TypeError('a body compressed with a dictionary must carry it');
    if (!this.bodyDicts.has(b.dict_hash)) this.bodyDicts.set(b.dict_hash, b.dict);
    this.u8(DICT);
    this.string(b.dict_hash);
  }

  private bytes_(b: Uint8Array): void {
    this.u32(b.length);
    this.room(b.length);
    this.buf.set(b, this.at);
    this.at += b.length;
  }

  private string(s: string): void {
    const n = s.length;
    // Room for the worst case of the UTF-8 try (3 bytes a code unit) besides the header.
    this.room(5 + 3 * n);
    const buf = this.buf;
    const o = this.at + 5;
    let ascii = true;
    if (n <= SHORT) {
      // Short strings byte by byte: cheaper than a call into the native encoder.
      for (let i = 0; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c > 0x7f) {
          ascii = false;
          break;
        }
        buf[o + i] = c;
      }
      // A string written as UTF-8 in exactly as many bytes as it has code units is ASCII.
    } else ascii = (buf as FastBuffer).utf8Write(s, o) === n;
    this.view.setUint32(this.at + 1, n, true);
    if (ascii) {
      buf[this.at] = ASCII;
      this.at = o + n;
      return;
    }
    buf[this.at] = UTF16;
    (buf as FastBuffer).ucs2Write(s, o, 2 * n);
    this.at = o + 2 * n;
  }
}

/** Strings up to this many code units are copied in JavaScript, longer ones by Node's encoder. */
const SHORT = 24;

/** The rows of a packed batch, each value as it was packed (byte arrays and bodies are views into the batch's buffer). */
export function unpackRows(p: PackedRows): unknown[][] {
  const buf = Buffer.from(p.packed, 0, p.byteLength) as FastBuffer;
  const view = new DataView(p.packed, 0, p.byteLength);
  let at = 0;
  const u32 = () => {
    const v = view.getUint32(at, true);
    at += 4;
    return v;
  };
  const bytes = () => {
    const n = u32();
    const b = buf.subarray(at, at + n);
    at += n;
    return b;
  };
  const string = (): string => {
    const tag = buf[at]!;
    const n = view.getUint32(at + 1, true);
    at += 5;
    if (tag === ASCII) {
      at += n;
      return buf.latin1Slice(at - n, at);
    }
    if (tag !== UTF16) throw new Error(`packed rows: a string expected at byte ${at - 5}`);
    at += 2 * n;
    return buf.ucs2Slice(at - 2 * n, at);
  };
  const rowsEnd = view.getUint32(p.byteLength - 8, true);
  const count = view.getUint32(p.byteLength - 4, true);
  at = rowsEnd;
  const dict: string[] = new Array(u32());
  for (let i = 0; i < dict.length; i++) dict[i] = string();
  const bodyDicts = new Map<string, Buffer>();
  for (let n = u32(); n > 0; n--) {
    const hash = string();
    // Copied: a dictionary is remembered by the connection (bodies.ts), the batch's buffer is not.
    bodyDicts.set(hash, Buffer.from(bytes()));
  }
  const value = (): unknown => {
    const tag = buf[at]!;
    switch (tag) {
      case UNDEFINED:
        at++;
        return undefined;
      case NULL:
        at++;
        return null;
      case FALSE:
        at++;
        return false;
      case TRUE:
        at++;
        return true;
      case INT32:
        at += 5;
        return view.getInt32(at - 4, true);
      case FLOAT64:
        at += 9;
        return view.getFloat64(at - 8, true);
      case BIGINT64:
        at += 9;
        return view.getBigInt64(at - 8, true);
      case BIGINT_TEXT:
        at++;
        return BigInt(string());
      case ASCII:
      case UTF16:
        return string();
      case DICT:
        at += 5;
        return dict[view.getUint32(at - 4, true)];
      case BYTES:
        at++;
        return bytes();
      case ARRAY: {
        at++;
        const out: unknown[] = new Array(u32());
        for (let i = 0; i < out.length; i++) out[i] = value();
        return out;
      }
      case BODY: {
        at++;
        const blob = bytes();
        if (buf[at] === NULL) {
          at++;
          return { blob, dict_hash: null, dict: null } satisfies EncodedBody;
        }
        at++;
        const hash = string();
        return { blob, dict_hash: hash, dict: bodyDicts.get(hash)! } satisfies EncodedBody;
      }
    }
    throw new Error(`packed rows: unknown value tag ${tag} at byte ${at}`);
  };
  at = 0;
  const rows: unknown[][] = new Array(count);
  for (let r = 0; r < count; r++) {
    const row: unknown[] = new Array(u32());
    for (let i = 0; i < row.length; i++) row[i] = value();
    rows[r] = row;
  }
  return rows;
}

/** The rows of a batch's payload: packed (an ingest worker's) or already rows (encodeBatch, splitBatch). */
export function preparedRows(payload: unknown): unknown[][] {
  return isPackedRows(payload) ? unpackRows(payload) : (payload as unknown[][]);
}
