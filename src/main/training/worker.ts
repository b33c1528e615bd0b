/**
 * The trainer worker thread: every TF.js call happens here, never on the main event loop. Requests
 * are handled concurrently at await points (between tokens and gradient steps), so a ping or a
 * completion is answered while a job trains.
 */
import { parentPort, workerData } from 'node:worker_threads';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { initBackend } from './backend.js';
import { baseModelConfig } from './config.js';
import { loadCheckpoint, saveCheckpoint, type CheckpointMeta } from './checkpoint.js';
import { generate, type GenerateArgs } from './generate.js';
import { initWeights, type Weights } from './model.js';
import { MAX_YIELD_MS, type WorkerInit, type WorkerReply, type WorkerRequest } from './protocol.js';
import { rl, sft } from './train.js';
import { JobAborted, type StepGate } from './optimize.js';
import { scoreCompletion } from './score.js';
import type { ChatMessage } from './engine.js';
import { errorMessage } from '../../shared/errors.js';
import { textOf } from '../../shared/text.js';

const port = parentPort;
if (!port) throw new Error('the trainer worker must run in a worker thread');

const ready = initBackend();
const init = workerData as WorkerInit;
const busy = new Int32Array(init.busy);

/**
 * The job worker runs at a lower CPU priority than the rest of Loupe, so on a busy machine a
 * completion or a request is scheduled before a gradient step. Linux applies a nice value to one
 * thread when given its thread id (/proc/thread-self names it); elsewhere this is skipped.
 */
export const TRAIN_NICE = 10;
if (init.role === 'train') {
  try {
    const tid = Number(path.basename(fs.readlinkSync('/proc/thread-self')));
    if (Number.isInteger(tid) && tid > 0) os.setPriority(tid, TRAIN_NICE);
  } catch {
    // not Linux, or not allowed: the yield between steps still applies
  }
}

/** Jobs running in this worker, by request id, so a `cancel` can stop them between steps. */
const running = new Map<number, AbortController>();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A training step waits while completions are in flight (bounded), then runs. */
function gateFor(id: number): StepGate {
  const ctl = new AbortController();
  running.set(id, ctl);
  return {
    signal: ctl.signal,
    beforeStep: async () => {
      const until = Date.now() + MAX_YIELD_MS;
      while (Atomics.load(busy, 0) > 0 && Date.now() < until && !ctl.signal.aborted) await sleep(5);
    },
  };
}

/** Loaded checkpoints, most recently used last. Checkpoint directories are immutable once written. */
const CACHE_SIZE = 4;
interface Cached {
  key: string;
  meta: CheckpointMeta;
  weights: Weights;
  users: number;
}
const cache = new Map<string, Cached>();

async function acquire(dir: string): Promise<Cached> {
  const stat = fs.statSync(path.join(dir, 'weights.bin'), { throwIfNoEntry: false });
  if (!stat) throw new Error(`checkpoint ${dir}: weights.bin not found`);
  const key = `${stat.mtimeMs}:${stat.size}`;
  let hit = cache.get(dir);
  if (hit && hit.key !== key) {
    cache.delete(dir);
    if (hit.users === 0) tf.dispose(Object.values(hit.weights));
    hit = undefined;
  }
  if (!hit) {
    const { meta, weights } = await loadCheckpoint(dir);
    hit = { key, meta, weights, users: 0 };
  }
  cache.delete(dir);
  cache.set(dir, hit);
  hit.users++;
  // Evict least recently used entries that no running request still uses.
  for (const [k, v] of cache) {
    if (cache.size <= CACHE_SIZE) break;
    if (v.users === 0) {
      cache.delete(k);
      tf.dispose(Object.values(v.weights));
    }
  }
  return hit;
}

function send(msg: WorkerReply): void {
  port!.postMessage(msg);
}

async function handle(req: WorkerRequest): Promise<unknown> {
  const backend = await ready;
  const a = req.args;
  const onStep = (metrics: import('./engine.js').StepMetrics) => send({ id: req.id, type: 'step', metrics });
  const onStart = (info: { numSteps: number; numSequences: number }) => send({ id: req.id, type: 'start', info });
  switch (req.op) {
    case 'ping':
      return backend;
    case 'accelerator':
      return {
        available: false,
        reason:
          `no GPU backend: TensorFlow.js runs on its "${backend.backend}" backend on the CPU ` +
          `(tfjs-node-gpu needs a native CUDA binary and WebGL needs a browser; neither is available here)` +
          (backend.note ? `; ${backend.note}` : ''),
      };
    case 'memory': {
      const m = process.memoryUsage();
      const t = tf.memory();
      return { role: init.role, rss: m.rss, heapUsed: m.heapUsed, maxRss: process.resourceUsage().maxRSS * 1024, tfBytes: t.numBytes, tfTensors: t.numTensors };
    }
    case 'cancel': {
      const ctl = running.get(Number(a.target));
      if (!ctl) return false;
      ctl.abort(textOf(a.reason) || 'the job was cancelled');
      return true;
    }
    case 'init': {
      const baseModel = String(a.baseModel);
      const cfg = baseModelConfig(baseModel);
      const weights = initWeights(cfg);
      try {
        await saveCheckpoint(String(a.outCheckpointDir), { baseModel, config: cfg, step: 0 }, weights);
      } finally {
        tf.dispose(Object.values(weights));
      }
      return null;
    }
    case 'sft':
      try {
        await sft({ ...(a as unknown as Parameters<typeof sft>[0]), onStart, onStep, gate: gateFor(req.id) });
      } finally {
        running.delete(req.id);
      }
      return null;
    case 'rl':
      try {
        await rl({ ...(a as unknown as Parameters<typeof rl>[0]), onStart, onStep, gate: gateFor(req.id) });
      } finally {
        running.delete(req.id);
      }
      return null;
    case 'complete': {
      Atomics.add(busy, 0, 1);
      try {
        const c = await acquire(String(a.checkpointDir));
        try {
          return await generate(c.meta.config, c.weights, a as unknown as GenerateArgs, (index, text, logprobs) =>
            send({ id: req.id, type: 'token', index, text, logprobs }),
          );
        } finally {
          c.users--;
        }
      } finally {
        Atomics.sub(busy, 0, 1);
      }
    }
    case 'score': {
      const c = await acquire(String(a.checkpointDir));
      try {
        return scoreCompletion(c.meta.config, c.weights, a.prompt as ChatMessage[], a.completionTokenIds as number[]);
      } finally {
        c.users--;
      }
    }
    default:
      throw new Error(`unknown trainer operation "${String(req.op)}"`);
  }
}

port.on('message', (req: WorkerRequest) => {
  handle(req).then(
    (value) => send({ id: req.id, type: 'result', value }),
    (e: unknown) => send({ id: req.id, type: 'error', message: errorMessage(e), aborted: e instanceof JobAborted }),
  );
});
