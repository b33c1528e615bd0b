/**
 * Import of a body held in memory: POST /v1/traces and uploads from the UI. The content type says
 * JSON or protobuf (absent: detected by content); gzip comes from Content-Encoding or the magic
 * bytes. A body that is not trace data, or a broken gzip, is rejected before anything is stored.
 */
import zlib from 'node:zlib';
import type { TraceStore } from '../../store/ports.js';
import type { EventBus } from '../events.js';
import type { ImportReport } from '../../../shared/contract/import-report.js';
import { ServiceError } from '../../../shared/errors.js';
import { ImportSession, StoreWriter, completeReport } from './session.js';
import { firstSignificant, importJsonDocument, importJsonLine, importJsonValue, importProtoDocument, isGzip, rejectIfNoTraceLine } from './document.js';
import { dict } from '../../../shared/dict.js';
import { DECODE_LIMITS, DecodeBudget, OverBudget, checkGzipPrefix, checkJsonBudget, checkProtoBudget, gunzipOptions } from './budget.js';
import { looksRaw, splitDelimited } from './protobuf.js';

/** OTLP caps a decompressed body at 64 MiB (semantics §10): the decode budget's bytes. */
export const MAX_BODY_BYTES = DECODE_LIMITS.bytes;

export interface ImportBufferOptions {
  contentType?: string;
  contentEncoding?: string;
  projectId?: string;
  events?: EventBus;
  /**
   * 'later': answer once the spans are stored, while a store that writes summaries in the background
   * (ClickHouse) is still writing them (an OTLP exporter waits for nothing more); `data.changed` is
   * announced again when they are written. Default: answer once the summaries are written too.
   */
  summaries?: 'wait' | 'later';
}

type Hint = 'json' | 'jsonl' | 'proto' | 'sniff';

const CONTENT_TYPES: Record<string, Hint> = dict({
  'application/json': 'json',
  'text/json': 'json',
  'application/jsonl': 'jsonl',
  'application/x-ndjson': 'jsonl',
  'application/x-jsonlines': 'jsonl',
  'application/jsonlines': 'jsonl',
  'application/x-protobuf': 'proto',
  'application/protobuf': 'proto',
  'application/vnd.google.protobuf': 'proto',
  'application/octet-stream': 'sniff',
  'application/gzip': 'sniff',
  'application/x-gzip': 'sniff',
});

export function contentHint(contentType: string | undefined): Hint {
  const ct = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (!ct) return 'sniff';
  const hint = CONTENT_TYPES[ct];
  if (!hint) {
    throw new ServiceError(415, `Unsupported content type "${ct}": send OTLP as application/json, application/x-protobuf or application/jsonl`);
  }
  return hint;
}

/**
 * A gzip body decompressed within `budget` (413 past its bytes, 400 when truncated or corrupt): a
 * first look at its start (checkGzipPrefix) refuses the usual bomb before inflating the rest.
 */
export function gunzipBody(body: Buffer, kind: 'json' | 'proto' | 'sniff', budget: DecodeBudget): Buffer {
  checkGzipPrefix(body, kind, budget);
  try {
    // Stops at the budget (a gzip bomb costs at most that much memory), never decompressing the rest.
    return zlib.gunzipSync(body, gunzipOptions(body, budget));
  } catch (e) {
    if (e instanceof OverBudget) throw e;
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) throw budget.over('bytes');
    throw new ServiceError(400, `body: gzip data is truncated or corrupt (${err.message}); nothing was stored`);
  }
}

export async function importBuffer(store: TraceStore, body: Buffer, opts: ImportBufferOptions = {}): Promise<ImportReport> {
  checkEncoding(opts);
  const stored = new StoreWriter(store);
  const session = new ImportSession(stored, opts.projectId, undefined, undefined, store.adapter);
  readBodyInto(session, body, opts);
  return completeReport(await session.finish(), stored, opts.events);
}

/** 415 for an encoding other than gzip (checked before the body is handed to a worker). */
export function checkEncoding(opts: Pick<ImportBufferOptions, 'contentType' | 'contentEncoding'>): void {
  contentHint(opts.contentType);
  const enc = (opts.contentEncoding ?? '').trim().toLowerCase();
  if (enc && enc !== 'identity' && enc !== 'gzip' && enc !== 'x-gzip') {
    throw new ServiceError(415, `Unsupported content encoding "${enc}": send gzip or no encoding`);
  }
}

/**
 * Decompresses, detects and parses a body into `session` (which batches its spans to a writer): the
 * same on this thread and in the ingest worker (body-ingest.ts). The caller finishes the session.
 */
export function readBodyInto(session: ImportSession, body: Buffer, opts: Pick<ImportBufferOptions, 'contentType' | 'contentEncoding'>): void {
  parseBodyInto(session, decodeBody(body, opts));
}

/** A body decompressed (within its decode budget) and what it says it is, before it is parsed. */
export interface DecodedBody {
  data: Buffer;
  hint: Hint;
  zipped: boolean;
  /** The whole body is one request for the decode budget (budget.ts). */
  budget: DecodeBudget;
  /** Bytes as received (the report's `bytes`). */
  rawBytes: number;
}

export function decodeBody(body: Buffer, opts: Pick<ImportBufferOptions, 'contentType' | 'contentEncoding'>): DecodedBody {
  const hint = contentHint(opts.contentType);
  const enc = (opts.contentEncoding ?? '').trim().toLowerCase();
  const budget = new DecodeBudget('body');
  const zipped = enc === 'gzip' || enc === 'x-gzip' || isGzip(body);
  const data = zipped ? gunzipBody(body, hint === 'proto' ? 'proto' : hint === 'sniff' ? 'sniff' : 'json', budget) : body;
  budget.bytes(data.length);
  return { data, hint, zipped, budget, rawBytes: body.length };
}

/** Parses a decoded body into `session`, checked against its decode budget before anything is built. */
export function parseBodyInto(session: ImportSession, d: DecodedBody): void {
  const { data, hint, budget } = d;
  session.bytes = d.rawBytes;
  if (data.length === 0) {
    session.format = hint === 'proto' ? 'otlp-proto' : 'otlp-json';
    return;
  }
  if (isProto(d)) {
    importProtoDocument(session, data, 'body', budget);
  } else {
    const first = firstSignificant(data);
    if (first !== 0x7b /* { */ && first !== 0x5b /* [ */) throw new ServiceError(400, `body: not JSON (content type says JSON, first byte is 0x${first.toString(16)})`);
    // Walked as bytes, before the string is made: a refused body never costs that copy.
    checkJsonBudget(data, budget);
    const text = data.toString('utf8');
    importJsonText(session, text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, hint, 'body', budget);
  }
  if (d.zipped) session.format += '+gzip';
}

function isProto(d: DecodedBody): boolean {
  const first = firstSignificant(d.data);
  return d.hint === 'proto' || (d.hint === 'sniff' && first !== 0x7b && first !== 0x5b);
}

/**
 * The spans a decoded body holds, counted by the decode-budget walk over its bytes (no span is built;
 * ~15 % of a JSON parse, ~3 % of a protobuf decode). 0 for a body the walk cannot read or that is over
 * its budget: parsing it says what is wrong.
 */
export function countBodySpans(d: DecodedBody): number {
  const budget = new DecodeBudget('body');
  try {
    if (!isProto(d)) checkJsonBudget(d.data, budget);
    else if (looksRaw(d.data)) checkProtoBudget(d.data, budget);
    else for (const frame of splitDelimited(d.data, MAX_BODY_BYTES).frames) checkProtoBudget(frame, budget);
  } catch {
    return 0;
  }
  return budget.seen().records;
}

/**
 * A JSON document, or JSONL when the content type says so or the text is several JSON lines. The
 * caller has checked the whole text against the decode budget (one request).
 */
export function importJsonText(session: ImportSession, text: string, hint: Hint, where: string, budget: DecodeBudget): void {
  if (hint !== 'jsonl') {
    let parsed: unknown;
    let whole = true;
    try {
      parsed = JSON.parse(text);
    } catch {
      whole = false;
    }
    if (whole) return importJsonValue(session, parsed, where);
    if (!text.includes('\n')) return importJsonDocument(session, text, where, budget.reset());
  }
  session.format = 'otlp-jsonl';
  const lines = text.split('\n');
  lines.forEach((l, i) => importJsonLine(session, l, i + 1));
  rejectIfNoTraceLine(session, where);
}
