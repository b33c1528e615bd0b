/**
 * OTLP protobuf, decoded with protobufjs from the schema in ./proto (semantics §3): raw
 * ExportTraceServiceRequest bytes, or the collector file exporter's proto mode (each message
 * prefixed by its 4-byte big-endian length). Decoded messages are turned into the OTLP/JSON object
 * form (hex ids, int64 as decimal strings, enums as integers) so one normalizer serves both.
 */
import protobuf from 'protobufjs';
import { OTLP_TRACE_PROTO } from './proto/trace-proto.js';
import type { Obj } from './lenient.js';
import { DECODE_LIMITS, checkProtoBudget, type DecodeBudget } from './budget.js';

// protobufjs refuses messages nested past 100 (protoc's default): an attribute value nests three
// messages a level, so ~31 levels in protobuf where JSON had no limit. The decode budget bounds the
// nesting of both before decoding (`depth`, budget.ts); this lifts protobufjs' own limit above it.
const NESTING = 3 * DECODE_LIMITS.depth + 16;
protobuf.util.recursionLimit = NESTING;
protobuf.Reader.recursionLimit = NESTING;

const root = protobuf.parse(OTLP_TRACE_PROTO, { keepCase: false }).root;
const Request = root.lookupType('opentelemetry.proto.ExportTraceServiceRequest');
const Response = root.lookupType('opentelemetry.proto.ExportTraceServiceResponse');

const TO_OBJECT: protobuf.IConversionOptions = { longs: String, enums: Number, bytes: String, defaults: false, arrays: false };

/** Rewrites base64 ids of a decoded message (and its links) as hex, the OTLP/JSON spelling. */
function hexIds(o: Obj): void {
  for (const k of ['traceId', 'spanId', 'parentSpanId']) {
    const v = o[k];
    if (typeof v === 'string') o[k] = Buffer.from(v, 'base64').toString('hex');
  }
}

/**
 * Decodes one ExportTraceServiceRequest; throws with protobufjs' message when the bytes are not one,
 * and OverBudget (413) before decoding anything when they hold more than `budget` allows.
 */
export function decodeRequest(buf: Uint8Array, budget: DecodeBudget): Obj {
  checkProtoBudget(buf, budget);
  const msg = Request.decode(buf);
  const obj = Request.toObject(msg, TO_OBJECT);
  for (const rs of (obj.resourceSpans as Obj[] | undefined) ?? []) {
    const legacy = rs.instrumentationLibrarySpans as Obj[] | undefined;
    if (legacy && !rs.scopeSpans) rs.scopeSpans = legacy;
    for (const ss of (rs.scopeSpans as Obj[] | undefined) ?? []) {
      for (const s of (ss.spans as Obj[] | undefined) ?? []) {
        hexIds(s);
        for (const l of (s.links as Obj[] | undefined) ?? []) hexIds(l);
      }
    }
  }
  return obj;
}

/** True when the buffer plausibly starts a raw request (field 1, length-delimited) rather than a length prefix. */
export function looksRaw(buf: Uint8Array): boolean {
  return buf.length > 0 && buf[0] === 0x0a;
}

/**
 * Splits a length-prefixed stream into messages. Returns the frames found and the offset where an
 * incomplete frame starts (so a streaming reader can keep the rest for the next chunk).
 */
export function splitDelimited(buf: Buffer, maxFrame: number): { frames: Buffer[]; rest: number; tooLarge: number | null } {
  const frames: Buffer[] = [];
  let off = 0;
  while (off + 4 <= buf.length) {
    const len = buf.readUInt32BE(off);
    if (len > maxFrame) return { frames, rest: off, tooLarge: len };
    if (off + 4 + len > buf.length) break;
    frames.push(buf.subarray(off + 4, off + 4 + len));
    off += 4 + len;
  }
  return { frames, rest: off, tooLarge: null };
}

/** The OTLP/HTTP response body for a protobuf request (partial success when spans were rejected). */
export function encodeResponse(rejected: number, message: string): Uint8Array {
  const body = rejected > 0 || message ? { partialSuccess: { rejectedSpans: rejected, errorMessage: message } } : {};
  return Response.encode(Response.fromObject(body)).finish();
}
