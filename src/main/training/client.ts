/**
 * The main-thread side of the built-in engine: two trainer worker threads, one for jobs (`train`)
 * and one for everything else (`infer`: completions, scoring, new checkpoints), so inference never
 * waits behind a gradient step. Requests go over postMessage with ids; replies resolve or reject
 * their promise (errors keep the worker's message); progress (job start, gradient steps, streamed
 * tokens) arrives as messages for the same id. Nothing here loads TensorFlow.js, so the main event
 * loop never runs model code.
 */
import { BASE_MODELS, DEFAULT_BASE_MODEL } from './config.js';
import type { ChatMessage, CompletionRequest, GeneratedChoice, StepMetrics, TrainerEngine, TrainRequest } from './engine.js';
import type { WorkerInit, WorkerMemory, WorkerReply, WorkerRole } from './protocol.js';
import { WorkerRpc, type RpcReply } from '../worker-rpc.js';

/** The error a job rejects with when it was aborted (its signal's reason is the message). */
export class EngineJobAborted extends Error {
  readonly aborted = true;
}

function slot(role: WorkerRole, busy: SharedArrayBuffer): WorkerRpc {
  const data: Omit<WorkerInit, 'entry'> = { role, busy };
  return new WorkerRpc({
    sourceEntry: new URL('./worker.ts', import.meta.url),
    bundleName: 'trainer-worker.js',
    label: `trainer worker (${role})`,
    closedMessage: 'trainer engine closed',
    workerData: data,
    errorOf: (msg) => (msg.aborted ? new EngineJobAborted(msg.message) : new Error(msg.message)),
  });
}

/** Routes a worker's progress messages to the request's hooks. */
function progress(hooks: { onStart?: TrainRequest['onStart']; onStep?: (m: StepMetrics) => void; onToken?: CompletionRequest['onToken'] }) {
  return (raw: RpcReply) => {
    const msg = raw as unknown as WorkerReply;
    if (msg.type === 'step') hooks.onStep?.(msg.metrics);
    else if (msg.type === 'start') hooks.onStart?.(msg.info);
    else if (msg.type === 'token') hooks.onToken?.(msg.index, msg.text, msg.logprobs);
  };
}

export class BuiltinEngine implements TrainerEngine {
  private readonly busy = new SharedArrayBuffer(4);
  private readonly train = slot('train', this.busy);
  private readonly infer = slot('infer', this.busy);

  baseModels(): string[] {
    return Object.keys(BASE_MODELS);
  }

  /** The base model that serves names the engine cannot run (issue 11: any base model name is accepted). */
  defaultBaseModel(): string {
    return DEFAULT_BASE_MODEL;
  }

  /**
   * Pings the inference worker, and the job worker when it runs (system-check cpu_queue). A job worker
   * not started yet is the same code the inference worker just proved loads; starting it for a check
   * would cost its memory and, on a loaded machine, seconds.
   */
  async ping(): Promise<void> {
    await Promise.all([this.infer.call('ping', {}), ...(this.train.started ? [this.train.call('ping', {})] : [])]);
  }

  async accelerator(): Promise<{ available: boolean; reason: string | null }> {
    return (await this.infer.call('accelerator', {})) as { available: boolean; reason: string | null };
  }

  async initCheckpoint(baseModel: string, outCheckpointDir: string): Promise<void> {
    await this.infer.call('init', { baseModel, outCheckpointDir });
  }

  private job(op: 'sft' | 'rl', req: TrainRequest): Promise<void> {
    const { onStep, onStart, signal, ...args } = req;
    if (signal?.aborted) return Promise.reject(new EngineJobAborted(String(signal.reason ?? 'the job was cancelled')));
    const id = this.train.id();
    const cancel = () => this.train.post('cancel', { target: id, reason: String(signal?.reason ?? 'the job was cancelled') });
    signal?.addEventListener('abort', cancel, { once: true });
    return (this.train.call(op, args, { id, onProgress: progress({ onStep, onStart }) }) as Promise<void>).finally(() =>
      signal?.removeEventListener('abort', cancel),
    );
  }

  sft(req: Parameters<TrainerEngine['sft']>[0]): Promise<void> {
    return this.job('sft', req);
  }

  rl(req: Parameters<TrainerEngine['rl']>[0]): Promise<void> {
    return this.job('rl', req);
  }

  async complete(req: CompletionRequest): Promise<GeneratedChoice[]> {
    const { onToken, ...args } = req;
    return (await this.infer.call('complete', args, { onProgress: progress({ onToken }) })) as GeneratedChoice[];
  }

  /**
   * Logprobs of `completionTokenIds` after `prompt` (chat template + assistant marker), teacher-forced
   * in one pass: what training sees. Not part of TrainerEngine; used by tests and diagnostics.
   */
  async score(checkpointDir: string, prompt: ChatMessage[], completionTokenIds: number[]): Promise<number[]> {
    return (await this.infer.call('score', { checkpointDir, prompt, completionTokenIds })) as number[];
  }

  /** Memory of every started worker (bench and diagnostics). */
  async memory(): Promise<WorkerMemory[]> {
    const slots = [this.infer, this.train].filter((s) => s.started);
    return Promise.all(slots.map((s) => s.call('memory', {}) as Promise<WorkerMemory>));
  }

  async close(): Promise<void> {
    await Promise.all([this.train.close(), this.infer.close()]);
  }
}
