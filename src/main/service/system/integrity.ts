/**
 * The database check (issue 13.10): `PRAGMA quick_check` in the background at every start, and
 * `integrity_check` on request (`POST /app/integrity-check`). Damage found puts the server in
 * read-only mode — every write refused with a 503 that says why, reads still answered — rather than
 * letting it write into a damaged file, which is how a small corruption becomes a lost database.
 */
import type { ServiceContext } from '../context.js';
import { errorMessage } from '../../../shared/errors.js';

export interface CheckOptions {
  full: boolean;
  log?: (line: string) => void;
}

export async function runIntegrityCheck(ctx: ServiceContext, opts: CheckOptions) {
  const at = new Date().toISOString();
  let result;
  try {
    result = await ctx.traces.verify({ full: opts.full });
  } catch (err) {
    result = { ok: false, problems: [`the check itself failed: ${errorMessage(err)}`], ms: 0 };
  }
  const check = { at, full: opts.full, ...result };
  if (ctx.health) ctx.health.lastCheck = check;
  if (!result.ok && ctx.health && !ctx.health.readOnlyReason) {
    const more = result.problems.length > 1 ? ` (and ${result.problems.length - 1} more problems)` : '';
    ctx.health.readOnlyReason = `${opts.full ? 'integrity_check' : 'quick_check'} found damage in ${ctx.traces.location}: ${result.problems[0]}${more}`;
    // Said as soon as health says it (the store may take a moment: its writer runs on a thread of its own).
    opts.log?.(`${ctx.health.readOnlyReason}. Loupe now runs READ-ONLY: export what you need, then move the file aside to start afresh.`);
    try {
      await ctx.traces.refuseWrites(true);
    } catch {
      // A closing store: nothing to protect any more.
    }
  }
  return check;
}
