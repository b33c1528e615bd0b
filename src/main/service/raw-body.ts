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
function consume(req: RawBodyRequest, onChunk: (c: Buffer) => boolean | void, onPause?: (resume: () => void) => void): Promise<number> {
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
      // onChunk answers false when its sink is full: wait for it before reading on.
      if (onChunk(c) === false && onPause) {
        req.body.pause();
        onPause(() => req.body.resume());
      }
    });
    req.body.on('end', () => (over ? undefined : resolve(n)));
    req.body.on('error', reject);
    req.body.resume();
  });
}

/** The whole body in one buffer (its own ArrayBuffer, so it can be transferred to a worker), capped. */
export async function readBody(req: RawBodyRequest): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const n = await consume(req, (c) => void chunks.push(c));
  const out = Buffer.allocUnsafeSlow(n);
  let at = 0;
  for (const c of chunks) at += c.copy(out, at);
  return out;
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
