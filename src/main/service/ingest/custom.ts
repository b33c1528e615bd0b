/**
 * Attributes the mapping table does not read go to the typed custom maps, by JSON type (semantics
 * §3): booleans first (a bool is never an int), integers (int64 beyond 2^53 kept exact as bigint),
 * floats (NaN/Infinity dropped), strings (cut at 256 KiB with a marker); arrays and objects are
 * stored as JSON text in the string map. At most 1024 keys per span; `ai.request.headers.*` dropped.
 */
import { isDroppedKey, isMappedKey } from './mapping.js';
import type { Obj } from './lenient.js';

export const MAX_CUSTOM_KEYS = 1024;
export const MAX_STRING_BYTES = 256 * 1024;
export const TRUNCATION_MARKER = '…[truncated by Loupe]';

export interface CustomMaps {
  custom_attrs_bool: Record<string, boolean>;
  custom_attrs_int: Record<string, number>;
  custom_attrs_float: Record<string, number>;
  custom_attrs_string: Record<string, string>;
  /** True when a credential attribute was dropped (the raw dump must drop it too). */
  dropped: boolean;
}

/** Cuts a string to at most MAX_STRING_BYTES of UTF-8 (marker included), on a character boundary. */
export function capString(s: string): string {
  // Fast path: fewer UTF-16 units than bytes/3 can never exceed the byte cap.
  if (s.length * 3 <= MAX_STRING_BYTES || Buffer.byteLength(s) <= MAX_STRING_BYTES) return s;
  const budget = MAX_STRING_BYTES - Buffer.byteLength(TRUNCATION_MARKER);
  const cut = Buffer.from(s).subarray(0, budget).toString('utf8').replace(/\uFFFD$/, '');
  return cut + TRUNCATION_MARKER;
}

const bigintSafe = (_k: string, x: unknown) => (typeof x === 'bigint' ? x.toString() : x);

export function customAttributes(attrs: Obj): CustomMaps {
  const out: CustomMaps = { custom_attrs_bool: {}, custom_attrs_int: {}, custom_attrs_float: {}, custom_attrs_string: {}, dropped: false };
  let n = 0;
  for (const key in attrs) {
    if (isMappedKey(key)) continue;
    if (isDroppedKey(key)) {
      out.dropped = true;
      continue;
    }
    if (n >= MAX_CUSTOM_KEYS) continue;
    const v = attrs[key];
    if (v === null || v === undefined) continue;
    switch (typeof v) {
      case 'boolean':
        out.custom_attrs_bool[key] = v;
        break;
      case 'bigint':
        (out.custom_attrs_int as Record<string, number | bigint>)[key] = v;
        break;
      case 'number':
        if (!Number.isFinite(v)) continue;
        if (Number.isInteger(v)) out.custom_attrs_int[key] = v;
        else out.custom_attrs_float[key] = v;
        break;
      case 'string':
        out.custom_attrs_string[key] = capString(v);
        break;
      default:
        out.custom_attrs_string[key] = capString(JSON.stringify(v, bigintSafe));
    }
    n++;
  }
  return out;
}
