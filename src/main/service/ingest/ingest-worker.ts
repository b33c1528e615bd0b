/**
 * The ingest worker thread. Two uses, one bundle entry:
 * - a file job (pipeline.ts starts one per file): reads, parses and normalizes the file with the same
 *   StreamReader and ImportSession as an in-thread import, sending each batch to the store's channel or the main thread;
 * - the body worker (body-ingest.ts keeps one alive): parses OTLP bodies and uploads handed to it one
 *   after another (body-worker.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ImportSession } from './session.js';
import { readFileInto } from './read-file.js';
import type { WorkerInput, WorkerMessage } from './pipeline.js';
import { Cancelled, batchTarget, failMessage, postingWriter } from './worker-writer.js';
import { serveBodies } from './body-worker.js';

const input = workerData as WorkerInput | { bodies: true };
const port = parentPort!;

if ('bodies' in input) {
  serveBodies(port);
} else {
  const post = (m: WorkerMessage, transfer: readonly ArrayBuffer[] = []) => port.postMessage(m, [...transfer]);
  const target = batchTarget(post, input.control, input.channel);
  let rawBytes = 0;
  try {
    const session = new ImportSession(postingWriter(target, () => rawBytes, input.adapter), input.projectId, undefined, input.batchSpans, input.adapter);
    const broken = await readFileInto(session, input.job, (n) => (rawBytes = n));
    const report = await session.finish();
    target.end();
    post({ type: 'done', report, broken });
  } catch (e) {
    if (!(e instanceof Cancelled)) {
      // The batches posted before the failure are written before it is reported (the main thread waits for `end`'s answer).
      target.end();
      post(failMessage(e));
    }
  }
}
