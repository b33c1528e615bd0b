/** /v1/health and /v1/system-check (semantics §9.8): real checks, 503 when one fails. */
import { withStatus, type StatusResult } from '../../../shared/status-result.js';
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

/**
 * The check object itself, with 503 when a check fails (semantics §9.8): a status result, so HTTP
 * sends `{api, database, cpu_queue, gpu_queue}` rather than a `{detail}` string.
 */
export async function systemCheck(ctx: ServiceContext): Promise<OpOutput<'training.systemCheck'> | StatusResult<OpOutput<'training.systemCheck'>>> {
  let database = false;
  // A store that answers but refuses writes (read-only after damage, a full disk) is not fine either (issue 13.6).
  const blocker = ctx.health?.writeBlocker() ?? null;
  try {
    database = ctx.store.meta.ping() && blocker === null;
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
  if (!database || !cpu_queue.success || !gpu_queue.success) return withStatus(503, body, failureMessage(body, blocker));
  return body;
}

/** One line naming each failed check with its reason (IPC error detail, logs). */
function failureMessage(body: OpOutput<'training.systemCheck'>, blocker: string | null): string {
  const failed = [
    !body.database && `database: ${blocker ?? 'the store did not answer a query'}`,
    !body.cpu_queue.success && `cpu_queue: ${body.cpu_queue.error}`,
    !body.gpu_queue.success && `gpu_queue: ${body.gpu_queue.error}`,
  ].filter(Boolean);
  return `System check failed — ${failed.join('; ')}`;
}
