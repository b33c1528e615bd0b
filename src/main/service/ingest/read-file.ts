/**
 * Reading a trace file into an import session, the same on the importing thread and in the ingest
 * worker (pipeline.ts): the file is read in 1 MiB chunks (through a gunzip stream when it starts
 * with the gzip magic), JSONL is split into lines as it arrives and length-prefixed protobuf into
 * messages. Single-document formats (one JSON object or array, one raw protobuf request) must be
 * parsed whole and are capped in size.
 */
import fs from 'node:fs';
import zlib from 'node:zlib';
import type { EventBus } from '../events.js';
import { ServiceError } from '../../../shared/errors.js';
import type { ImportSession } from './session.js';
import { isStoreFailure } from '../../store/failures.js';
import {
  MAX_FRAME_BYTES, firstSignificant, importJsonDocument, importJsonLine, importProtoDocument, importProtoMessage, isGzip, rejectIfNoTraceLine,
} from './document.js';
import { looksRaw, splitDelimited } from './protobuf.js';
import { DECODE_LIMITS, DecodeBudget, checkJsonBudget } from './budget.js';

export interface ImportProgress {
  bytes: number;
  totalBytes: number | null;
  spans: number;
}

export interface ImportFileOptions {
  projectId?: string;
  events?: EventBus;
  onProgress?: (p: ImportProgress) => void;
  /**
   * 'auto' (default): files of WORKER_MIN_BYTES or more are parsed in a worker thread; 'worker' /
   * 'inline' force one way (tests cover both).
   */
  thread?: 'auto' | 'worker' | 'inline';
  /**
   * Spans per write transaction when parsed in a worker (default PIPELINE_BATCH_SPANS, tuned for a
   * CLI import's speed and memory). A server importing while it answers other requests passes a small
   * one: each transaction is a pause of the server thread (service/system/import.ts).
   */
  batchSpans?: number;
  /** Files at least this big go to the worker under 'auto' (default WORKER_MIN_BYTES). */
  workerMinBytes?: number;
}

/**
 * Largest single JSON document or raw protobuf read whole: one request, so the decode budget's bytes
 * (JSONL and length-prefixed protobuf stream, each line or message a request of its own).
 */
export const MAX_DOCUMENT_BYTES = DECODE_LIMITS.bytes;
const CHUNK = 1 << 20;

/** What the reading side needs to know about a file (checked on the caller's thread). */
export interface FileJob {
  filePath: string;
  /** The file name used in messages. */
  where: string;
  /** Bytes of a regular file; null for a pipe (`loupe import /dev/stdin`, a FIFO), whose length is known at its end. */
  size: number | null;
  /** Gzip magic at the start; null for a pipe, which cannot be peeked at: decided from its first bytes while reading. */
  zipped: boolean | null;
}

/** The read broke off (truncated gzip, I/O error) after `rawBytes`; complete data before it was flushed. */
export interface BrokenRead {
  rawBytes: number;
  cause: string;
  /** The input was gzip (known from its first bytes for a pipe). */
  zipped: boolean;
}

/**
 * Streams the file into `session` (the same code in-thread and in the ingest worker). Throws the
 * ServiceErrors of a bad input; a read that breaks off is returned (after the complete lines or
 * messages before the cut were flushed; the broken tail never is) so the caller can say how much
 * was stored.
 */
export async function readFileInto(session: ImportSession, job: FileJob, onBytes: (rawBytes: number) => void): Promise<BrokenRead | null> {
  let rawBytes = 0;
  const raw = fs.createReadStream(job.filePath, { highWaterMark: CHUNK });
  raw.on('data', (c) => onBytes((rawBytes += c.length)));
  let zipped = job.zipped;
  const input: AsyncIterable<Buffer> = zipped ? raw.pipe(zlib.createGunzip({ chunkSize: CHUNK })) : zipped === null ? sniffGzip(raw, (z) => (zipped = z)) : raw;
  const reader = new StreamReader(session, job.where);
  try {
    for await (const chunk of input) {
      reader.push(chunk);
      // Writes keep pace with the reading: at most one chunk's batches wait in memory.
      await session.settled();
    }
  } catch (e) {
    raw.destroy();
    if (isStoreFailure(e)) throw e; // the store stopped writing: the import fails as a whole (503)
    // Complete lines / messages before the failure are kept (JSONL and length-prefixed only).
    if (reader.streaming) session.flush();
    else session.discardPending();
    if (e instanceof ServiceError) throw e; // the input itself is bad (a line too long, a bogus frame)
    return { rawBytes, cause: (e as Error).message, zipped: zipped === true };
  }
  reader.end();
  session.bytes = job.size ?? rawBytes;
  if (zipped) session.format += '+gzip';
  return null;
}

/**
 * A pipe's chunks, gunzipped when its first bytes are the gzip magic (a pipe cannot be peeked at
 * before reading, as a file's head is). `decided` learns which it was.
 */
async function* sniffGzip(raw: AsyncIterable<Buffer>, decided: (zipped: boolean) => void): AsyncGenerator<Buffer> {
  const it = raw[Symbol.asyncIterator]();
  let head = Buffer.alloc(0);
  while (head.length < 2) {
    const r = await it.next();
    if (r.done) break;
    head = Buffer.concat([head, r.value]);
  }
  const rest = { [Symbol.asyncIterator]: () => it };
  if (!isGzip(head)) {
    decided(false);
    if (head.length) yield head;
    yield* rest;
    return;
  }
  decided(true);
  const gunzip = zlib.createGunzip({ chunkSize: CHUNK });
  void (async () => {
    try {
      gunzip.write(head);
      for await (const c of rest) if (!gunzip.write(c)) await new Promise((r) => gunzip.once('drain', r));
      gunzip.end();
    } catch (e) {
      gunzip.destroy(e as Error);
    }
  })();
  yield* gunzip;
}

export function truncatedError(job: FileJob, broken: BrokenRead, kept: number): ServiceError {
  return new ServiceError(
    400,
    `${job.where}: ${broken.zipped ? 'gzip data is truncated or corrupt' : 'read failed'} after ${broken.rawBytes} bytes (${broken.cause}); ` +
      (kept ? `${kept} spans from complete data before that point were stored, the broken part was not` : 'nothing was stored'),
  );
}

/**
 * Decides the format from the first bytes and feeds the rest: JSONL line by line, length-prefixed
 * protobuf message by message, single documents accumulated (capped) and parsed at the end.
 */
class StreamReader {
  private mode: 'unknown' | 'lines' | 'doc-json' | 'doc-proto' | 'delimited' = 'unknown';
  /** The bytes of the line not yet ended (JSONL), and their count. */
  private carry: Buffer[] = [];
  private carryBytes = 0;
  private lineNo = 0;
  private probing = true;
  private probeFailed: number[] = [];
  private docParts: Buffer[] = [];
  private docBytes = 0;
  private pending: Buffer = Buffer.alloc(0);
  private frame = 0;
  /** Each line, message or document is one request for the decode budget (budget.ts). */
  private readonly budget: DecodeBudget;

  constructor(
    private readonly session: ImportSession,
    private readonly where: string,
  ) {
    this.budget = new DecodeBudget(where);
  }

  /** True once the input is known to be JSONL or length-prefixed (parts of it are usable alone). */
  get streaming(): boolean {
    return (this.mode === 'lines' && !this.probing) || this.mode === 'delimited';
  }

  push(chunk: Buffer): void {
    if (this.mode === 'unknown') {
      const c = firstSignificant(chunk);
      if (c === -1) return;
      if (c === 0x7b) this.mode = 'lines';
      else if (c === 0x5b) this.mode = 'doc-json';
      else this.mode = looksRaw(chunk) ? 'doc-proto' : 'delimited';
      if (this.mode === 'lines') this.session.format = 'otlp-jsonl';
    }
    if (this.mode === 'lines') return this.pushLines(chunk);
    if (this.mode === 'delimited') return this.pushFrames(chunk);
    this.keep(chunk);
  }

  private keep(chunk: Buffer): void {
    this.docBytes += chunk.length;
    if (this.docBytes > MAX_DOCUMENT_BYTES) {
      throw new ServiceError(
        413,
        `${this.where}: a single document (one request, read whole) over ${MAX_DOCUMENT_BYTES / 1048576} MiB (decode limit "bytes"); write it as JSONL (one request per line) or length-prefixed protobuf`,
      );
    }
    this.docParts.push(chunk);
  }

  /**
   * Splits JSONL on the newline byte and decodes each line on its own. Decoding the chunk as one
   * string and cutting lines out of it cost 4.0 s of CPU on a 226 MB file, this 1.1 s: no 1 MiB
   * string glued to the previous chunk's tail and flattened for every chunk, and a line with a
   * non-ASCII character is the only one held as two-byte text. A newline byte never occurs inside
   * a multi-byte UTF-8 character, so a line's bytes decode alone exactly as the whole would.
   */
  private pushLines(chunk: Buffer): void {
    // Until one line proves this is JSONL, keep the raw bytes in case it is one pretty-printed document.
    if (this.probing) this.keep(chunk);
    let start = 0;
    let nl: number;
    while ((nl = chunk.indexOf(0x0a, start)) !== -1) {
      let bytes: Buffer;
      if (this.carryBytes) {
        this.carry.push(chunk.subarray(start, nl));
        bytes = Buffer.concat(this.carry, this.carryBytes + nl - start);
        this.carry = [];
        this.carryBytes = 0;
      } else bytes = chunk.subarray(start, nl);
      this.line(this.decodeLine(bytes));
      start = nl + 1;
      if (this.mode !== 'lines') return; // switched to whole-document mode
    }
    if (start < chunk.length) {
      // A copy: the rest of the chunk is all that is kept of it.
      this.carry.push(Buffer.from(chunk.subarray(start)));
      this.carryBytes += chunk.length - start;
    }
    if (this.carryBytes > MAX_FRAME_BYTES) throw new ServiceError(413, `${this.where}: line ${this.lineNo + 1} is longer than ${MAX_FRAME_BYTES / 1048576} MiB (one request: decode limit "bytes")`);
  }

  private decodeLine(bytes: Buffer): string {
    // A UTF-8 byte-order mark (Windows editors) before the first line is not JSON whitespace.
    const bom = this.lineNo === 0 && bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
    return bytes.toString('utf8', bom);
  }

  private line(l: string): void {
    this.lineNo++;
    if (l.length > 2) checkJsonBudget(l, this.budget.reset(`${this.where} line ${this.lineNo}`));
    if (this.probing) {
      if (l.trim() === '') return;
      // A lone `{` or `[` first line is a pretty-printed single document, not JSONL.
      if (this.lineNo === 1 && /^\s*[{[]\s*$/.test(l)) {
        this.mode = 'doc-json';
        this.carry = [];
        this.carryBytes = 0;
        return;
      }
      // A line that is a whole non-empty JSON object proves JSONL (a pretty-printed document never
      // has one); until then failing lines are remembered, and the raw bytes kept in case the whole
      // input turns out to be one document.
      if (!isObjectLine(l)) {
        this.probeFailed.push(this.lineNo);
        return;
      }
      this.probing = false;
      this.docParts = [];
      this.docBytes = 0;
      for (const n of this.probeFailed) this.session.error(n, 'invalid JSON (not a complete JSON value on one line)');
    }
    importJsonLine(this.session, l, this.lineNo);
  }

  private pushFrames(chunk: Buffer): void {
    const buf = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    const { frames, rest, tooLarge } = splitDelimited(buf, MAX_FRAME_BYTES);
    // Past the first message the input is known to be protobuf: a huge one is over the budget, not garbage.
    if (tooLarge !== null && this.frame > 0) {
      throw new ServiceError(413, `${this.where}: message ${this.frame + 1} claims ${tooLarge} bytes, over ${MAX_FRAME_BYTES / 1048576} MiB (one request: decode limit "bytes")`);
    }
    if (tooLarge !== null) throw new ServiceError(400, `${this.where}: not trace data: neither JSON nor OTLP protobuf (message ${this.frame + 1} claims ${tooLarge} bytes)`);
    this.session.format = 'otlp-proto-delimited';
    for (const f of frames) {
      this.frame++;
      importProtoMessage(this.session, f, this.where, this.frame, this.budget.reset(`${this.where} message ${this.frame}`));
    }
    this.pending = Buffer.from(buf.subarray(rest));
  }

  end(): void {
    if (this.mode === 'lines') {
      const last = this.decodeLine(Buffer.concat(this.carry, this.carryBytes));
      this.carry = [];
      this.carryBytes = 0;
      if (last.trim()) this.line(last);
      if (this.mode === 'lines' && this.probing) {
        // No line was a JSON object: one document spread over lines (or not JSON at all).
        this.mode = 'doc-json';
      } else if (this.mode === 'lines') {
        if (this.lineNo === 1) this.session.format = 'otlp-json';
        rejectIfNoTraceLine(this.session, this.where);
        return;
      }
    }
    if (this.mode === 'delimited') {
      if (this.pending.length) this.session.error(this.frame + 1, `truncated protobuf message (${this.pending.length} bytes left over)`);
      if (!this.frame) throw new ServiceError(400, `${this.where}: not trace data: neither JSON nor OTLP protobuf`);
      return;
    }
    const doc = Buffer.concat(this.docParts);
    this.docParts = [];
    if (this.mode === 'doc-proto') return importProtoDocument(this.session, doc, this.where, this.budget.reset(this.where));
    if (this.mode === 'doc-json') return importJsonDocument(this.session, doc.toString('utf8'), this.where, this.budget.reset(this.where));
  }
}

function isObjectLine(l: string): boolean {
  try {
    const v: unknown = JSON.parse(l);
    return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length > 0;
  } catch {
    return false;
  }
}
