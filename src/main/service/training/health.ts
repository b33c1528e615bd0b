/** /v1/health and /v1/system-check (semantics §9.8): real checks, 503 when one fails. */
import { ServiceError } from '../../../shared/errors.js';
import type { OpOutput } from '../../../shared/contract/index.js';
import type { ServiceContext } from '../context.js';
import { errorMessage } from './util.js';
import { appInfo } from '../../settings/app-root.js';

export const health = (): OpOutput<'training.health'> => ({ status: 'ok', version: appInfo().version });

type Check = { success: boolean; duration: number; error: string | null };

async function timed(fn: () => Promise<string | null>): Promise<Check> {
  const t = performance.now();
  try {
    const err = await fn();
    return { success: err === null, duration: (performance.now() - t) / 1000, error: err };
  } catch (e) {
    return { success: false, duration: (performance.now() - t) / 1000, error: errorMessage(e) };
  }
}

const TIMEOUT_MS = 5000;
const withTimeout = <T>(p: Promise<T>, what: string) =>
  Promise.race([p, new Promise<never>((_, rej) => setTimeout(() => rej(new Error(`${what} did not answer within ${TIMEOUT_MS} ms`)), TIMEOUT_MS).unref())]);

/** Body of the check; a failing check answers 503 with the same body as `detail`-free JSON. */
export async function systemCheck(ctx: ServiceContext): Promise<OpOutput<'training.systemCheck'>> {
  let database = false;
  try {
    database = ctx.store.meta.ping();
  } catch {
    database = false;
  }
  const engine = ctx.training?.engine;
  const cpu_queue = await timed(async () => {
    if (!engine) return 'the trainer is not started';
    await withTimeout(engine.ping(), 'the trainer worker');
    return null;
  });
  const gpu_queue = await timed(async () => {
    if (!engine) return 'the trainer is not started';
    const a = await withTimeout(engine.accelerator(), 'the trainer worker');
    return a.available ? null : (a.reason ?? 'no accelerator backend');
  });
  const body = { api: true, database, cpu_queue, gpu_queue };
  if (!database || !cpu_queue.success || !gpu_queue.success) throw new SystemCheckFailed(body);
  return body;
}

/**
 * 503 for a failed check. The transports answer `{detail}` with a string, so the message names each
 * failed check with its reason; `body` keeps the full results for in-process callers.
 */
export class SystemCheckFailed extends ServiceError {
  constructor(readonly body: OpOutput<'training.systemCheck'>) {
    const failed = [
      !body.database && 'database: the store did not answer a query',
      !body.cpu_queue.success && `cpu_queue: ${body.cpu_queue.error}`,
      !body.gpu_queue.success && `gpu_queue: ${body.gpu_queue.error}`,
    ].filter(Boolean);
    super(503, `System check failed — ${failed.join('; ')} (api: ok, database: ${body.database ? 'ok' : 'failed'}, cpu_queue: ${body.cpu_queue.success ? 'ok' : 'failed'}, gpu_queue: ${body.gpu_queue.success ? 'ok' : 'failed'})`);
  }
}
