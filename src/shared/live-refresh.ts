/** Which cached queries a `data.changed` event makes stale (the renderer's api/query.ts refetches just those). */
import type { OpName } from './contract/index.js';

/**
 * The data tables (as `data.changed` names them) each operation's answer is read from. A change
 * refetches only the queries that read a changed table of the changed project: a thumbs-up refetches
 * the chat views and feedback lists, not the conversations list, spans, agents or threads. An
 * operation not listed here refetches on every change (the safe default).
 */
const READS: Partial<Record<OpName, readonly string[]>> = {
  'chat.conversation': ['spans', 'feedback'],
  'chat.trace': ['spans', 'feedback'],
  'feedback.query': ['feedback'],
  'conversations.list': ['spans', 'scores'],
  'scores.query': ['scores'],
  'scores.summary': ['scores'],
  'clusters.list': ['spans', 'scores'],
  'conversations.facets': ['spans'],
  'spans.query': ['spans', 'scores'],
  'agents.query': ['spans'],
  'threads.query': ['spans'],
  'traces.timeline': ['spans'],
  'system.projects': ['spans'],
  'system.getSettings': ['spans'],
  'system.storage': ['spans'],
};

/**
 * Whether a query [name, input] reads a table that changed (`changed`: project → tables; the null
 * project is a change of unknown project, e.g. another process wrote, which concerns every project).
 */
export function isStale(queryKey: readonly unknown[], changed: ReadonlyMap<string | null, ReadonlySet<string>>): boolean {
  const reads = READS[queryKey[0] as OpName];
  const input = queryKey[1] as { project_id?: unknown } | null | undefined;
  const pid = input && typeof input === 'object' ? input.project_id : undefined;
  // Queries without a project (projects list, settings) refresh on a change of any project.
  const tables = typeof pid === 'string' ? [changed.get(pid), changed.get(null)] : [...changed.values()];
  return tables.some((t) => t !== undefined && (!reads || reads.some((r) => t.has(r))));
}

