/**
 * The server-thread side of the training intake (intake-worker.ts): one worker thread, started on
 * first use, that parses and checks large bodies so the server keeps answering (issue 13: a 54 MiB
 * job body held /v1/health for 5 s). Owned by the training runtime, closed with it.
 */
import { ServiceError } from '../../../shared/errors.js';
import { WorkerRpc } from '../../worker-rpc.js';
import type { IntakeResult, LogIntakeResult } from './intake-worker.js';
import type { LinkedRollout, RolloutModel } from './rollouts.js';

/** The body's bytes as an ArrayBuffer to transfer (not copy) to the worker: unusable here afterwards. */
function transferable(body: Buffer): ArrayBuffer {
  return (body.buffer.byteLength === body.length && body.byteOffset === 0 ? body.buffer : body.buffer.slice(body.byteOffset, body.byteOffset + body.length)) as ArrayBuffer;
}

export class TrainingIntake {
  private readonly rpc = new WorkerRpc({
    sourceEntry: new URL('./intake-worker.ts', import.meta.url),
    bundleName: 'training-intake-worker.js',
    label: 'training intake worker',
  });

  /** Parses and checks an RL job body, writes its payload file; a 422 names what is wrong. */
  async rlBody(body: Buffer, dataDir: string, payloadRel: string): Promise<Record<string, unknown>> {
    const ab = transferable(body);
    const r = (await this.rpc.call('rl-body', { body: ab, dataDir, payloadRel }, { transfer: [ab] })) as IntakeResult;
    if (!r.ok) throw new ServiceError(422, r.issues);
    return r.value;
  }

  /** Checks a /log body and builds its rollout spans (an OTLP/JSON request); a 422 names what is wrong. */
  async logBody(
    body: Buffer,
    model: RolloutModel,
    step: number,
    modelId: string,
    t0: bigint,
  ): Promise<{ request: Buffer | null; linked: LinkedRollout[]; rewards: { trace_id: string; reward: number }[]; metrics: Record<string, number> }> {
    const ab = transferable(body);
    const r = (await this.rpc.call('log-body', { body: ab, model, step, modelId, t0 }, { transfer: [ab] })) as LogIntakeResult;
    if (!r.ok) throw new ServiceError(422, r.issues);
    return { request: r.request ? Buffer.from(r.request) : null, linked: r.linked, rewards: r.rewards, metrics: r.metrics };
  }

  /** Checks an SFT JSONL file line by line; returns its line count or throws the first error (without file content). */
  async sftCheck(path: string, label: string, maxBytes: number): Promise<number> {
    const r = (await this.rpc.call('sft-check', { path, label, maxBytes })) as { ok: true; lines: number } | { ok: false; error: string };
    if (!r.ok) throw new Error(r.error);
    return r.lines;
  }

  close(): Promise<void> {
    return this.rpc.close();
  }
}
