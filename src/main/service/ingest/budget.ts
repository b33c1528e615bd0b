/**
 * Decode budgets (issue 23.2): what one OTLP request may hold, checked on its bytes before anything
 * of it is built. A 64 KB gzip of 63 MiB of empty `ResourceSpans` once became 33 million decoded
 * objects, 4.9 GB of RSS and a 500 after minutes, holding up every body behind it. Here the encoded
 * request is walked once without allocating (protobuf: tags and lengths; JSON: structure, strings
 * skipped whole) counting what decoding would build, and the first count over its limit stops the
 * walk with a 413 naming that limit: a bomb costs the bytes already read and a fraction of a second.
 *
 * "One request" is what is decoded at once: an HTTP body (after gunzip), one JSONL line or one
 * length-prefixed protobuf message of a file, a single-document file. Every way in applies the same
 * budget (`/v1/traces`, `/import` upload and by path, `loupe import`); `/v1/logs` takes the same walk
 * with `signal: 'logs'` (records are log records). Limits are documented in docs/security.md.
 */
import zlib from 'node:zlib';
import { ServiceError } from '../../../shared/errors.js';

export interface DecodeLimits {
  /** Decoded bytes of one request (after gunzip); also the cap of an upload or HTTP body once decompressed. */
  bytes: number;
  /** Resources (`resourceSpans` / `resourceLogs` entries). */
  resources: number;
  /** Instrumentation scopes (`scopeSpans` / `scopeLogs` entries), over all resources. */
  scopes: number;
  /** Spans (or log records), over all scopes. */
  records: number;
  /** Attributes: key-values at any level (resource, scope, span, event, link, nested kvlists) and array elements. */
  attributes: number;
  /** Span events and links. */
  events: number;
  /** Nesting of attribute values (kvlists and arrays inside each other). Values are read 32 levels deep (deeper ones cut); past this the request is refused. */
  depth: number;
  /** JSON only: nesting of objects and arrays (the attribute depth above, as JSON, plus the request's own levels). */
  jsonDepth: number;
  /** JSON only: values of any kind (objects, arrays, strings, numbers...), each of which JSON.parse would build. */
  jsonValues: number;
}

/**
 * Sized from the largest legitimate request, not from what fits: a 64 MiB body of real spans holds
 * about 50k spans, 1.5M attributes and 5M JSON values; exporters batch 512 spans by default.
 */
export const DECODE_LIMITS: Readonly<DecodeLimits> = Object.freeze({
  bytes: 64 * 1024 * 1024,
  resources: 10_000,
  scopes: 10_000,
  records: 200_000,
  attributes: 2_000_000,
  events: 200_000,
  depth: 64,
  jsonDepth: 300,
  jsonValues: 8_000_000,
});

export type Signal = 'traces' | 'logs';

// Counter slots (a typed array: the walks bump them in their inner loops).
const RESOURCE = 0;
const SCOPE = 1;
const RECORD = 2;
const ATTRIBUTE = 3;
const EVENT = 4;
const VALUE = 5;
const NONE = -1;
type Counted = typeof RESOURCE | typeof SCOPE | typeof RECORD | typeof ATTRIBUTE | typeof EVENT | typeof VALUE;
const SLOT_LIMIT: (keyof DecodeLimits)[] = ['resources', 'scopes', 'records', 'attributes', 'events', 'jsonValues'];

function noun(limit: keyof DecodeLimits, signal: Signal): string {
  switch (limit) {
    case 'bytes': return 'of data once decompressed';
    case 'resources': return signal === 'logs' ? 'resources (resourceLogs)' : 'resources (resourceSpans)';
    case 'scopes': return signal === 'logs' ? 'scopes (scopeLogs)' : 'scopes (scopeSpans)';
    case 'records': return signal === 'logs' ? 'log records' : 'spans';
    case 'attributes': return 'attributes (key-values and array values at any level)';
    case 'events': return 'span events and links';
    case 'depth': return 'levels of nested attribute values';
    case 'jsonDepth': return 'levels of nested JSON';
    case 'jsonValues': return 'JSON values';
  }
}

/** A request over its budget: 413, naming the limit (`limit` is the DecodeLimits key). */
export class OverBudget extends ServiceError {
  constructor(
    readonly where: string,
    readonly limit: keyof DecodeLimits,
    readonly max: number,
    signal: Signal,
  ) {
    const amount = limit === 'bytes' ? `${+(max / 1048576).toFixed(2)} MiB` : max.toLocaleString('en-US');
    super(413, `${where}: more than ${amount} ${noun(limit, signal)} in one request (decode limit "${limit}"); nothing of it was stored`);
  }
}

/**
 * The counts of one request. Reuse across requests of an input only by calling `reset()`; a budget
 * is cheap to make.
 */
export class DecodeBudget {
  private readonly counts = new Float64Array(6);
  private readonly max: Float64Array;

  constructor(
    /** Names the input in the 413 ("body", "traces.jsonl line 12"). */
    public where: string,
    readonly signal: Signal = 'traces',
    readonly limits: Readonly<DecodeLimits> = DECODE_LIMITS,
  ) {
    this.max = Float64Array.from(SLOT_LIMIT, (k) => limits[k]);
  }

  reset(where = this.where): this {
    this.counts.fill(0);
    this.where = where;
    return this;
  }

  /** What was counted so far (tests, the bench). */
  seen(): Record<'resources' | 'scopes' | 'records' | 'attributes' | 'events' | 'jsonValues', number> {
    const c = this.counts;
    return { resources: c[RESOURCE]!, scopes: c[SCOPE]!, records: c[RECORD]!, attributes: c[ATTRIBUTE]!, events: c[EVENT]!, jsonValues: c[VALUE]! };
  }

  /** Throws when `n` decoded bytes are over the limit. */
  bytes(n: number): void {
    if (n > this.limits.bytes) throw this.over('bytes');
  }

  /** The counters and their maxima, for a walk that counts inline. */
  slots(): { counts: Float64Array; max: Float64Array } {
    return { counts: this.counts, max: this.max };
  }

  /** Adds one of a counted kind. */
  add(slot: Counted): void {
    if (++this.counts[slot]! > this.max[slot]!) throw this.over(SLOT_LIMIT[slot]!);
  }

  over(limit: keyof DecodeLimits): OverBudget {
    return new OverBudget(this.where, limit, this.limits[limit], this.signal);
  }
}

// ---------------------------------------------------------------------------------------------
// Protobuf: the wire format walked by a table of the OTLP messages that decoding would build.

/** A message: its length-delimited fields worth entering → [child message, what each one counts, adds a nesting level]. */
type Shape = Map<number, readonly [shape: number, count: Counted | typeof NONE, nests: boolean]>;

// Message indexes into SHAPES.
const M_KV = 0;
const M_ANY = 1;
const M_ARRAY = 2;
const M_KVLIST = 3;
const M_RESOURCE = 4; // Resource and InstrumentationScope differ only in the attributes' field number
const M_SCOPE_INFO = 5;
const M_EVENT = 6;
const M_LINK = 7;
const M_SPAN = 8;
const M_SCOPE_SPANS = 9;
const M_RESOURCE_SPANS = 10;
const M_TRACES = 11;
const M_LOG = 12;
const M_SCOPE_LOGS = 13;
const M_RESOURCE_LOGS = 14;
const M_LOGS = 15;

const shape = (entries: [number, number, Counted | typeof NONE, boolean?][]): Shape => new Map(entries.map(([f, m, c, n]) => [f, [m, c, n ?? false] as const]));

// Field numbers: opentelemetry-proto v1 (proto/trace-proto.ts; logs.proto for the log messages).
const SHAPES: Shape[] = [];
SHAPES[M_KV] = shape([[2, M_ANY, NONE]]);
SHAPES[M_ANY] = shape([[5, M_ARRAY, NONE, true], [6, M_KVLIST, NONE, true]]);
SHAPES[M_ARRAY] = shape([[1, M_ANY, ATTRIBUTE]]);
SHAPES[M_KVLIST] = shape([[1, M_KV, ATTRIBUTE]]);
SHAPES[M_RESOURCE] = shape([[1, M_KV, ATTRIBUTE]]);
SHAPES[M_SCOPE_INFO] = shape([[3, M_KV, ATTRIBUTE]]);
SHAPES[M_EVENT] = shape([[3, M_KV, ATTRIBUTE]]);
SHAPES[M_LINK] = shape([[4, M_KV, ATTRIBUTE]]);
SHAPES[M_SPAN] = shape([[9, M_KV, ATTRIBUTE], [11, M_EVENT, EVENT], [13, M_LINK, EVENT]]);
SHAPES[M_SCOPE_SPANS] = shape([[1, M_SCOPE_INFO, NONE], [2, M_SPAN, RECORD]]);
SHAPES[M_RESOURCE_SPANS] = shape([[1, M_RESOURCE, NONE], [2, M_SCOPE_SPANS, SCOPE], [1000, M_SCOPE_SPANS, SCOPE]]);
SHAPES[M_TRACES] = shape([[1, M_RESOURCE_SPANS, RESOURCE]]);
SHAPES[M_LOG] = shape([[5, M_ANY, NONE], [6, M_KV, ATTRIBUTE]]);
SHAPES[M_SCOPE_LOGS] = shape([[1, M_SCOPE_INFO, NONE], [2, M_LOG, RECORD]]);
SHAPES[M_RESOURCE_LOGS] = shape([[1, M_RESOURCE, NONE], [2, M_SCOPE_LOGS, SCOPE]]);
SHAPES[M_LOGS] = shape([[1, M_RESOURCE_LOGS, RESOURCE]]);

/**
 * Walks one encoded Export{Trace,Logs}ServiceRequest, counting into `budget`; throws OverBudget at
 * the first limit passed. Bytes that are not valid protobuf end the walk quietly: the decoder that
 * follows says what is wrong with them. Iterative (an explicit stack), so nesting cannot overflow.
 * `prefix`: `buf` is only the start of the request (checkGzipPrefix): messages cut short are counted
 * as far as they go.
 */
export function checkProtoBudget(buf: Uint8Array, budget: DecodeBudget, prefix = false): void {
  if (!prefix) budget.bytes(buf.length);
  const maxDepth = budget.limits.depth;
  // Per open message: where it ends, its shape, its nesting of attribute values.
  const ends: number[] = [buf.length];
  const shapes: number[] = [budget.signal === 'logs' ? M_LOGS : M_TRACES];
  const depths: number[] = [0];
  let top = 0;
  let pos = 0;
  const n = buf.length;
  // Varints are read inline (no closure): `pos` is advanced past them; -1 marks a malformed one.
  while (top >= 0) {
    if (pos >= ends[top]!) {
      pos = ends[top]!;
      top--;
      continue;
    }
    // tag
    let tag = 0;
    let shift = 0;
    let b: number;
    do {
      if (pos >= n || shift > 28) return;
      b = buf[pos++]!;
      tag += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b & 0x80);
    const wire = tag % 8;
    const field = Math.floor(tag / 8);
    if (wire === 0) {
      while (pos < n && buf[pos]! & 0x80) pos++;
      pos++;
    } else if (wire === 1) pos += 8;
    else if (wire === 5) pos += 4;
    else if (wire === 2) {
      let len = 0;
      shift = 0;
      do {
        if (pos >= n || shift > 49) return;
        b = buf[pos++]!;
        len += (b & 0x7f) * 2 ** shift;
        shift += 7;
      } while (b & 0x80);
      let end = pos + len;
      if (end > ends[top]!) {
        if (!prefix) return; // runs past its message: malformed, the decoder will say so
        end = ends[top]!; // the start of a longer request: count what is there
      }
      const child = SHAPES[shapes[top]!]!.get(field);
      if (!child) {
        pos = end;
        continue;
      }
      if (child[1] !== NONE) budget.add(child[1]);
      const depth = depths[top]! + (child[2] ? 1 : 0);
      if (depth > maxDepth) throw budget.over('depth');
      top++;
      ends[top] = end;
      shapes[top] = child[0];
      depths[top] = depth;
    } else return; // groups (3, 4) and unknown wire types: not OTLP, the decoder will say so
  }
}

// ---------------------------------------------------------------------------------------------
// JSON: structure walked over the text, strings skipped with indexOf, keys recognised in place.

/** What the elements of an array under this key count as, or whether entering this key's object nests a value. */
const KEY_ARRAY: ReadonlyMap<string, Counted> = new Map<string, Counted>([
  ['resourceSpans', RESOURCE], ['resource_spans', RESOURCE], ['resourceLogs', RESOURCE], ['resource_logs', RESOURCE],
  ['scopeSpans', SCOPE], ['scope_spans', SCOPE], ['instrumentationLibrarySpans', SCOPE], ['instrumentation_library_spans', SCOPE],
  ['scopeLogs', SCOPE], ['scope_logs', SCOPE],
  ['spans', RECORD], ['logRecords', RECORD], ['log_records', RECORD],
  ['attributes', ATTRIBUTE], ['values', ATTRIBUTE],
  ['events', EVENT], ['links', EVENT],
]);
const KEY_NESTS = new Set(['kvlistValue', 'kvlist_value', 'arrayValue', 'array_value']);
/**
 * Length, first and last character of the keys above: a key whose signature is not here is never
 * sliced out of the text ("value", "stringValue", "key" — most keys — cost a Set lookup of a number).
 */
const signature = (len: number, first: number, last: number) => len * 65536 + (first & 0xff) * 256 + (last & 0xff);
const KEY_SIGNATURES = new Set([...KEY_ARRAY.keys(), ...KEY_NESTS].map((k) => signature(k.length, k.charCodeAt(0), k.charCodeAt(k.length - 1))));

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Walks JSON (one value, or several: JSONL) counting into `budget`; throws OverBudget at the first
 * limit passed. Takes the text, or its UTF-8 bytes as received (a body is walked before it is made a
 * string: a refused one never costs that copy; every structural character is ASCII, and UTF-8 never
 * uses an ASCII byte inside a multi-byte character). Input that is not valid JSON is walked as far as
 * it goes and never throws for that: JSON.parse, which follows, names the error. Counting is inlined
 * (this runs over every JSON body before JSON.parse: ~15 % of JSON.parse's time on real spans).
 */
export function checkJsonBudget(json: string | Uint8Array, budget: DecodeBudget): void {
  const text = typeof json === 'string' ? json : null;
  const bytes = typeof json === 'string' ? null : json;
  budget.bytes(json.length);
  const maxJsonDepth = budget.limits.jsonDepth;
  const maxDepth = budget.limits.depth;
  const { counts, max } = budget.slots();
  // Per open container: what its elements count as (NONE for objects), its value nesting.
  const role = new Int8Array(maxJsonDepth + 2);
  const nest = new Uint16Array(maxJsonDepth + 2);
  let isArray = false; // the innermost open container is an array
  const arrays = new Uint8Array(maxJsonDepth + 2);
  let top = -1;
  let keyNext = false; // in an object, the next string is a key
  let pendingRole: number = NONE;
  let pendingNest = 0;
  let values = counts[VALUE]!;
  const maxValues = max[VALUE]!;
  const n = json.length;
  const at = (k: number): number => (text !== null ? text.charCodeAt(k) : bytes![k]!);
  const quoteFrom = (k: number): number => (text !== null ? text.indexOf('"', k) : bytes!.indexOf(QUOTE, k));
  let i = 0;
  try {
    while (i < n) {
      const c = at(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x3a /* : */) {
        if (c === 0x3a) keyNext = false;
        i++;
        continue;
      }
      if (c === 0x2c /* , */) {
        keyNext = top >= 0 && !isArray;
        pendingRole = NONE;
        pendingNest = 0;
        i++;
        continue;
      }
      if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
        if (top >= 0) top--;
        isArray = top >= 0 && arrays[top] === 1;
        keyNext = false;
        pendingRole = NONE;
        pendingNest = 0;
        i++;
        continue;
      }
      const key = c === QUOTE && keyNext;
      if (!key) {
        // A value starts: counted, and as an element of what its array holds.
        if (++values > maxValues) throw budget.over('jsonValues');
        if (top >= 0) {
          const r = role[top]!;
          if (r !== NONE && ++counts[r]! > max[r]!) throw budget.over(SLOT_LIMIT[r]!);
        }
      }
      if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
        if (++top > maxJsonDepth) throw budget.over('jsonDepth');
        const depth = (top > 0 ? nest[top - 1]! : 0) + pendingNest;
        if (depth > maxDepth) throw budget.over('depth');
        isArray = c === 0x5b;
        arrays[top] = isArray ? 1 : 0;
        role[top] = isArray ? pendingRole : NONE;
        nest[top] = depth;
        keyNext = !isArray;
        pendingRole = NONE;
        pendingNest = 0;
        i++;
        continue;
      }
      if (c === QUOTE) {
        let end = quoteFrom(i + 1);
        while (end !== -1 && at(end - 1) === BACKSLASH) {
          let k = end - 2;
          while (at(k) === BACKSLASH) k--;
          if ((end - 1 - k) % 2 === 0) break; // an even run of backslashes: the quote is real
          end = quoteFrom(end + 1);
        }
        if (end === -1) return; // unterminated: JSON.parse will say so
        if (key) {
          const len = end - i - 1;
          if (len > 0 && KEY_SIGNATURES.has(signature(len, at(i + 1), at(end - 1)))) {
            const name = text !== null ? text.slice(i + 1, end) : Buffer.from(bytes!.buffer, bytes!.byteOffset + i + 1, len).toString('latin1');
            pendingRole = KEY_ARRAY.get(name) ?? NONE;
            pendingNest = KEY_NESTS.has(name) ? 1 : 0;
          }
          keyNext = false;
        }
        i = end + 1;
        continue;
      }
      // A number or a literal (true, false, null): up to the next structural character.
      i++;
      while (i < n) {
        const d = at(i);
        if (d === 0x2c || d === 0x5d || d === 0x7d || d === 0x20 || d === 0x0a || d === 0x0d || d === 0x09 || d === 0x3a || d === QUOTE || d === 0x7b || d === 0x5b) break;
        i++;
      }
    }
  } finally {
    counts[VALUE] = Math.min(values, maxValues + 1);
  }
}

// ---------------------------------------------------------------------------------------------
// gzip: a look at the start before decompressing it all.

/** Compressed bytes inflated for the early look: at most ~1,000× as much output (deflate's ceiling). */
const PREFIX_INPUT = 2048;
/** How much of a body to have before the early look (checkBodyStart): plain, gzip'd. */
export const EARLY_LOOK_BYTES = { plain: 1024 * 1024, gzip: PREFIX_INPUT + 1 };

/**
 * The early look at a body still arriving (transport/otlp.ts): refuses it when its start is already
 * over the budget, plain (counted as far as it goes) or gzip'd (checkGzipPrefix).
 */
export function checkBodyStart(head: Uint8Array, kind: 'json' | 'proto', gzip: boolean, budget: DecodeBudget): void {
  if (gzip) checkGzipPrefix(head, kind, budget);
  else if (kind === 'json') checkJsonBudget(head, budget);
  else checkProtoBudget(head, budget, true);
  budget.reset();
}

/**
 * Refuses a gzip body whose first ~2 MiB, once decompressed, are already over the budget — the usual
 * bomb (millions of empty resources or spans) — before decompressing the rest: its 413 then costs
 * milliseconds instead of inflating 64 MiB first. Counts only; says nothing of a body that passes
 * (the whole body is checked after), and nothing of a broken one (the decompression says so).
 * `kind` 'sniff': JSON when it starts with `{` or `[`, else protobuf.
 */
export function checkGzipPrefix(body: Uint8Array, kind: 'json' | 'proto' | 'sniff', budget: DecodeBudget): void {
  if (body.length <= PREFIX_INPUT) return; // small enough to decompress whole anyway
  let head: Buffer;
  try {
    head = zlib.gunzipSync(body.subarray(0, PREFIX_INPUT), { finishFlush: zlib.constants.Z_SYNC_FLUSH });
  } catch {
    return;
  }
  let first = 0;
  while (first < head.length && (head[first] === 0x20 || head[first] === 0x0a || head[first] === 0x0d || head[first] === 0x09)) first++;
  const json = kind === 'json' || (kind === 'sniff' && (head[first] === 0x7b || head[first] === 0x5b));
  if (json) checkJsonBudget(head, budget);
  else checkProtoBudget(head, budget, true);
  budget.reset();
}

/**
 * Options for decompressing a whole gzip body within the budget. The body's trailer says how large it
 * is once decompressed (ISIZE: of its last member, modulo 4 GiB): within the limit, the output buffer
 * is made that size at once, so the decompression neither grows it chunk by chunk nor concatenates
 * the chunks at the end (one copy of the body in memory, not two). A claim over the limit is not
 * refused on its word: the last four bytes of a truncated body are deflate data, not a claim, and
 * its sender is owed "truncated" (400), not "too large" (413). Such a body is inflated in 1 MiB
 * chunks no further than the limit: a bomb costs at most the limit's memory, dropped at the 413.
 */
export function gunzipOptions(body: Uint8Array, budget: DecodeBudget): zlib.ZlibOptions {
  const limit = budget.limits.bytes;
  const claimed = body.length >= 18 ? Buffer.from(body.buffer, body.byteOffset, body.byteLength).readUInt32LE(body.length - 4) : 0;
  if (claimed > limit) return { maxOutputLength: limit, chunkSize: 1024 * 1024 };
  return { maxOutputLength: limit, chunkSize: Math.max(64 * 1024, Math.min(claimed + 1, limit + 1)) };
}
