/**
 * Request/response over one lazily started worker thread: each call posts `{id, op, args}` and
 * settles when the worker answers `{id, type: 'result' | 'error'}`; any other message for the id is
 * progress for the caller. A crashed worker rejects everything in flight and the next call starts a
 * fresh one. The worker is unref'ed while idle, so nobody has to close an engine for the process to
 * exit. Used by the trainer (src/main/training/client.ts) and the training intake (job bodies).
 */
import { Worker, type Transferable } from 'node:worker_threads';
import { workerLaunch } from './worker-launch.js';

export interface RpcReply {
  id: number;
  type: string;
  value?: unknown;
  message?: string;
  aborted?: boolean;
}

interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
  onProgress?: (msg: RpcReply) => void;
}

export class WorkerRpc {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  constructor(
    private readonly opts: {
      sourceEntry: URL;
      bundleName: string;
      label: string;
      workerData?: Record<string, unknown>;
      /** What calls in flight reject with when close() stops the worker (default "<label> closed"). */
      closedMessage?: string;
      /** Turns an error reply into the rejection (e.g. a typed error for aborted jobs). */
      errorOf?: (msg: RpcReply) => Error;
    },
  ) {}

  private start(): Worker {
    const { file, entry } = workerLaunch(this.opts.sourceEntry, this.opts.bundleName);
    const w = new Worker(file, { workerData: { ...this.opts.workerData, entry } });
    w.unref();
    w.on('message', (msg: RpcReply) => this.onMessage(msg));
    w.on('error', (e) => this.fail(w, `${this.opts.label} crashed: ${e.message}`));
    w.on('exit', (code) => this.fail(w, `${this.opts.label} exited (code ${code})`));
    this.worker = w;
    return w;
  }

  private onMessage(msg: RpcReply): void {
    const p = this.pending.get(msg.id);
    if (!p) return;
    if (msg.type !== 'result' && msg.type !== 'error') return p.onProgress?.(msg);
    this.pending.delete(msg.id);
    if (this.pending.size === 0) this.worker?.unref();
    if (msg.type === 'result') p.resolve(msg.value);
    else p.reject(this.opts.errorOf?.(msg) ?? new Error(msg.message));
  }

  private fail(w: Worker, message: string): void {
    if (this.worker !== w) return;
    this.worker = null;
    for (const p of this.pending.values()) p.reject(new Error(message));
    this.pending.clear();
  }

  /** A new request id (callers that need to name a request, e.g. to cancel it, take one first). */
  id(): number {
    return this.nextId++;
  }

  call(op: string, args: Record<string, unknown>, opts: { id?: number; onProgress?: (msg: RpcReply) => void; transfer?: Transferable[] } = {}): Promise<unknown> {
    const w = this.worker ?? this.start();
    const id = opts.id ?? this.id();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress: opts.onProgress });
      w.ref(); // keep the process alive while work is in flight
      w.postMessage({ id, op, args }, opts.transfer ?? []);
    });
  }

  /** A message that expects no answer (cancel), sent only to a running worker. */
  post(op: string, args: Record<string, unknown>): void {
    this.worker?.postMessage({ id: this.id(), op, args });
  }

  get started(): boolean {
    return this.worker !== null;
  }

  async close(): Promise<void> {
    const w = this.worker;
    if (!w) return;
    this.fail(w, this.opts.closedMessage ?? `${this.opts.label} closed`);
    await w.terminate();
  }
}
