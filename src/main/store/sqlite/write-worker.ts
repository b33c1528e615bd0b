/**
 * The writer thread: owns the database's one writer connection (opening it migrates) and runs every
 * write — calls from the owning thread one at a time, in order, and ingest jobs' batches arriving on
 * their own channels straight from the ingest worker. Each batch is acknowledged (the job's shared
 * counter bumped) only after its transaction committed, so a span the server acknowledges is stored.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { openDatabase } from './open.js';
import { createWriteSide, type WriteSide } from './write-side.js';
import { toWire } from './thread-errors.js';
import { stopSender } from './channel-sender.js';
import { ACKED, type ChannelMessage, type WriteReply, type WriteRequest, type WriteWorkerData } from './write-protocol.js';

const data = workerData as WriteWorkerData;
const port = parentPort!;
const post = (m: WriteReply) => port.postMessage(m);

let side!: WriteSide;
try {
  side = createWriteSide(openDatabase(data.file, { nativeBinding: data.nativeBinding, readonly: data.readonly, busyTimeoutMs: data.busyTimeoutMs }), data.file);
  post({ kind: 'ready', methods: Object.keys(side.methods) });
} catch (e) {
  // The owner rejects its start with this error (SQLite's code kept: a damaged file opens read-only).
  post({ kind: 'open-failed', error: toWire(e) });
  port.close();
}

const jobs = new Map<number, MessagePort>();

function openChannel(job: number, channel: MessagePort, control: SharedArrayBuffer): void {
  const slots = new Int32Array(control);
  const writes = side.channelJob();
  jobs.set(job, channel);
  const stop = (failed: boolean) => {
    jobs.delete(job);
    channel.close();
    if (!failed) return;
    // The sender is waiting for room or about to post more: tell it nothing more will be written.
    stopSender(control);
  };
  channel.on('message', (msg: ChannelMessage) => {
    if (!jobs.has(job)) return;
    try {
      const totals = writes.take(msg);
      side.afterWrite();
      if (totals) {
        stop(false);
        return post({ kind: 'written', job, totals });
      }
      if (msg.type === 'batch') post({ kind: 'progress', job, spans: writes.spans, rawBytes: msg.rawBytes });
      // Acknowledged a turn of the event loop later: Node delivers a port's messages in one go, as
      // long as new ones keep arriving, so an ingest worker acknowledged at once keeps this port busy
      // and calls from the owner (an AppStore read, a ping) wait behind the whole import — measured
      // 7.7 s behind a 32 MB post. After setImmediate the other ports are served between batches.
      setImmediate(() => {
        Atomics.add(slots, ACKED, 1);
        Atomics.notify(slots, ACKED);
      });
    } catch (e) {
      stop(true);
      post({ kind: 'failed', job, error: toWire(e) });
    }
  });
}

port.on('message', (req: WriteRequest) => {
  switch (req.kind) {
    case 'call':
      try {
        const fn = side.methods[req.method];
        if (!fn) throw new Error(`the writer has no method ${req.method}`);
        post({ kind: 'value', id: req.id, value: (fn as (...a: unknown[]) => unknown)(...req.args) });
      } catch (e) {
        post({ kind: 'error', id: req.id, error: toWire(e) });
      }
      side.afterWrite();
      return;
    case 'channel':
      return openChannel(req.job, req.port, req.control);
    case 'drop': {
      const ch = jobs.get(req.job);
      jobs.delete(req.job);
      ch?.close();
      return;
    }
    case 'close':
      for (const ch of jobs.values()) ch.close();
      jobs.clear();
      side.close();
      post({ kind: 'closed', id: req.id });
      port.close();
  }
});
