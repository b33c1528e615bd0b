/** Messages between the writer thread (write-worker.ts) and the thread that owns it (writer.ts). */
import type { MessagePort } from 'node:worker_threads';
import type { ChannelBatch, ChannelTotals } from '../ports.js';
import type { WireError } from './thread-errors.js';

export interface WriteWorkerData {
  file: string;
  nativeBinding?: string;
  readonly?: boolean;
  busyTimeoutMs?: number;
  /** Set when starting from sources: the .ts entry the tsx bootstrap imports. */
  entry?: string;
}

export type WriteRequest =
  | { kind: 'call'; id: number; method: string; args: unknown[] }
  /** An ingest job's channel: batches arrive on `port` (ports.ts BatchChannel). */
  | { kind: 'channel'; job: number; port: MessagePort; control: SharedArrayBuffer }
  /** The job was cancelled: stop taking its batches. */
  | { kind: 'drop'; job: number }
  | { kind: 'close'; id: number };

export type WriteReply =
  | { kind: 'ready'; methods: string[] }
  | { kind: 'open-failed'; error: WireError }
  | { kind: 'value'; id: number; value: unknown }
  | { kind: 'error'; id: number; error: WireError }
  | { kind: 'progress'; job: number; spans: number; rawBytes: number }
  | { kind: 'written'; job: number; totals: ChannelTotals }
  | { kind: 'failed'; job: number; error: WireError }
  | { kind: 'closed'; id: number };

/** Messages into a job's channel port, in order: any number of `batch`, then `end`. */
export type ChannelMessage = ({ type: 'batch' } & ChannelBatch) | { type: 'end' };

/**
 * Shared Int32 slots of a job's control block (made by writer.ts `channel`, shared with the sender,
 * channel-sender.ts): [committed batches, stopped flag].
 */
export const ACKED = 0;
export const STOPPED = 1;
