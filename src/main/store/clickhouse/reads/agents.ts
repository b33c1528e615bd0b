/** The agents list (semantics §6): sums of each agent's per-trace contributions (agent_trace_stats). */
import type { AgentSortField, AgentsPlan } from '../../../domain/plans.js';
import { isoFromNs } from '../../../domain/time.js';
import type { AgentRowOut, ReadOptions } from '../../ports.js';
import type { ClickHouse } from '../connection.js';
import { ident, join, limit, raw, sql, str } from '../sql.js';
import { FINAL_SETTINGS } from './scope.js';
import { dir } from './spans-list.js';

const SORT: Record<AgentSortField, string> = {
  last_seen: 'last_ns', first_seen: 'first_ns', invocation_count: 'invocation_count', span_count: 'span_count',
  total_input_tokens: 'input_tokens', total_output_tokens: 'output_tokens', error_count: 'error_count',
  total_duration_ms: 'duration_ns', agent_name: 'agent_name', total_cost_usd: 'cost_usd',
};

export async function agents(ch: ClickHouse, plan: AgentsPlan, opts: ReadOptions): Promise<{ agents: AgentRowOut[]; total_count: number }> {
  const byName = plan.agent_name !== null ? sql` AND agent_name = ${str(plan.agent_name)}` : raw('');
  const order = join(plan.sort.map((s) => sql`${ident(SORT[s.field])}${dir(s.direction)}`), ', ');
  const { rows, total } = await ch.page<Record<string, string | number | null>>(
    sql`SELECT agent_name, sum(span_count) AS span_count, sum(invocation_count) AS invocation_count, sum(error_count) AS error_count,
          sum(duration_ns) AS duration_ns, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
          sum(cost_usd) AS cost_usd, min(first_ns) AS first_ns, max(last_ns) AS last_ns, sum(usage_spans) AS usage_spans
        FROM agent_trace_stats FINAL WHERE project_id = ${str(plan.project_id)}${byName} AND deleted = 0
        GROUP BY agent_name HAVING span_count > 0
        ORDER BY ${order}${limit(plan.offset, plan.limit)}${FINAL_SETTINGS}`,
    opts,
  );
  return {
    agents: rows.map((r): AgentRowOut => ({
      agent_name: r.agent_name as string,
      error_count: Number(r.error_count),
      first_seen: r.first_ns == null ? null : isoFromNs(BigInt(r.first_ns)),
      invocation_count: Number(r.invocation_count),
      last_seen: r.last_ns == null ? null : isoFromNs(BigInt(r.last_ns)),
      project_id: plan.project_id,
      span_count: Number(r.span_count),
      total_duration_ms: Number(BigInt(r.duration_ns as string) / 1_000_000n),
      total_input_tokens: Number(r.input_tokens),
      total_output_tokens: Number(r.output_tokens),
      total_cost_usd: plan.include_costs ? ((r.cost_usd as number | null) ?? null) : null,
      usage_known: Number(r.usage_spans) > 0,
    })),
    total_count: total,
  };
}
