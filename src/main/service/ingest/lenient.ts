/**
 * Lenient readers for OTLP as real exporters write it (semantics §3): ids as hex or base64, enums as
 * integers or names, int64 as string or number (no precision loss), camelCase or snake_case keys,
 * AnyValue trees, and JSON strings holding JSON. Each returns null for "absent", never throws.
 */

import { nestedDeeperThan } from '../../../shared/bounded.js';
import { textOf } from '../../../shared/text.js';

export { nestedDeeperThan };

export type Obj = Record<string, unknown>;

export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** obj[camel] ?? obj[snake]: OTLP/JSON is lowerCamelCase but snake_case files exist in the wild. */
export function field(o: Obj, camel: string, snake: string): unknown {
  const v = o[camel];
  return v === undefined ? o[snake] : v;
}

const HEX = /^[0-9a-fA-F]+$/;
const B64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/**
 * A trace (16 bytes) or span (8 bytes) id as lower-case hex. Accepts hex of either case, base64
 * (what protobuf-to-JSON converters emit) and raw bytes. Empty or all-zero ids are "absent" (null).
 */
export function readId(v: unknown, byteLen: 16 | 8): string | null {
  let hex: string | null = null;
  if (typeof v === 'string') {
    if (v.length === 0) return null;
    if (v.length === byteLen * 2 && HEX.test(v)) hex = v.toLowerCase();
    else if (B64.test(v)) {
      const buf = Buffer.from(v, v.includes('-') || v.includes('_') ? 'base64url' : 'base64');
      if (buf.length === byteLen) hex = buf.toString('hex');
    }
  } else if (v instanceof Uint8Array) {
    if (v.length === 0) return null;
    if (v.length === byteLen) hex = Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex');
  }
  if (hex === null) return null;
  return /^0+$/.test(hex) ? null : hex;
}

/** True when `v` is present but not a readable id (so the caller can report what was wrong). */
export const isBadId = (v: unknown, byteLen: 16 | 8): boolean =>
  v !== undefined && v !== null && v !== '' && readId(v, byteLen) === null && !/^0+$/.test(textOf(v));

/** int64 (string or number; strings may exceed 2^53) as bigint; null when absent or unreadable. */
export function readInt64(v: unknown): bigint | null {
  if (typeof v === 'string') {
    if (!/^-?\d+$/.test(v)) return null;
    return BigInt(v);
  }
  if (typeof v === 'number' && Number.isFinite(v)) return BigInt(Math.trunc(v));
  if (typeof v === 'bigint') return v;
  return null;
}

/** A timestamp in nanoseconds; 0 means unset in OTLP. */
export function readTimeNs(v: unknown): bigint | null {
  const n = readInt64(v);
  return n === null || n === 0n ? null : n;
}

/** int64 as a JS number when exact, else a bigint. */
export function readIntValue(v: unknown): number | bigint | null {
  if (typeof v === 'number') return Number.isFinite(v) ? Math.trunc(v) : null;
  if (typeof v === 'string') {
    if (!/^-?\d+$/.test(v)) return null;
    const n = Number(v);
    return Number.isSafeInteger(n) ? n : BigInt(v);
  }
  if (typeof v === 'bigint') return v;
  return null;
}

/**
 * An enum given as integer, full name (`SPAN_KIND_CLIENT`), short name (`CLIENT`, `client`).
 * `names[i]` is the short name of value i.
 */
export function readEnum<T extends string>(v: unknown, prefix: string, names: readonly T[], dflt: T): T {
  if (typeof v === 'number') return names[v] ?? dflt;
  if (typeof v === 'string') {
    if (/^\d+$/.test(v)) return names[Number(v)] ?? dflt;
    let s = v.toUpperCase();
    if (s.startsWith(prefix)) s = s.slice(prefix.length);
    return (names as readonly string[]).includes(s) ? (s as T) : dflt;
  }
  return dflt;
}

/**
 * How deep AnyValue trees (arrayValue / kvlistValue inside each other) are read. Real attributes nest
 * a few levels; a hostile or broken exporter can nest thousands, which would overflow the stack of
 * this recursive reader (and of JSON.stringify later) and cost the whole request. Deeper values are
 * kept as a marker string, so the span and its other attributes are still stored.
 */
export const MAX_ANY_VALUE_DEPTH = 32;
export const TOO_DEEP_MARKER = `[value nested deeper than ${MAX_ANY_VALUE_DEPTH} levels was dropped]`;

/**
 * An OTLP AnyValue as a plain JS value: strings, booleans, numbers (int64 beyond 2^53 as bigint),
 * arrays and objects for arrayValue / kvlistValue, base64 text for bytes. `{}` (empty) → null.
 */
export function anyValue(v: unknown, depth = 0): unknown {
  if (!isObj(v)) return v === undefined ? null : bareValue(v, depth); // a bare JSON value (some hand-written files)
  if (depth >= MAX_ANY_VALUE_DEPTH) return TOO_DEEP_MARKER;
  let x: unknown;
  if ((x = field(v, 'stringValue', 'string_value')) !== undefined) return x;
  if ((x = field(v, 'intValue', 'int_value')) !== undefined) return readIntValue(x);
  if ((x = field(v, 'doubleValue', 'double_value')) !== undefined) return typeof x === 'string' ? Number(x) : x;
  if ((x = field(v, 'boolValue', 'bool_value')) !== undefined) return x === true || x === 'true';
  if ((x = field(v, 'arrayValue', 'array_value')) !== undefined) {
    const vals = isObj(x) ? x.values : undefined;
    return Array.isArray(vals) ? vals.map((e) => anyValue(e, depth + 1)) : [];
  }
  if ((x = field(v, 'kvlistValue', 'kvlist_value')) !== undefined) {
    const vals = isObj(x) ? x.values : undefined;
    return Array.isArray(vals) ? attributes(vals, depth + 1) : {};
  }
  if ((x = field(v, 'bytesValue', 'bytes_value')) !== undefined) {
    return x instanceof Uint8Array ? Buffer.from(x).toString('base64') : x;
  }
  return null;
}

/** A bare JSON value is kept as it is, unless it nests past the limit (then the marker). */
function bareValue(v: unknown, depth: number): unknown {
  return typeof v === 'object' && v !== null && nestedDeeperThan(v, MAX_ANY_VALUE_DEPTH - depth) ? TOO_DEEP_MARKER : v;
}

/** An OTLP KeyValue list as an object (later duplicates win, as in the SDKs). */
export function attributes(list: unknown, depth = 0): Obj {
  const out: Obj = {};
  if (!Array.isArray(list)) return out;
  for (const kv of list) {
    if (!isObj(kv) || typeof kv.key !== 'string') continue;
    out[kv.key] = anyValue(kv.value, depth);
  }
  return out;
}

/** A string that holds JSON (object or array) parsed; anything else returned unchanged. */
export function jsonish(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const c = v.trimStart()[0];
  if (c !== '{' && c !== '[') return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

export function str(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v === '' ? null : v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x));
}

export function num(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

export function int(v: unknown): number | null {
  const n = num(v);
  return n === null ? null : Math.trunc(n);
}

/** A list of strings from an array, a JSON string of an array, or a comma-separated string. */
export function strList(v: unknown): string[] {
  if (v === null || v === undefined || v === '') return [];
  const j = jsonish(v);
  if (Array.isArray(j)) return j.map((x) => str(x)).filter((x): x is string => x !== null);
  if (typeof j === 'string') return j.split(',').map((s) => s.trim()).filter(Boolean);
  const s = str(j);
  return s === null ? [] : [s];
}
