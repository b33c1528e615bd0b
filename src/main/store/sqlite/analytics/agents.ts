/** The agents list (semantics §6), read from `agent_summaries` only (migration 0003). */
import type { Statement } from 'better-sqlite3';
import { isoFromUs } from '../../../domain/time.js';
import type { AgentSortField, AgentsPlan } from '../../../domain/plans.js';
import type { AgentRowOut } from '../../ports.js';

const SORT: Record<AgentSortField, string> = {
  last_seen: 'last_ns', first_seen: 'first_ns', invocation_count: 'invocation_count', span_count: 'span_count',
  total_input_tokens: 'input_tokens', total_output_tokens: 'output_tokens', error_count: 'error_count',
  total_duration_ms: 'duration_ns', agent_name: 'agent_name', total_cost_usd: 'cost_usd',
};

export const AGENTS_SQL = {
  page: (order: string, byName: boolean) =>
    `SELECT agent_name, project_id, span_count, invocation_count, error_count, duration_ns / 1000000 AS total_duration_ms,
            input_tokens, output_tokens, cost_usd, first_ns / 1000 AS first_us, last_ns / 1000 AS last_us, usage_spans
       FROM agent_summaries WHERE project_id = ?${byName ? ' AND agent_name = ?' : ''} ORDER BY ${order} LIMIT ? OFFSET ?`,
  count: (byName: boolean) => `SELECT COUNT(*) FROM agent_summaries WHERE project_id = ?${byName ? ' AND agent_name = ?' : ''}`,
};

export const agentOrder = (req: AgentsPlan): string => req.sort.map((s) => `${SORT[s.field]} ${s.direction === 'asc' ? 'ASC' : 'DESC'}`).join(', ');

/** Arguments of the page statement (AGENTS_SQL.page), also used by the plan test. */
export const agentArgs = (req: AgentsPlan): unknown[] =>
  req.agent_name !== null ? [req.project_id, req.agent_name, req.limit, req.offset] : [req.project_id, req.limit, req.offset];

export function queryAgents(prep: (sql: string) => Statement, req: AgentsPlan): { agents: AgentRowOut[]; total_count: number } {
  const byName = req.agent_name !== null;
  const args = agentArgs(req);
  const rows = prep(AGENTS_SQL.page(agentOrder(req), byName)).all(...args) as Record<string, number | string | null>[];
  const total = prep(AGENTS_SQL.count(byName)).pluck().get(...args.slice(0, -2)) as number;
  return {
    agents: rows.map((r): AgentRowOut => ({
      agent_name: r.agent_name as string,
      error_count: r.error_count as number,
      first_seen: r.first_us == null ? null : isoFromUs(r.first_us as number),
      invocation_count: r.invocation_count as number,
      last_seen: r.last_us == null ? null : isoFromUs(r.last_us as number),
      project_id: r.project_id as string,
      span_count: r.span_count as number,
      total_duration_ms: r.total_duration_ms as number,
      total_input_tokens: r.input_tokens as number,
      total_output_tokens: r.output_tokens as number,
      total_cost_usd: req.include_costs ? ((r.cost_usd as number | null) ?? null) : null,
      usage_known: (r.usage_spans as number) > 0,
    })),
    total_count: total,
  };
}
