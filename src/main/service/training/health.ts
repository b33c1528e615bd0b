/**
 * /v1/health and /v1/system-check (semantics §9.8, issue 11): real checks. 200 when the configured
 * trainer can take jobs and completions; the GPU check is reported as not applicable on the built-in
 * CPU trainer (no accelerator is needed, so its absence is not a failure); 503 only when a check fails.
 */
import { withStatus, type StatusResult } from '../../../shared/status-result.js';
import type { OpOutput } from '../../../shared/contract/index.js';
import type { ServiceContext } from '../context.js';
import { errorMessage } from './util.js';
import { appInfo } from '../../settings/app-root.js';

export const health = (): OpOutput<'training.health'> => ({ status: 'ok', version: appInfo().version });

type Output = OpOutput<'training.systemCheck'>;
type Check = Output['cpu_queue'];

/** Runs a check; `fn` answers null (ok), a string (failed, why) or `{notApplicable: why}`. */
async function timed(fn: () => Promise<string | null | { notApplicable: string }>): Promise<Check> {
  const t = performance.now();
  const secs = () => (performance.now() - t) / 1000;
  try {
    const r = await fn();
    if (r !== null && typeof r === 'object') return { success: true, duration: secs(), error: null, applicable: false, detail: r.notApplicable };
    return { success: r === null, duration: secs(), error: r, applicable: true, detail: null };
  } catch (e) {
    return { success: false, duration: secs(), error: errorMessage(e), applicable: true, detail: null };
  }
}

/** A cold start of the inference worker (TF.js + wasm) takes seconds on a loaded machine. */
const TIMEOUT_MS = 15_000;
const withTimeout = <T>(p: Promise<T>, what: string) =>
  Promise.race([p, new Promise<never>((_, rej) => setTimeout(() => rej(new Error(`${what} did not answer within ${TIMEOUT_MS} ms`)), TIMEOUT_MS).unref())]);

/**
 * The check object itself, with 503 when a check fails (semantics §9.8): a status result, so HTTP
 * sends `{api, database, cpu_queue, gpu_queue, backends}` rather than a `{detail}` string.
 */
export async function systemCheck(ctx: ServiceContext): Promise<Output | StatusResult<Output>> {
  let database: boolean;
  // A store that answers but refuses writes (read-only after damage, a full disk) is not fine either (issue 13.6).
  const blocker = ctx.health?.writeBlocker() ?? null;
  try {
    database = (await ctx.traces.ping()) && (await ctx.app.ping()) && blocker === null;
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
    // The built-in trainer runs on the CPU by design: no accelerator is not a failure.
    return a.available ? null : { notApplicable: a.reason ?? 'no accelerator backend; the built-in trainer runs on the CPU' };
  });
  const backends = await Promise.all(
    (await ctx.app.training.listBackends()).map(async (b) => {
      const c = await timed(async () => {
        await withTimeout(ctx.training!.remote.call(b.name, 'GET', '/v1/health'), `remote backend "${b.name}"`);
        return null;
      });
      return { name: b.name, success: c.success, duration: c.duration, error: c.error };
    }),
  );
  const body = { api: true, database, cpu_queue, gpu_queue, backends };
  if (!database || !cpu_queue.success || !gpu_queue.success) return withStatus(503, body, failureMessage(body, blocker));
  return body;
}

/** One line naming each failed check with its reason (IPC error detail, logs). */
function failureMessage(body: Output, blocker: string | null): string {
  const failed = [
    !body.database && `database: ${blocker ?? 'the store did not answer a query'}`,
    !body.cpu_queue.success && `cpu_queue: ${body.cpu_queue.error}`,
    !body.gpu_queue.success && `gpu_queue: ${body.gpu_queue.error}`,
  ].filter(Boolean);
  return `System check failed — ${failed.join('; ')}`;
}
