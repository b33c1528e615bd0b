import type { Db } from './open.js';
import { statementCache } from './analytics/stmt-cache.js';
import { AGENTS_SQL, agentOrder, queryAgents, type AgentsRequest } from './analytics/agents.js';
import { listSpans, type ListRequest } from './analytics/spans-list.js';
import { groupQuery, groupSpans, type GroupRequest } from './analytics/spans-group.js';
import { queryThreads, threadsSql, type ThreadRow, type ThreadsRequest } from './analytics/threads.js';

/**
 * SQL of the analytics domain: threads (§5), agents (§6) and the spans query (§7). The SQL of each
 * lives in ./analytics/; this is the repository the services see.
 */
export interface AnalyticsRepo {
  agents(req: AgentsRequest): ReturnType<typeof queryAgents>;
  listSpans(req: ListRequest): { spans: Record<string, unknown>[]; total_count: number };
  groupSpans(req: GroupRequest): { groups: Record<string, unknown>[]; total_count: number };
  /** Lazily computed: each thread of the page is read when the consumer asks for it. */
  threads(req: ThreadsRequest): Iterable<ThreadRow>;
  /** EXPLAIN QUERY PLAN details of the agents page query (for the no-full-scan test). */
  explainAgents(req: AgentsRequest): string[];
  /** EXPLAIN QUERY PLAN details of a group page query (tests check which index it scans). */
  explainGroup(req: GroupRequest): string[];
  /** EXPLAIN QUERY PLAN details of the threads statements (page, one thread's turns, percentile pass). */
  explainThreads(req: ThreadsRequest): string[];
}

export type { AgentsRequest, ListRequest, GroupRequest, ThreadsRequest, ThreadRow };

export function createAnalyticsRepo(db: Db): AnalyticsRepo {
  const prep = statementCache(db);
  return {
    agents: (req) => queryAgents(prep, req),
    listSpans: (req) => listSpans(prep, req),
    groupSpans: (req) => groupSpans(prep, req),
    threads: (req) => ({ [Symbol.iterator]: () => queryThreads(prep, req) }),
    explainAgents: (req) => {
      const byName = req.filters?.agent_name !== undefined;
      const args = byName ? [req.project_id, req.filters!.agent_name, req.limit, req.offset] : [req.project_id, req.limit, req.offset];
      return (db.prepare(`EXPLAIN QUERY PLAN ${AGENTS_SQL.page(agentOrder(req), byName)}`).all(...args) as { detail: string }[]).map((r) => r.detail);
    },
    explainGroup: (req) => {
      const q = groupQuery(req);
      return (db.prepare(`EXPLAIN QUERY PLAN ${q.sql}`).all(...q.params) as { detail: string }[]).map((r) => r.detail);
    },
    explainThreads: (req) => {
      const q = threadsSql(req);
      const plan = (sql: string, args: unknown[]) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((r) => r.detail);
      return [...plan(q.page, [...q.where.params, req.limit, req.offset]), ...plan(q.turns, [...q.where.params, 'x', 'y']), ...plan(q.all, q.where.params)];
    },
  };
}
