/**
 * Whole-document and per-line handling shared by file and body imports: a JSON document (object or
 * top-level array), one JSONL line, one protobuf request. A document that is not trace data is
 * rejected whole before anything of it is walked, so nothing of it is stored.
 */
import { ServiceError } from '../../../shared/errors.js';
import { classify } from './otlp.js';
import { isObj } from './lenient.js';
import { decodeRequest, looksRaw, splitDelimited } from './protobuf.js';
import type { ImportSession } from './session.js';
import { DECODE_LIMITS, OverBudget, checkJsonBudget, type DecodeBudget } from './budget.js';

/** Largest request read whole — an HTTP body once decompressed, a JSONL line, a protobuf message, a single-document file: the decode budget's bytes. */
export const MAX_FRAME_BYTES = DECODE_LIMITS.bytes;

const bad = (where: string, msg: string) => new ServiceError(400, `${where}: ${msg}`);

function describe(v: unknown): string {
  if (isObj(v)) {
    const keys = Object.keys(v).slice(0, 5);
    return keys.length ? `an object with keys ${keys.map((k) => JSON.stringify(k)).join(', ')}` : 'an empty object';
  }
  return Array.isArray(v) ? 'an array' : `a ${v === null ? 'null' : typeof v}`;
}

/** Parses and imports one JSON document (object or top-level array of requests), within `budget`. */
export function importJsonDocument(session: ImportSession, text: string, where: string, budget: DecodeBudget): void {
  checkJsonBudget(text, budget);
  let v: unknown;
  try {
    v = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (e) {
    throw bad(where, `not valid JSON (${(e as Error).message})`);
  }
  importJsonValue(session, v, where);
}

/** Imports a parsed JSON document; rejects it whole when it is not OTLP trace data. */
export function importJsonValue(session: ImportSession, v: unknown, where: string): void {
  const items = Array.isArray(v) ? v : [v];
  session.format = Array.isArray(v) ? 'otlp-json-array' : 'otlp-json';
  const kinds = items.map(classify);
  const i = kinds.indexOf('not-otlp');
  if (i >= 0 || !items.length) {
    const what = Array.isArray(v) ? (items.length ? `element ${i} is ${describe(items[i])}` : 'the array is empty') : `found ${describe(v)}`;
    throw bad(where, `not OTLP trace data: expected an ExportTraceServiceRequest object with "resourceSpans" (${what})`);
  }
  if (!kinds.includes('traces')) throw bad(where, 'holds OTLP logs or metrics, not traces');
  for (const x of items) session.request(x);
}

/**
 * One line of a collector JSONL file. Bad lines are reported with their number and never abort the
 * rest. The caller has checked the line against its decode budget.
 */
export function importJsonLine(session: ImportSession, line: string, lineNo: number): void {
  if (line.length === 0 || (line.length < 3 && line.trim() === '')) return;
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch (e) {
    if (line.trim() === '') return;
    session.error(lineNo, `invalid JSON (${(e as Error).message})`);
    return;
  }
  session.line = lineNo;
  const kind = session.request(v);
  session.line = null;
  if (kind === 'other-signal') session.nonTrace();
  else if (kind === 'not-otlp') session.error(lineNo, `not an OTLP request: expected "resourceSpans", found ${describe(v)}`);
}

/**
 * Decodes one protobuf request within `budget` (413 past it, the whole input refused); `frame`
 * numbers length-prefixed messages for error messages.
 */
export function importProtoMessage(session: ImportSession, buf: Uint8Array, where: string, frame: number | null, budget: DecodeBudget): void {
  let req;
  try {
    req = decodeRequest(buf, budget);
  } catch (e) {
    if (e instanceof OverBudget) throw e;
    const at = frame === null ? '' : ` (message ${frame})`;
    if (frame !== null) return session.error(frame, `not an OTLP protobuf ExportTraceServiceRequest${at}: ${(e as Error).message}`);
    throw bad(where, `not trace data: neither JSON nor an OTLP protobuf ExportTraceServiceRequest (${(e as Error).message})`);
  }
  session.line = frame;
  session.request(req);
  session.line = null;
}

/**
 * A whole protobuf body: raw, or length-prefixed messages. Rejects bytes that are neither. Read whole,
 * it is one request for the budget (its messages count together).
 */
export function importProtoDocument(session: ImportSession, buf: Buffer, where: string, budget: DecodeBudget): void {
  budget.bytes(buf.length);
  if (looksRaw(buf)) {
    session.format = 'otlp-proto';
    importProtoMessage(session, buf, where, null, budget);
    return;
  }
  const { frames, rest, tooLarge } = splitDelimited(buf, MAX_FRAME_BYTES);
  if (tooLarge !== null || rest !== buf.length || !frames.length) {
    throw bad(where, 'not trace data: neither JSON nor OTLP protobuf (raw or 4-byte length-prefixed)');
  }
  session.format = 'otlp-proto-delimited';
  frames.forEach((f, i) => importProtoMessage(session, f, where, i + 1, budget));
}

/** First byte that is not JSON whitespace (or -1). */
export function firstSignificant(buf: Uint8Array): number {
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i]!;
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09 && c !== 0xef && c !== 0xbb && c !== 0xbf) return c;
  }
  return -1;
}

export const isGzip = (buf: Uint8Array): boolean => buf.length >= 2 && buf[0] === 0x1f && buf[1] === 0x8b;

/**
 * A JSONL input in which no line was a trace request and some lines were errors is not a trace
 * file at all: rejected whole (nothing was written, since only trace lines produce spans).
 */
export function rejectIfNoTraceLine(session: ImportSession, where: string): void {
  if (session.traceRequests === 0 && session.errorCount > 0) {
    throw bad(where, `not trace data: no line is an OTLP trace request (first problem: line ${session.firstError?.line}: ${session.firstError?.message})`);
  }
}
