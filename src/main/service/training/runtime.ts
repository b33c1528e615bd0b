/**
 * The training runtime: the trainer engine (worker thread), the job runner and the remote
 * backends, hung off the service context as `ctx.training`. The server calls
 * startTrainingRuntime(ctx) once in startLoupe; tests may pass their own engine options.
 */
import type { ServiceContext } from '../context.js';
import type { TrainerEngine } from '../../training/engine.js';
import { JobRunner } from './runner.js';
import { RemoteBackends } from './remote.js';
import { TrainingIntake } from './intake.js';
import { StoreDamagedError } from '../../store/ports.js';

export interface TrainingRuntime {
  readonly engine: TrainerEngine;
  readonly runner: JobRunner;
  readonly remote: RemoteBackends;
  /** Parses and checks large job bodies and dataset uploads off the server thread. */
  readonly intake: TrainingIntake;
  close(): Promise<void>;
}

declare module '../context.js' {
  interface ServiceExtensions {
    /** Training runtime (job runner, trainer worker, remote backends); set by startTrainingRuntime. */
    training?: TrainingRuntime;
  }
}

export interface TrainingRuntimeOptions {
  /** Use this engine instead of the built-in one (the runtime then does not close it). */
  engine?: TrainerEngine;
}

/** Starts the runtime for a service context (recovery after a crash, docs/training.md; queued jobs resume). */
export async function startTrainingRuntime(ctx: ServiceContext, opts: TrainingRuntimeOptions = {}): Promise<TrainingRuntime> {
  // Loaded on demand so importing the service (e.g. for /openapi.json) does not load TensorFlow.js.
  const engine = opts.engine ?? (await import('../../training/index.js')).createBuiltinEngine();
  const remote = new RemoteBackends(ctx);
  const runner = new JobRunner(ctx, engine, remote);
  const intake = new TrainingIntake();
  const rt: TrainingRuntime = {
    engine,
    runner,
    remote,
    intake,
    close: async () => {
      // Stop taking jobs, then stop the worker: a job still training fails with the engine's
      // error (it would be marked FAILED at next start anyway) instead of holding shutdown.
      runner.stop();
      if (!opts.engine) await engine.close();
      await intake.close();
      await runner.idle();
    },
  };
  ctx.training = rt;
  await remote.moveKeysToSecrets();
  try {
    await runner.recover();
  } catch (err) {
    // A damaged database still starts, read-only (13.10): the start-up quick_check that follows finds
    // the damage and says so. Recovery needs writes, so it waits for the next start on a sound file;
    // the failure is kept in health (last_write_failure) rather than stopping the server.
    if (!(err instanceof StoreDamagedError)) throw err;
    ctx.health?.recordFailure('damaged', err);
  }
  return rt;
}
