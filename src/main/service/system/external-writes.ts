/**
 * Writes by another process into the same data folder (`loupe import` from a terminal, a second
 * `loupe serve`) appear live: every second the server asks SQLite whether another connection
 * committed (`PRAGMA data_version`, a counter read without touching any table) and, when one did,
 * announces `data.changed` for the projects of the spans stored since the last look (a rowid range
 * scan over the new rows only). A change that stored no span (feedback, a deletion) is announced with
 * `project_id: null`, which views read as "anything may have changed".
 */
import type { ServiceContext } from '../context.js';

export const EXTERNAL_POLL_MS = 1000;

export function watchExternalWrites(ctx: ServiceContext, everyMs = EXTERNAL_POLL_MS): () => void {
  // The first call only starts watching (TraceStore.externalWrites).
  const first = ctx.traces.externalWrites().catch(() => null);
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    void first
      .then(() => ctx.traces.externalWrites())
      .then((projects) => {
        if (projects === null) return;
        if (projects.length === 0) ctx.events.emit({ type: 'data.changed', project_id: null, tables: ['spans', 'feedback'] });
        for (const p of projects) ctx.events.emit({ type: 'data.changed', project_id: p, tables: ['spans'] });
      })
      // The store is closing or busy: look again at the next tick.
      .catch(() => undefined)
      .finally(() => (busy = false));
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
