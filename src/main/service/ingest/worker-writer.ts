/**
 * Inside an ingest worker: the BatchWriter that posts each batch to the main thread encoded for the
 * store's adapter (store/index.ts spanEncoder) instead of writing it, then waits (Atomics.wait on the job's shared counter) while
 * MAX_IN_FLIGHT batches are not yet committed — so memory stays bounded however slow the writes are.
 * Used for file jobs (ingest-worker.ts) and body jobs (body-worker.ts) alike.
 */
import type { SpanRecord } from '../../domain/span.js';
import type { BatchWriter, Reject } from './session.js';
import { spanEncoder } from '../../store/index.js';
import { ACKED, CANCELLED, MAX_IN_FLIGHT, type WorkerMessage } from './pipeline.js';

export class Cancelled extends Error {}

export function mainThreadWriter(post: (m: WorkerMessage) => void, control: SharedArrayBuffer, rawBytes: () => number, adapter: string): BatchWriter {
  const slots = new Int32Array(control);
  const encode = spanEncoder(adapter);
  let posted = 0;
  return {
    write(spans: SpanRecord[], lines: (number | null)[], reject: Reject) {
      const rows: unknown[] = [];
      const rowLines: (number | null)[] = [];
      spans.forEach((s, i) => {
        try {
          rows.push(encode(s)); // serializes JSON columns: a tree too deep fails here, for this span only
          rowLines.push(lines[i] ?? null);
        } catch (e) {
          reject(i, e);
        }
      });
      post({ type: 'batch', batch: { adapter, spans: rows }, lines: rowLines, rawBytes: rawBytes() });
      posted++;
      for (;;) {
        const acked = Atomics.load(slots, ACKED);
        if (Atomics.load(slots, CANCELLED)) throw new Cancelled('import cancelled by the main thread');
        if (posted - acked <= MAX_IN_FLIGHT) return;
        Atomics.wait(slots, ACKED, acked, 1000);
      }
    },
  };
}

/** A thrown error as the `fail` message (ServiceErrors keep their status and detail). */
export function failMessage(e: unknown): WorkerMessage {
  const err = e as { status?: unknown; detail?: unknown; message?: string };
  return typeof err.status === 'number' && err.detail !== undefined
    ? { type: 'fail', status: err.status, detail: err.detail as string }
    : { type: 'fail', status: null, detail: err.message ?? String(e) };
}
