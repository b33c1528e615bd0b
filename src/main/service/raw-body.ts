/**
 * Operations whose HTTP body the service reads itself (contract `rawBody`): the transport hands over
 * the request stream unparsed and these handlers decide how to read it — into a buffer for a worker
 * thread to parse, or straight to a file — so a large body never costs the server thread a parse.
 * IPC calls the same operations' ordinary handlers with parsed input. The handlers are listed in
 * raw-body-handlers.ts (they import the helpers here).
 */
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import { payloadTooLarge } from '../../shared/errors.js';
import type { ServiceContext } from './context.js';

export interface RawBodyRequest {
  /** The request body as it arrives (empty when the request had none). */
  body: Readable;
  /** The operation's cap (contract maxBodyBytes). */
  maxBytes: number;
  /** Path parameters and query parameters (strings, or coerced per the contract). */
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  contentType: string | null;
  /** The Content-Length header, when sent (a body announced over the cap is refused before reading). */
  contentLength: number | null;
}

export type RawBodyHandler = (req: RawBodyRequest, ctx: ServiceContext) => Promise<unknown>;

const tooLarge = (max: number) => payloadTooLarge(`Request body too large: this operation accepts at most ${max} bytes`);

/**
 * Reads the body chunk by chunk; past the cap it rejects with 413 and keeps draining what the client
 * still sends (discarded), so the client reads the 413 instead of a reset connection.
 */
function consume(req: Pick<RawBodyRequest, 'body' | 'maxBytes' | 'contentLength'>, onChunk: (c: Buffer) => boolean | void, onPause?: (resume: () => void) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    let n = 0;
    let over = req.contentLength !== null && req.contentLength > req.maxBytes;
    if (over) reject(tooLarge(req.maxBytes));
    req.body.on('data', (c: Buffer) => {
      if (over) return;
      n += c.length;
      if (n > req.maxBytes) {
        over = true;
        return reject(tooLarge(req.maxBytes));
      }
      // onChunk answers false when its sink is full: wait for it before reading on; it throws to
      // refuse the body there (the rest is drained like a body over the cap).
      let more: boolean | void;
      try {
        more = onChunk(c);
      } catch (err) {
        over = true;
        return reject(err instanceof Error ? err : new Error(String(err)));
      }
      if (more === false && onPause) {
        req.body.pause();
        onPause(() => req.body.resume());
      }
    });
    req.body.on('end', () => (over ? undefined : resolve(n)));
    req.body.on('error', reject);
    req.body.resume();
  });
}

/**
 * A look at the start of a body while the rest is still arriving: `look` gets the first `atBytes` (or
 * a little more) once, and throws to refuse the body at once (a decode bomb's 413 before its 60 MiB
 * have been sent; the rest is drained unread).
 */
export interface EarlyLook {
  atBytes: number;
  look(head: Buffer): void;
}

/**
 * The whole body in one buffer (its own ArrayBuffer, so it can be transferred to a worker), capped.
 * With a Content-Length the buffer is made once a quarter of it has arrived (not before: a client
 * announcing 64 MiB and sending nothing holds nothing) and the rest is read straight into it, so a
 * 60 MiB body costs ~75 MiB at its peak, not 120 (chunks and their concatenation).
 */
export async function readBody(req: Pick<RawBodyRequest, 'body' | 'maxBytes' | 'contentLength'>, early?: EarlyLook): Promise<Buffer> {
  const expected = req.contentLength !== null && req.contentLength > 0 && req.contentLength <= req.maxBytes ? req.contentLength : null;
  let out = null as Buffer | null; // (assigned in the callback: `as` keeps TypeScript from narrowing it to null)
  let filled = 0; // bytes in `out`
  const chunks: Buffer[] = []; // bytes not (yet) in `out`
  let pending = 0;
  let looked = !early;
  const look = () => {
    if (looked || filled + pending < early!.atBytes) return;
    looked = true;
    early!.look(out ? out.subarray(0, filled) : Buffer.concat(chunks, pending));
  };
  await consume(req, (c) => {
    if (out && chunks.length === 0 && filled + c.length <= out.length) {
      filled += c.copy(out, filled);
      return look();
    }
    chunks.push(c);
    pending += c.length;
    if (!out && expected !== null && pending * 4 >= expected && pending <= expected) {
      out = Buffer.allocUnsafeSlow(expected);
      for (const p of chunks) filled += p.copy(out, filled);
      chunks.length = 0;
      pending = 0;
    }
    look();
  });
  const got = out;
  if (got && chunks.length === 0 && filled === got.length) return got;
  // No length, or not the one announced: gathered the plain way.
  const whole = Buffer.allocUnsafeSlow(filled + pending);
  let k = got ? got.copy(whole, 0, 0, filled) : 0;
  for (const p of chunks) k += p.copy(whole, k);
  return whole;
}

/** Streams the body into `file` (created 0600), capped; `onChunk` sees each chunk (hashing). Returns the byte count. */
export async function bodyToFile(req: RawBodyRequest, file: string, onChunk: (c: Buffer) => void): Promise<number> {
  const out = fs.createWriteStream(file, { mode: 0o600 });
  try {
    const n = await consume(
      req,
      (c) => {
        onChunk(c);
        return out.write(c);
      },
      (resume) => out.once('drain', resume),
    );
    await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
    return n;
  } catch (err) {
    out.destroy();
    fs.rmSync(file, { force: true });
    throw err;
  }
}
