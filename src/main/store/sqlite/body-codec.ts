/**
 * The heavy fields of a span (messages, tool text, instructions, events, links, the span as
 * received) stored as one zstd frame per span, compressed with a dictionary made from the store's
 * own spans (issue 8 item 5; docs/store.md "File layout" has the measurements behind each choice).
 *
 * - One frame per span, not per field: the fields share words (the raw span repeats the tool text,
 *   the messages repeat each other), and a frame's fixed cost is paid once.
 * - The dictionary is raw content — a sample of the first bodies a writer sees, most recent last —
 *   because no maintained npm zstd library exposes dictionary training; measured on the bench's
 *   spans it gets ~80 % of what a trained dictionary gets, and twice what one trained on other
 *   emitters' spans gets. A dictionary is named by a hash of its bytes, so a worker thread can
 *   compress with one the store has not stored yet (the writer stores it with the batch).
 * - The raw span leaves out the message attributes its parsed messages print back exactly and the ids
 *   and times its light row holds (migration 0014), put back when read: domain/raw-span.ts (the rule
 *   the ClickHouse adapter follows too).
 */
import { createHash } from 'node:crypto';
import { Compressor, Decompressor } from 'zstd-napi';

/** Fields of a body, in their stored order. */
export const BODY_FIELDS = [
  'system_instructions', 'tool_definitions', 'tool_call_arguments', 'tool_call_result', 'input_messages', 'output_messages',
  'events', 'links', 'raw_span',
] as const;
export type BodyField = (typeof BODY_FIELDS)[number];
/** The fields as text (JSON text for the structured ones), null where a span has none. */
export type SpanBody = Record<BodyField, string | null>;

/**
 * zstd level. Measured on the bench's bodies with their dictionary (docs/store.md): 3 → 6 saves 13 %
 * of the bytes for ~8 µs more CPU a span on the ingest worker; 9 another 5 % for ~10 µs more.
 */
const LEVEL = 6;
/**
 * Dictionary sizes. 16 and 64 KiB of raw content compressed the bench's spans within 5 % of each other
 * (the first bodies a store sees are alike); on the conversation-history workload 32 → 128 KiB takes
 * the bodies from 142.9 to 127.7 bytes each for the same compression CPU (docs/store.md "Bodies
 * without the frame's magic number; a second, bigger dictionary"). A writing thread uses the small one
 * first and the big one past BIG_DICTIONARY_AT bodies (bodies.ts), so an import of a few thousand spans
 * does not store 128 KiB of dictionary.
 */
export const DICTIONARY_BYTES = 32 * 1024;
export const BIG_DICTIONARY_BYTES = 128 * 1024;
const NULL_LENGTH = 0xffffffff;
/**
 * The four bytes every zstd frame starts with. A body is stored without them (−4 bytes a span) and
 * they are put back before decompressing; bodies stored with them (before this) read as they are. A
 * frame without them starts with its frame header descriptor, whose reserved bit (0x08) is 0, so it
 * never starts with 0x28 as the magic number does: the two forms cannot be mistaken for each other.
 */
const FRAME_MAGIC = Buffer.from([0x28, 0xb5, 0x2f, 0xfd]);

// ---------------------------------------------------------------- body bytes

/** Length-prefixed UTF-8 fields (a u32 length each, 0xffffffff for null): cheaper to cut than JSON to parse. */
export function packBody(body: SpanBody): Buffer {
  return Buffer.from(packInto(body));
}

let scratch = Buffer.allocUnsafe(64 * 1024);

/**
 * Node's per-encoding Buffer methods (what `write` / `toString` call once they have checked their
 * arguments; on Buffer.prototype since Node's first versions, untyped): called per string value, the
 * checks cost as much as the copy (here and packed-rows.ts).
 */
export interface FastBuffer extends Buffer {
  utf8Write(s: string, offset: number, length?: number): number;
  ucs2Write(s: string, offset: number, length?: number): number;
  latin1Slice(start: number, end: number): string;
  ucs2Slice(start: number, end: number): string;
}

/**
 * packBody into a buffer reused from call to call (valid until the next call): the encoder only
 * hands it to the compressor, so a span's body costs no allocation (it was one per field and one
 * for the whole, a fair share of the ingest worker's garbage).
 */
function packInto(body: SpanBody): Buffer {
  let bound = 0;
  for (const f of BODY_FIELDS) bound += 4 + (body[f]?.length ?? 0) * 3; // UTF-8 takes at most 3 bytes per UTF-16 unit
  if (scratch.length < bound) scratch = Buffer.allocUnsafe(Math.max(bound, scratch.length * 2));
  const out = scratch;
  let at = 0;
  for (const f of BODY_FIELDS) {
    const text = body[f];
    if (text == null) {
      out.writeUInt32LE(NULL_LENGTH, at);
      at += 4;
    } else {
      // Node's utf8Write (what `write(text, offset, 'utf8')` calls once it has checked its arguments): nine
      // fields a span, the checks cost about as much as the copy of a short field. Room is ensured above.
      const n = text.length ? (out as FastBuffer).utf8Write(text, at + 4) : 0;
      out.writeUInt32LE(n, at);
      at += 4 + n;
    }
  }
  return out.subarray(0, at);
}

export function unpackBody(buf: Buffer): SpanBody {
  return unpackFields(buf, null) as SpanBody;
}

/** Some fields of a packed body (`only`; null: all): the others are stepped over, never made into strings. */
export function unpackFields(buf: Buffer, only: ReadonlySet<BodyField> | null): Partial<SpanBody> {
  const body: Partial<SpanBody> = {};
  let at = 0;
  for (const f of BODY_FIELDS) {
    if (at + 4 > buf.length) throw new Error(`span body cut short before its ${f} field`);
    const n = buf.readUInt32LE(at);
    at += 4;
    if (n === NULL_LENGTH) {
      if (!only || only.has(f)) body[f] = null;
    } else {
      if (at + n > buf.length) throw new Error(`span body cut short inside its ${f} field`);
      if (!only || only.has(f)) body[f] = buf.toString('utf8', at, at + n);
      at += n;
    }
  }
  return body;
}

// ---------------------------------------------------------------- dictionaries

/** A dictionary's name: a hash of its bytes (stable across threads and processes). */
export const dictionaryHash = (dict: Buffer): string => createHash('sha256').update(dict).digest('hex').slice(0, 32);

/**
 * Raw-content dictionary from sample bodies: distinct samples, the first ones last (zstd finds the
 * end of a dictionary cheapest to refer to, and the first spans a store sees are its most typical
 * shapes), cut to DICTIONARY_BYTES. Null when the samples are too few to help.
 */
export function buildDictionary(samples: readonly Buffer[], maxBytes = DICTIONARY_BYTES): Buffer | null {
  const seen = new Set<string>();
  const picked: Buffer[] = [];
  let size = 0;
  for (const s of samples) {
    if (size >= maxBytes) break;
    const key = s.toString('latin1');
    if (seen.has(key)) continue;
    seen.add(key);
    picked.push(s);
    size += s.length;
  }
  if (size < 1024) return null;
  const dict = Buffer.concat(picked.reverse());
  return dict.length > maxBytes ? dict.subarray(dict.length - maxBytes) : dict;
}

/** Compresses bodies with one dictionary (or none); one per writing thread. */
export class BodyEncoder {
  readonly dictionary: Buffer | null;
  /** dictionaryHash of the dictionary, null without one. */
  readonly hash: string | null;
  // One compression context reused for every body (a context per call costs more than compressing).
  private readonly compressor = new Compressor();
  constructor(dictionary: Buffer | null) {
    this.dictionary = dictionary;
    this.hash = dictionary ? dictionaryHash(dictionary) : null;
    this.compressor.setParameters({ compressionLevel: LEVEL });
    if (dictionary) this.compressor.loadDictionary(dictionary);
  }
  /** A zstd frame without its magic number (FRAME_MAGIC). */
  encode(body: SpanBody): Buffer {
    return this.compressor.compress(packInto(body)).subarray(FRAME_MAGIC.length);
  }
}

/** Whether a stored body is a whole zstd frame (stored before frames lost their magic number). */
const hasMagic = (blob: Buffer): boolean =>
  blob.length >= 4 && blob[0] === FRAME_MAGIC[0] && blob[1] === FRAME_MAGIC[1] && blob[2] === FRAME_MAGIC[2] && blob[3] === FRAME_MAGIC[3];

/** Decompresses bodies; decoders are made once per dictionary a reader meets. */
export class BodyDecoder {
  private readonly decoders = new Map<number, Decompressor>();
  /** `dictionary(id)`: the bytes of a stored dictionary (null: the store has no such dictionary). */
  constructor(private readonly dictionary: (id: number) => Buffer | null) {}
  decode(dictId: number, blob: Buffer): SpanBody {
    return unpackBody(this.decompress(dictId, blob));
  }
  /** Some fields of a body (the others are not made into strings). */
  decodeFields(dictId: number, blob: Buffer, only: ReadonlySet<BodyField>): Partial<SpanBody> {
    return unpackFields(this.decompress(dictId, blob), only);
  }
  private decompress(dictId: number, blob: Buffer): Buffer {
    let d = this.decoders.get(dictId);
    if (!d) {
      const bytes = dictId === 0 ? null : this.dictionary(dictId);
      if (dictId !== 0 && !bytes) throw new Error(`span body compressed with dictionary ${dictId}, which the store does not hold`);
      d = new Decompressor();
      if (bytes) d.loadDictionary(bytes);
      this.decoders.set(dictId, d);
    }
    return d.decompress(hasMagic(blob) ? blob : Buffer.concat([FRAME_MAGIC, blob]));
  }
}
