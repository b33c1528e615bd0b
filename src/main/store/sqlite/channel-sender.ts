/**
 * The sending end of the SQLite writer thread's batch channel (ports.ts BatchChannel), run on the
 * thread that encodes the batches (an ingest worker). Batches go straight to the writer thread's
 * port; backpressure is a shared Int32 block the writer thread bumps after each committed batch
 * (write-worker.ts): the sender's reader is synchronous (a batch is flushed from deep inside a line's
 * walk), so it waits with Atomics.wait, and memory stays bounded however slow the disk.
 */
import type { MessagePort } from 'node:worker_threads';
import { ChannelStoppedError, type BatchSender, type ChannelHandle } from '../ports.js';
import { ACKED, STOPPED, type ChannelMessage } from './write-protocol.js';
import { ADAPTER } from './write-side.js';

/** What a SQLite channel handle carries: the port into the writer thread and the shared block. */
export interface SqliteChannelPayload {
  port: MessagePort;
  control: SharedArrayBuffer;
}

export function sqliteChannelHandle(p: SqliteChannelPayload): ChannelHandle {
  return { adapter: ADAPTER, transfer: [p.port], payload: p };
}

export function sqliteBatchSender(handle: ChannelHandle, maxInFlight: number): BatchSender {
  const { port, control } = handle.payload as SqliteChannelPayload;
  const slots = new Int32Array(control);
  let posted = 0;
  return {
    send(b) {
      // The batch's buffer moves to the writer thread (transferred, not copied: packed-rows.ts).
      port.postMessage({ type: 'batch', ...b } satisfies ChannelMessage, b.batch.transfer ? [...b.batch.transfer] : []);
      posted++;
      for (;;) {
        const acked = Atomics.load(slots, ACKED);
        if (Atomics.load(slots, STOPPED)) throw new ChannelStoppedError('the import was cancelled, or the store stopped writing');
        if (posted - acked <= maxInFlight) return;
        Atomics.wait(slots, ACKED, acked, 1000);
      }
    },
    end() {
      port.postMessage({ type: 'end' } satisfies ChannelMessage);
    },
  };
}

/** Tells a sender waiting for room (or about to send) that nothing more will be written. */
export function stopSender(control: SharedArrayBuffer): void {
  const slots = new Int32Array(control);
  Atomics.store(slots, STOPPED, 1);
  Atomics.notify(slots, ACKED);
}
