/**
 * The main-thread side of the built-in engine: a small pool of trainer worker threads. Requests go
 * over postMessage with ids; replies resolve or reject their promise (errors keep the worker's message);
 * progress (gradient steps, streamed tokens) arrives as messages for the same id. Nothing here loads
 * TensorFlow.js, so the main event loop never runs model code.
 */
import { Worker } from 'node:worker_threads';
import { BASE_MODELS } from './config.js';
import type { ChatMessage, CompletionRequest, GeneratedChoice, StepMetrics, TrainerEngine } from './engine.js';
import type { WorkerMemory, WorkerOp, WorkerReply } from './protocol.js';
import { workerLaunch } from '../worker-launch.js';

interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
  onStep?: (m: StepMetrics) => void;
  onToken?: (index: number, text: string) => void;
}

class WorkerSlot {
  private worker: Worker | null = null;
  readonly pending = new Map<number, Pending>();

  private start(): Worker {
    const { file, entry } = workerLaunch(new URL('./worker.ts', import.meta.url), 'trainer-worker.js');
    const w = new Worker(file, { workerData: { entry } });
    w.unref();
    w.on('message', (msg: WorkerReply) => this.onMessage(msg));
    w.on('error', (e) => this.fail(w, `trainer worker crashed: ${e.message}`));
    w.on('exit', (code) => this.fail(w, `trainer worker exited (code ${code})`));
    this.worker = w;
    return w;
  }

  private onMessage(msg: WorkerReply): void {
    const p = this.pending.get(msg.id);
    if (!p) return;
    if (msg.type === 'step') p.onStep?.(msg.metrics);
    else if (msg.type === 'token') p.onToken?.(msg.index, msg.text);
    else {
      this.pending.delete(msg.id);
      if (this.pending.size === 0) this.worker?.unref();
      if (msg.type === 'result') p.resolve(msg.value);
      else p.reject(new Error(msg.message));
    }
  }

  /** Rejects everything in flight; the next call starts a fresh worker. */
  private fail(w: Worker, message: string): void {
    if (this.worker !== w) return;
    this.worker = null;
    for (const p of this.pending.values()) p.reject(new Error(message));
    this.pending.clear();
  }

  call(id: number, op: WorkerOp, args: Record<string, unknown>, hooks: Omit<Pending, 'resolve' | 'reject'> = {}): Promise<unknown> {
    const w = this.worker ?? this.start();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, ...hooks });
      w.ref(); // keep the process alive while work is in flight
      w.postMessage({ id, op, args });
    });
  }

  async close(): Promise<void> {
    const w = this.worker;
    if (!w) return;
    this.fail(w, 'trainer engine closed');
    await w.terminate();
  }
}

export class BuiltinEngine implements TrainerEngine {
  private slots: WorkerSlot[];
  private nextId = 1;

  constructor(workerCount = 1) {
    if (!Number.isInteger(workerCount) || workerCount < 1) throw new Error(`workerCount must be a positive integer, got ${workerCount}`);
    this.slots = Array.from({ length: workerCount }, () => new WorkerSlot());
  }

  /** The least busy worker takes the request, so inference can run beside a job when there are two. */
  private call(op: WorkerOp, args: Record<string, unknown>, hooks?: Omit<Pending, 'resolve' | 'reject'>): Promise<unknown> {
    const slot = this.slots.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
    return slot.call(this.nextId++, op, args, hooks);
  }

  baseModels(): string[] {
    return Object.keys(BASE_MODELS);
  }

  async ping(): Promise<void> {
    await this.call('ping', {});
  }

  async accelerator(): Promise<{ available: boolean; reason: string | null }> {
    return (await this.call('accelerator', {})) as { available: boolean; reason: string | null };
  }

  async initCheckpoint(baseModel: string, outCheckpointDir: string): Promise<void> {
    await this.call('init', { baseModel, outCheckpointDir });
  }

  async sft(req: Parameters<TrainerEngine['sft']>[0]): Promise<void> {
    const { onStep, ...args } = req;
    await this.call('sft', args, { onStep });
  }

  async rl(req: Parameters<TrainerEngine['rl']>[0]): Promise<void> {
    const { onStep, ...args } = req;
    await this.call('rl', args, { onStep });
  }

  async complete(req: CompletionRequest): Promise<GeneratedChoice[]> {
    const { onToken, ...args } = req;
    return (await this.call('complete', args, { onToken })) as GeneratedChoice[];
  }

  /**
   * Logprobs of `completionTokenIds` after `prompt` (chat template + assistant marker), teacher-forced
   * in one pass: what training sees. Not part of TrainerEngine; used by tests and diagnostics.
   */
  async score(checkpointDir: string, prompt: ChatMessage[], completionTokenIds: number[]): Promise<number[]> {
    return (await this.call('score', { checkpointDir, prompt, completionTokenIds })) as number[];
  }

  /** Memory of every started worker (bench and diagnostics). */
  async memory(): Promise<WorkerMemory[]> {
    return Promise.all(this.slots.map((s, i) => s.call(this.nextId++, 'memory', { slot: i }) as Promise<WorkerMemory>));
  }

  async close(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.close()));
  }
}
