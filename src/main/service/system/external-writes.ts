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
  const meta = ctx.store.meta;
  let version = meta.dataVersion();
  let lastRowid = meta.lastSpanRowid();
  const timer = setInterval(() => {
    try {
      const now = meta.dataVersion();
      if (now === version) return;
      version = now;
      const projects = meta.projectsWrittenAfter(lastRowid);
      lastRowid = meta.lastSpanRowid();
      if (projects.length === 0) ctx.events.emit({ type: 'data.changed', project_id: null, tables: ['spans', 'feedback'] });
      for (const p of projects) ctx.events.emit({ type: 'data.changed', project_id: p, tables: ['spans'] });
    } catch {
      // The store is closing or busy: look again at the next tick.
    }
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
