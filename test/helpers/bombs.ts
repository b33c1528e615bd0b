/**
 * Hostile OTLP bodies (issue 23.2), the shapes the abuse suite found: each small to send or cheap to
 * build, each expanding to far more than Loupe should decode. Shared by the fault suite
 * (test/http/decode-bombs.test.ts) and the bench (bench/sections/75-bombs.ts), so the figures are
 * of the very bodies the tests refuse.
 */
import { gzipSync } from 'node:zlib';
import { generateDemo } from '../../src/main/demo/generate.js';

export interface Bomb {
  name: string;
  /** What the body holds, in words. */
  what: string;
  body: Buffer;
  contentType: 'application/x-protobuf' | 'application/json';
  gzip: boolean;
  /** The decode limit its 413 names (budget.ts DecodeLimits key). */
  limit: 'bytes' | 'resources' | 'records' | 'attributes' | 'depth' | 'jsonValues' | 'jsonDepth';
}

const MiB = 1024 * 1024;

/** A protobuf varint. */
function varint(n: number): Buffer {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
  return Buffer.from(out);
}
/** A length-delimited protobuf field. */
const field = (num: number, payload: Buffer) => Buffer.concat([varint(num * 8 + 2), varint(payload.length), payload]);

/** `count` copies of `unit`, filled in place (no array of chunks). */
function repeat(unit: Buffer, count: number): Buffer {
  const out = Buffer.allocUnsafe(unit.length * count);
  out.fill(unit);
  return out;
}

/** 63 MiB of empty ResourceSpans (field 1, length 0), gzip'd to ~64 KB: 33 million resources. */
export function protoEmptyResourcesGzip(): Bomb {
  return { name: 'proto-gzip-empty-resources', what: 'gzip of 63 MiB of empty ResourceSpans', body: gzipSync(repeat(Buffer.from([0x0a, 0x00]), (63 * MiB) / 2), { level: 9 }), contentType: 'application/x-protobuf', gzip: true, limit: 'resources' };
}

/** 60 MiB raw of empty spans in one scope: 31 million spans. */
export function protoEmptySpans(): Bomb {
  const spans = repeat(Buffer.from([0x12, 0x00]), (60 * MiB) / 2);
  return { name: 'proto-raw-empty-spans', what: '60 MiB raw of empty spans', body: field(1, field(2, spans)), contentType: 'application/x-protobuf', gzip: false, limit: 'records' };
}

/** An attribute value nested 2,000 kvlists deep, in protobuf (protobufjs recurses a frame per message). */
export function protoDeepValue(levels = 2_000): Bomb {
  // Built inside out: AnyValue{kvlist_value: KeyValueList{values: KeyValue{key, value: AnyValue{...}}}}
  let any = field(1, Buffer.from('bottom'));
  for (let i = 0; i < levels; i++) any = field(6, field(1, Buffer.concat([field(1, Buffer.from('k')), field(2, any)])));
  const span = Buffer.concat([field(1, Buffer.alloc(16, 1)), field(2, Buffer.alloc(8, 2)), field(9, Buffer.concat([field(1, Buffer.from('deep')), field(2, any)]))]);
  return { name: 'proto-deep-value', what: `an attribute nested ${levels.toLocaleString('en-US')} levels`, body: field(1, field(2, field(2, span))), contentType: 'application/x-protobuf', gzip: false, limit: 'depth' };
}

/** 60 MiB of `{}` spans in OTLP/JSON: 20 million spans. */
export function jsonEmptySpans(): Bomb {
  const head = '{"resourceSpans":[{"scopeSpans":[{"spans":[';
  const tail = '{}]}]}]}';
  const n = Math.floor((60 * MiB - head.length - tail.length) / 3);
  return { name: 'json-empty-spans', what: '60 MiB of empty JSON spans', body: Buffer.concat([Buffer.from(head), repeat(Buffer.from('{},'), n), Buffer.from(tail)]), contentType: 'application/json', gzip: false, limit: 'records' };
}

/** gzip of a 60 MiB JSON array of zeros under a key OTLP does not have: 31 million values. */
export function jsonZerosGzip(): Bomb {
  const head = '{"resourceSpans":[{"padding":[';
  const tail = '0]}]}';
  const n = Math.floor((60 * MiB - head.length - tail.length) / 2);
  return { name: 'json-gzip-zeros', what: 'gzip of 60 MiB of zeros under an unknown key', body: gzipSync(Buffer.concat([Buffer.from(head), repeat(Buffer.from('0,'), n), Buffer.from(tail)]), { level: 9 }), contentType: 'application/json', gzip: true, limit: 'jsonValues' };
}

/** 3 million empty resource attributes in OTLP/JSON (9 MiB). */
export function jsonManyAttributes(): Bomb {
  const head = '{"resourceSpans":[{"resource":{"attributes":[';
  const tail = '{}]}}]}';
  return { name: 'json-many-attributes', what: '3 million empty attributes', body: Buffer.concat([Buffer.from(head), repeat(Buffer.from('{},'), 3_000_000), Buffer.from(tail)]), contentType: 'application/json', gzip: false, limit: 'attributes' };
}

/** gzip of 100 MiB: a single attribute value of 100 MiB, over the 64 MiB decoded per request. */
export function jsonHugeAttributeGzip(): Bomb {
  const head = '{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0123456789abcdef0123456789abcdef","spanId":"0123456789abcdef","name":"s","attributes":[{"key":"big","value":{"stringValue":"';
  const tail = '"}}]}]}]}]}';
  return { name: 'json-gzip-huge-attribute', what: 'gzip of a 100 MiB attribute', body: gzipSync(Buffer.concat([Buffer.from(head), Buffer.alloc(100 * MiB, 0x61), Buffer.from(tail)]), { level: 9 }), contentType: 'application/json', gzip: true, limit: 'bytes' };
}

/** Every bomb, built on demand (each allocates up to ~120 MiB while built; build one at a time). */
export const BOMBS: (() => Bomb)[] = [protoEmptyResourcesGzip, protoEmptySpans, protoDeepValue, jsonEmptySpans, jsonZerosGzip, jsonManyAttributes, jsonHugeAttributeGzip];

/** A valid OTLP/JSON request of about `bytes` (the demo's conversations), to post beside a bomb. */
export function validBody(bytes: number, seed = 1): Buffer {
  const resourceSpans: unknown[] = [];
  let size = 0;
  for (let s = seed; size < bytes; s += 1000) {
    for (const r of generateDemo({ seed: s, now: Date.UTC(2026, 10, 22), fillers: 10 }).requests as { resourceSpans: unknown[] }[]) {
      for (const rs of r.resourceSpans) {
        resourceSpans.push(rs);
        size += JSON.stringify(rs).length;
        if (size >= bytes) break;
      }
      if (size >= bytes) break;
    }
  }
  return Buffer.from(JSON.stringify({ resourceSpans }));
}
