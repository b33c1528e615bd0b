/**
 * The writer thread: owns the database's one writer connection (opening it migrates) and runs every
 * write — calls from the owning thread one at a time, in order, and ingest jobs' batches arriving on
 * their own channels straight from the ingest worker. A job's batches are written a few to a transaction (the bulk
 * path, GROUP_BATCHES): each is acknowledged (the job's shared counter bumped: flow control) once taken, and the job's
 * `written` reply comes only after its last transaction committed, so a span the server acknowledges is stored.
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

/**
 * The bulk path (write-side.ts channelJob `group`): up to this many batches of a job in one transaction, the rollup
 * layer recomputed once for them (docs/store.md, wave 12: −0.5 CPU-s per 100k history spans into a new store, −0.7
 * onto a 1M store, half the bytes written). A batch is acknowledged once taken (the ack counter is the sender's flow
 * control); the job's `written` reply, which callers' answers wait for, comes after its last group committed.
 */
const GROUP_BATCHES = 4;
/** An open group is committed when its job sends nothing for this long (a slow reader, a paused upload). */
const GROUP_IDLE_MS = 100;
/** The job whose group is open, its failure handler, and the idle timer that commits it. */
let grouped: { job: number; fail: (e: unknown) => void } | null = null;
let idle: NodeJS.Timeout | null = null;

/** Commits the open group (before any other write, on a job's drop, when its job is idle); a failure fails that job. */
function settleGroup(): void {
  if (idle) clearTimeout(idle);
  idle = null;
  const g = grouped;
  grouped = null;
  if (!g) return;
  try {
    side.settle();
  } catch (e) {
    g.fail(e);
  }
}

function openChannel(job: number, channel: MessagePort, control: SharedArrayBuffer): void {
  const slots = new Int32Array(control);
  const writes = side.channelJob({ group: GROUP_BATCHES });
  jobs.set(job, channel);
  const stop = (failed: boolean) => {
    jobs.delete(job);
    channel.close();
    if (!failed) return;
    // The sender is waiting for room or about to post more: tell it nothing more will be written.
    stopSender(control);
  };
  const fail = (e: unknown) => {
    if (!jobs.has(job)) return;
    stop(true);
    post({ kind: 'failed', job, error: toWire(e) });
  };
  channel.on('message', (msg: ChannelMessage) => {
    if (!jobs.has(job)) return;
    // Another job's group first (the write-side commits it too; here its failure goes to its own job).
    if (grouped && grouped.job !== job) settleGroup();
    try {
      const totals = writes.take(msg);
      if (idle) clearTimeout(idle);
      idle = null;
      grouped = null;
      if (!totals && side.inGroup()) {
        grouped = { job, fail };
        idle = setTimeout(() => {
          settleGroup();
          side.afterWrite();
        }, GROUP_IDLE_MS);
      }
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
      if (grouped?.job === job) grouped = null;
      fail(e);
    }
  });
}

port.on('message', (req: WriteRequest) => {
  switch (req.kind) {
    case 'call':
      settleGroup();
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
      // What the job wrote is kept, as when each batch committed on its own.
      if (grouped?.job === req.job) settleGroup();
      const ch = jobs.get(req.job);
      jobs.delete(req.job);
      ch?.close();
      return;
    }
    case 'close':
      settleGroup();
      for (const ch of jobs.values()) ch.close();
      jobs.clear();
      side.close();
      post({ kind: 'closed', id: req.id });
      port.close();
  }
});
