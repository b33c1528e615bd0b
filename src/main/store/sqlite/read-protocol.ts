/** Messages between the read pool (read-pool.ts) and its workers (read-worker.ts). */
import type { ReadMethod } from './reader.js';
import type { WireError } from './thread-errors.js';

export interface ReadWorkerData {
  file: string;
  nativeBinding?: string;
  /** Set when starting from sources: the .ts entry the tsx bootstrap imports. */
  entry?: string;
}

export interface ReadRequest {
  id: number;
  method: ReadMethod;
  args: unknown[];
}


export type ReadReply =
  | { id: number; kind: 'value'; value: unknown }
  /** Rows of a generator method (threads), as they are computed. */
  | { id: number; kind: 'chunk'; rows: unknown[] }
  | { id: number; kind: 'done' }
  | { id: number; kind: 'error'; error: WireError };

/** Rows per chunk message of a streamed read: the first lines leave after a small query. */
export const CHUNK_ROWS = 256;
