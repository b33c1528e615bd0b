/**
 * Inside an ingest worker: the BatchWriter that posts each batch encoded for the store's adapter
 * (store/index.ts batchEncoder) instead of writing it — to the store's writer thread through the
 * job's channel when the store has one (ports.ts BatchChannel), else to the main thread — then waits
 * (Atomics.wait on the job's shared counter) while MAX_IN_FLIGHT batches are not yet committed, so
 * memory stays bounded however slow the writes are. Used for file jobs (ingest-worker.ts) and body
 * jobs (body-worker.ts) alike.
 */
import type { MessagePort } from 'node:worker_threads';
import type { SpanRecord } from '../../domain/span.js';
import type { BatchWriter, Reject } from './session.js';
import { batchEncoder } from '../../store/index.js';
import type { ChannelMessage, EncodedBatch } from '../../store/ports.js';
import { ACKED, CANCELLED, MAX_IN_FLIGHT, type WorkerMessage } from './pipeline.js';

export class Cancelled extends Error {}

/** Where a job's batches go: the store's channel, else the main thread (`post`); `end` tells the channel all were sent. */
export function batchTarget(post: (m: WorkerMessage) => void, channel: MessagePort | undefined): { batch: (m: WorkerMessage) => void; end: () => void } {
  if (!channel) return { batch: post, end: () => undefined };
  return { batch: (m) => channel.postMessage(m), end: () => channel.postMessage({ type: 'end' } satisfies ChannelMessage) };
}

export function postingWriter(post: (m: WorkerMessage) => void, control: SharedArrayBuffer, rawBytes: () => number, adapter: string): BatchWriter {
  const slots = new Int32Array(control);
  const encode = batchEncoder(adapter);
  let posted = 0;
  return {
    write(spans: SpanRecord[], lines: (number | null)[], reject: Reject) {
      const { batch, kept } = encodeKeeping(encode, spans, reject);
      post({ type: 'batch', batch, lines: kept.map((i) => lines[i] ?? null), rawBytes: rawBytes() });
      posted++;
      for (;;) {
        const acked = Atomics.load(slots, ACKED);
        if (Atomics.load(slots, CANCELLED)) throw new Cancelled('import cancelled (by the main thread, or the store stopped writing)');
        if (posted - acked <= MAX_IN_FLIGHT) return;
        Atomics.wait(slots, ACKED, acked, 1000);
      }
    },
  };
}

/**
 * Encodes a batch; when that throws (a span the encoder cannot serialize, e.g. a tree too deep),
 * encodes span by span to hand only the bad ones to `reject`, then encodes the rest together.
 * `kept`: the indexes of the spans in the batch.
 */
function encodeKeeping(encode: (spans: SpanRecord[]) => EncodedBatch, spans: SpanRecord[], reject: Reject): { batch: EncodedBatch; kept: number[] } {
  try {
    return { batch: encode(spans), kept: spans.map((_, i) => i) };
  } catch {
    const kept: number[] = [];
    spans.forEach((s, i) => {
      try {
        encode([s]);
        kept.push(i);
      } catch (e) {
        reject(i, e);
      }
    });
    return { batch: encode(kept.map((i) => spans[i]!)), kept };
  }
}

/** A thrown error as the `fail` message (ServiceErrors keep their status and detail). */
export function failMessage(e: unknown): WorkerMessage {
  const err = e as { status?: unknown; detail?: unknown; message?: string };
  return typeof err.status === 'number' && err.detail !== undefined
    ? { type: 'fail', status: err.status, detail: err.detail as string }
    : { type: 'fail', status: null, detail: err.message ?? String(e) };
}
