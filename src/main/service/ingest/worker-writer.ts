/**
 * Inside an ingest worker: the BatchWriter that sends each batch encoded for the store's adapter
 * (store/index.ts batchEncoder) instead of writing it — into the store's batch channel when the
 * store has one (ports.ts BatchChannel: the store's sender waits for its writes), else to the main
 * thread, then waits (Atomics.wait on the job's shared counter, which the main thread bumps after
 * each write) while MAX_IN_FLIGHT batches are not yet written — so memory stays bounded however
 * slow the writes are. Used for file jobs (ingest-worker.ts) and body jobs (body-worker.ts) alike.
 */
import type { SpanRecord } from '../../domain/span.js';
import type { BatchWriter, Reject } from './session.js';
import { batchEncoder, openBatchSender, spanEncoder } from '../../store/index.js';
import { ChannelStoppedError, type ChannelBatch, type ChannelHandle, type EncodedBatch } from '../../store/ports.js';
import { ACKED, CANCELLED, MAX_IN_FLIGHT, type WorkerMessage } from './pipeline.js';

export class Cancelled extends Error {}

/** Where a job's batches go; `send` returns once there is room for the next one. */
export interface BatchTarget {
  send(b: ChannelBatch): void;
  /** All were sent (the channel's `written` settles after them). */
  end(): void;
}

/** The store's channel when the job has one, else the main thread (`post`, backpressure through `control`). */
export function batchTarget(post: (m: WorkerMessage, transfer?: readonly ArrayBuffer[]) => void, control: SharedArrayBuffer, channel: ChannelHandle | undefined): BatchTarget {
  if (channel) {
    const sender = openBatchSender(channel, MAX_IN_FLIGHT);
    return {
      send(b) {
        try {
          sender.send(b);
        } catch (e) {
          throw e instanceof ChannelStoppedError ? new Cancelled(e.message) : e;
        }
      },
      end: () => sender.end(),
    };
  }
  const slots = new Int32Array(control);
  let posted = 0;
  return {
    send(b) {
      // The batch's buffers move to the main thread (transferred, not copied: issue 19, ClickHouse rows).
      post({ type: 'batch', ...b }, b.batch.transfer);
      posted++;
      for (;;) {
        const acked = Atomics.load(slots, ACKED);
        if (Atomics.load(slots, CANCELLED)) throw new Cancelled('import cancelled (by the main thread, or the store stopped writing)');
        if (posted - acked <= MAX_IN_FLIGHT) return;
        Atomics.wait(slots, ACKED, acked, 1000);
      }
    },
    end: () => undefined,
  };
}

export function postingWriter(target: BatchTarget, rawBytes: () => number, adapter: string): BatchWriter<unknown> {
  // Rows encoded span by span as they are normalized (the session refuses a span that fails alone).
  const perSpan = spanEncoder(adapter);
  if (perSpan) {
    return {
      prepare: (s) => perSpan.prepare(s),
      full: () => perSpan.full(),
      write(rows: unknown[], lines: (number | null)[]) {
        target.send({ batch: perSpan.batch(rows), lines, rawBytes: rawBytes() });
      },
    };
  }
  const encode = batchEncoder(adapter);
  return {
    write(spans: unknown[], lines: (number | null)[], reject: Reject) {
      const { batch, kept } = encodeKeeping(encode, spans as SpanRecord[], reject);
      target.send({ batch, lines: kept.map((i) => lines[i] ?? null), rawBytes: rawBytes() });
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
