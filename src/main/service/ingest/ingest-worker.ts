/**
 * The ingest worker thread (pipeline.ts starts it): reads, parses and normalizes one file with the
 * same StreamReader and ImportSession as an in-thread import, posting each batch to the main thread
 * instead of writing it, and waiting while MAX_IN_FLIGHT batches are not yet committed.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { SpanRecord } from '../../domain/span.js';
import { ServiceError } from '../../../shared/errors.js';
import { ImportSession, type BatchWriter, type Reject } from './session.js';
import { readFileInto } from './file.js';
import { prepareSpan, type PreparedSpan } from '../../store/sqlite/ingest.js';
import { ACKED, CANCELLED, MAX_IN_FLIGHT, PIPELINE_BATCH_SPANS, type WorkerInput, type WorkerMessage } from './pipeline.js';

const input = workerData as WorkerInput;
const port = parentPort!;
const slots = new Int32Array(input.control);
const post = (m: WorkerMessage) => port.postMessage(m);

let rawBytes = 0;
let posted = 0;

class Cancelled extends Error {}

const toMain: BatchWriter = {
  write(spans: SpanRecord[], lines: (number | null)[], reject: Reject) {
    const rows: PreparedSpan[] = [];
    const rowLines: (number | null)[] = [];
    spans.forEach((s, i) => {
      try {
        rows.push(prepareSpan(s)); // serializes JSON columns: a tree too deep fails here, for this span only
        rowLines.push(lines[i] ?? null);
      } catch (e) {
        reject(i, e);
      }
    });
    post({ type: 'batch', rows, lines: rowLines, rawBytes });
    posted++;
    for (;;) {
      const acked = Atomics.load(slots, ACKED);
      if (Atomics.load(slots, CANCELLED)) throw new Cancelled('import cancelled by the main thread');
      if (posted - acked <= MAX_IN_FLIGHT) return;
      Atomics.wait(slots, ACKED, acked, 1000);
    }
  },
};

try {
  const session = new ImportSession(toMain, input.projectId, undefined, PIPELINE_BATCH_SPANS);
  const broken = await readFileInto(session, input.job, (n) => (rawBytes = n));
  post({ type: 'done', report: session.finish(), broken });
} catch (e) {
  if (!(e instanceof Cancelled)) {
    post(e instanceof ServiceError ? { type: 'fail', status: e.status, detail: e.detail } : { type: 'fail', status: null, detail: (e as Error).message });
  }
}
