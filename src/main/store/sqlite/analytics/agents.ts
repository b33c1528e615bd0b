/** The agents list (semantics §6), read from `agent_summaries` only (migration 0003). */
import type { Statement } from 'better-sqlite3';
import { invalid } from '../../../../shared/errors.js';
import { isoFromUs } from '../../../domain/time.js';
import { dict } from '../../../../shared/dict.js';

export interface AgentsRequest {
  project_id: string;
  filters?: { agent_name?: string };
  include_costs: boolean;
  limit: number;
  offset: number;
  sort_by?: { field: string; direction: 'asc' | 'desc' }[];
}

const SORT: Record<string, string> = dict({
  last_seen: 'last_ns', first_seen: 'first_ns', invocation_count: 'invocation_count', span_count: 'span_count',
  total_input_tokens: 'input_tokens', total_output_tokens: 'output_tokens', error_count: 'error_count',
  total_duration_ms: 'duration_ns', agent_name: 'agent_name', total_cost_usd: 'cost_usd',
});

export const AGENTS_SQL = {
  page: (order: string, byName: boolean) =>
    `SELECT agent_name, project_id, span_count, invocation_count, error_count, duration_ns / 1000000 AS total_duration_ms,
            input_tokens, output_tokens, cost_usd, first_ns / 1000 AS first_us, last_ns / 1000 AS last_us
       FROM agent_summaries WHERE project_id = ?${byName ? ' AND agent_name = ?' : ''} ORDER BY ${order} LIMIT ? OFFSET ?`,
  count: (byName: boolean) => `SELECT COUNT(*) FROM agent_summaries WHERE project_id = ?${byName ? ' AND agent_name = ?' : ''}`,
};

export function agentOrder(req: AgentsRequest): string {
  if (!req.sort_by?.length) return 'last_ns DESC, agent_name ASC';
  const allowed = Object.keys(SORT).filter((f) => req.include_costs || f !== 'total_cost_usd');
  const parts = req.sort_by.map((s, i) => {
    if (!allowed.includes(s.field)) {
      throw invalid(['sort_by', i, 'field'], `cannot sort agents by '${s.field}'; allowed: ${allowed.join(', ')}${req.include_costs ? '' : ' (total_cost_usd with include_costs)'}`, s.field);
    }
    return `${SORT[s.field]} ${s.direction === 'asc' ? 'ASC' : 'DESC'}`;
  });
  if (!req.sort_by.some((s) => s.field === 'agent_name')) parts.push('agent_name ASC');
  return parts.join(', ');
}

export function queryAgents(prep: (sql: string) => Statement, req: AgentsRequest) {
  const name = req.filters?.agent_name;
  const byName = name !== undefined;
  const args = byName ? [req.project_id, name] : [req.project_id];
  const rows = prep(AGENTS_SQL.page(agentOrder(req), byName)).all(...args, req.limit, req.offset) as Record<string, number | string | null>[];
  const total = prep(AGENTS_SQL.count(byName)).pluck().get(...args) as number;
  return {
    agents: rows.map((r) => ({
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
    })),
    total_count: total,
  };
}
