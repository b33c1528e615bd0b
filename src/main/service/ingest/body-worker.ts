/**
 * Worker side of body jobs (body-ingest.ts): each `job` message carries one body (transferred, not
 * copied) with its content type and encoding; it is decompressed, parsed and normalized here exactly
 * as in-thread (readBodyInto), its batches posted to the store's writer thread (the job's channel)
 * or, for a store without one, to the main thread for writing. Jobs run one after
 * another; every message back carries the job's id.
 */
import type { MessagePort } from 'node:worker_threads';
import type { ChannelHandle } from '../../store/ports.js';
import { ImportSession } from './session.js';
import { readBodyInto } from './buffer.js';
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
}

export type BodyReply = WorkerMessage & { id: number };

export function serveBodies(port: MessagePort): void {
  // One job after another, as they arrive.
  let jobs: Promise<void> = Promise.resolve();
  port.on('message', (job: BodyJob) => {
    jobs = jobs.then(() => run(port, job));
  });
}

async function run(port: MessagePort, job: BodyJob): Promise<void> {
  const post = (m: WorkerMessage) => port.postMessage({ ...m, id: job.id } satisfies BodyReply);
  const body = Buffer.from(job.body);
  const target = batchTarget(post, job.control, job.channel);
  try {
    const session = new ImportSession(postingWriter(target, () => body.length, job.adapter), job.projectId, undefined, job.batchSpans, job.adapter);
    readBodyInto(session, body, job);
    const report = await session.finish();
    target.end();
    post({ type: 'done', report, broken: null });
  } catch (e) {
    if (e instanceof Cancelled) return;
    target.end();
    post(failMessage(e));
  }
}
