/**
 * A read worker of the pool (read-pool.ts): one read-only connection to the database file and the
 * reader over it. Requests arrive one at a time (the pool sends a worker its next request only
 * after the previous one answered), so a slow query here delays nothing else.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openReadConnection } from './open.js';
import { createReader, type Reader } from './reader.js';
import { toWire } from './thread-errors.js';
import { CHUNK_ROWS, type ReadReply, type ReadRequest, type ReadWorkerData } from './read-protocol.js';

const data = workerData as ReadWorkerData;
const port = parentPort!;
const reader = createReader(openReadConnection(data.file, { nativeBinding: data.nativeBinding }));
const post = (m: ReadReply) => port.postMessage(m);

const isStream = (v: unknown): v is Iterable<unknown> =>
  v != null && typeof v === 'object' && !Array.isArray(v) && typeof (v as Iterable<unknown>)[Symbol.iterator] === 'function';

port.on('message', (req: ReadRequest) => {
  try {
    const value = (reader[req.method] as (...a: unknown[]) => unknown)(...req.args);
    if (!isStream(value)) return post({ id: req.id, kind: 'value', value });
    let rows: unknown[] = [];
    for (const row of value) {
      rows.push(row);
      if (rows.length >= CHUNK_ROWS) {
        post({ id: req.id, kind: 'chunk', rows });
        rows = [];
      }
    }
    if (rows.length) post({ id: req.id, kind: 'chunk', rows });
    post({ id: req.id, kind: 'done' });
  } catch (e) {
    post({ id: req.id, kind: 'error', error: toWire(e) });
  }
});

export type { Reader };
