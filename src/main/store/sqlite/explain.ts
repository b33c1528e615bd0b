/**
 * EXPLAIN QUERY PLAN of the statements a plan compiles to, for the tests that pin which index each
 * read uses (never a full scan of spans where a summary or an index answers). Adapter-only: the port
 * knows nothing of query plans.
 */
import type { Db } from './open.js';
import type { AgentsPlan, ConversationsPlan, SpansGroupPlan, ThreadsPlan } from '../../domain/plans.js';
import { CONVERSATIONS_SQL, conversationsWhere } from './conversations.js';
import { AGENTS_SQL, agentArgs, agentOrder } from './analytics/agents.js';
import { groupQuery } from './analytics/spans-group.js';
import { threadSummarySql, threadsSql } from './analytics/threads.js';

const plan = (db: Db, sql: string, args: unknown[]): string[] =>
  (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((r) => r.detail);

/** A page of the conversations list. */
export function explainConversations(db: Db, req: ConversationsPlan): string[] {
  return plan(db, CONVERSATIONS_SQL.page(req), [...conversationsWhere(req).params, req.limit, req.offset]);
}

/** The agents page query. */
export const explainAgents = (db: Db, req: AgentsPlan): string[] => plan(db, AGENTS_SQL.page(agentOrder(req), req.agent_name !== null), agentArgs(req));

/** A group page query. */
export function explainGroup(db: Db, req: SpansGroupPlan): string[] {
  const q = groupQuery(req, (sql) => db.prepare(sql));
  return plan(db, q.sql, q.params);
}

/** The threads statements: the page of conversation rows (no time window), else the page, one thread's turns, the percentile pass. */
export function explainThreads(db: Db, req: ThreadsPlan): string[] {
  const summary = threadSummarySql(req);
  if (summary) return plan(db, summary.sql, summary.params);
  const q = threadsSql(req);
  return [...plan(db, q.page, [...q.where.params, req.limit, req.offset]), ...plan(db, q.turns, [...q.where.params, 'x', 'y']), ...plan(db, q.all, q.where.params)];
}
