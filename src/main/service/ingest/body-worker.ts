/**
 * Worker side of body jobs (body-ingest.ts): each `job` message carries one body (transferred, not
 * copied) with its content type and encoding; it is decompressed, parsed and normalized here exactly
 * as in-thread (readBodyInto), its batches posted to the store's writer thread (the job's channel)
 * or, for a store without one, to the main thread for writing. Jobs run one after
 * another; every message back carries the job's id.
 *
 * A job with `spoolAt` (spool.ts) is only checked when its body is that large: decoded and parsed in
 * full (a body that is not trace data is refused as by an import) and each span checked for what
 * makes it storable (ids, times: the import's skipped spans) without being normalized or written; the
 * body goes back to the main thread with the parse report (`checked`) to be spooled.
 */
import type { MessagePort } from 'node:worker_threads';
import type { ChannelHandle } from '../../store/ports.js';
import { ImportSession, type ParseReport } from './session.js';
import { countBodySpans, decodeBody, parseBodyInto } from './buffer.js';
import type { WorkerMessage } from './pipeline.js';
import { Cancelled, batchTarget, failMessage, postingWriter } from './worker-writer.js';

export interface BodyJob {
  type: 'job';
  id: number;
  body: ArrayBuffer;
  contentType?: string;
  contentEncoding?: string;
  projectId?: string;
  control: SharedArrayBuffer;
  batchSpans: number;
  /** The TraceStore adapter the spans are encoded for. */
  adapter: string;
  /** The store's batch channel (ports.ts BatchChannel), when it writes on a thread of its own. */
  channel?: ChannelHandle;
  /** Check, don't import, a body of at least this many spans or decompressed bytes (spool.ts). */
  spoolAt?: SpoolThreshold;
}

export interface SpoolThreshold {
  spans: number;
  bytes: number;
}

/** A large body parsed without writing: its report and span count, and the body itself (transferred back). */
export interface CheckedBody {
  type: 'checked';
  report: ParseReport;
  spans: number;
  body: ArrayBuffer;
}

export type BodyReply = (WorkerMessage | CheckedBody) & { id: number };

export function serveBodies(port: MessagePort): void {
  // One job after another, as they arrive.
  let jobs: Promise<void> = Promise.resolve();
  port.on('message', (job: BodyJob) => {
    jobs = jobs.then(() => run(port, job));
  });
}

async function run(port: MessagePort, job: BodyJob): Promise<void> {
  const post = (m: WorkerMessage, transfer: readonly ArrayBuffer[] = []) => port.postMessage({ ...m, id: job.id } satisfies BodyReply, [...transfer]);
  const body = Buffer.from(job.body);
  const target = batchTarget(post, job.control, job.channel);
  try {
    const decoded = decodeBody(body, job);
    const at = job.spoolAt;
    if (at && (decoded.data.length >= at.bytes || countBodySpans(decoded) >= at.spans)) {
      const checking = new ImportSession({ write: () => undefined }, job.projectId, undefined, job.batchSpans, job.adapter).checkOnly();
      parseBodyInto(checking, decoded);
      const report = await checking.finish();
      target.end();
      port.postMessage({ type: 'checked', report, spans: checking.spans, body: job.body, id: job.id } satisfies BodyReply, [job.body]);
      return;
    }
    const session = new ImportSession(postingWriter(target, () => body.length, job.adapter), job.projectId, undefined, job.batchSpans, job.adapter);
    parseBodyInto(session, decoded);
    const report = await session.finish();
    target.end();
    post({ type: 'done', report, broken: null });
  } catch (e) {
    if (e instanceof Cancelled) return;
    target.end();
    post(failMessage(e));
  }
}
