/** Everything a store's summaries answer for one project (agents, conversations, threads, group-by, projects), for comparing two stores. */
import type { TraceStore } from '../../src/main/store/ports.js';

export async function summariesSnapshot(store: TraceStore, P: string) {
  const agents = await store.agents({ project_id: P, agent_name: null, include_costs: true, sort: [{ field: 'agent_name', direction: 'asc' }], limit: 1000, offset: 0 });
  const conversations = await store.conversations({
    project_id: P, active_after_ns: null, active_before_ns: null, agent_names: null, models: null, status: 'all', search: null,
    sort: [{ field: 'conversation_id', direction: 'asc' }], limit: 1000, offset: 0, after: null,
  });
  const threads = [];
  for await (const t of store.threads({ project_id: P, after_ns: null, before_ns: null, thread_ids: null, sort: [{ field: 'thread_id', direction: 'asc' }], limit: 1000, offset: 0 })) threads.push(t);
  const groups = await store.groupSpans({
    project_id: P, started_after_ns: null, started_before_ns: null, where: null, keys: [{ alias: 'agent_name', ref: { kind: 'column', column: 'agent_name' }, type: 'string' }], measures: [], having: [],
    distributions: [], include_costs: true, previews: false, sort: [{ ref: { kind: 'key', index: 0 }, direction: 'asc' }], limit: 1000, offset: 0,
  });
  // Float sums depend on the order rows are added in: compare costs to 12 significant digits.
  const round = (x: unknown): unknown =>
    typeof x === 'number' && !Number.isInteger(x) ? Number(x.toPrecision(12)) : Array.isArray(x) ? x.map(round) : x && typeof x === 'object' ? Object.fromEntries(Object.entries(x).map(([k, v]) => [k, round(v)])) : x;
  return round({ agents, conversations, threads, groups, projects: await store.projects() });
}

