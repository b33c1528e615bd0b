/**
 * The agents list (semantics §6): sums of each agent's per-day aggregates, the kept day rows (project-days.ts,
 * one per project and day: the same sums agent_trace_stats held per trace, over the stored credit and
 * counting bits), so the list reads a row per day, not per trace.
 */
import type { AgentSortField, AgentsPlan } from '../../../domain/plans.js';
import { isoFromNs } from '../../../domain/time.js';
import type { AgentRowOut, ReadOptions } from '../../ports.js';
import type { ClickHouse } from '../connection.js';
import { dir, ident, join, limit, raw, sql, str, type Sql } from '../sql.js';
import { FINAL_SETTINGS } from './scope.js';

const SORT: Record<AgentSortField, string> = {
  last_seen: 'last_ns', first_seen: 'first_ns', invocation_count: 'invocation_count', span_count: 'span_count',
  total_input_tokens: 'input_tokens', total_output_tokens: 'output_tokens', error_count: 'error_count',
  total_duration_ms: 'duration_ns', agent_name: 'agent_name', total_cost_usd: 'cost_usd',
};

/** The kept day rows of one project, one row per (day, agent), with the `d_` names the sums read. */
export function agentDays(projectId: string): Sql {
  return sql`(SELECT d_agent, d_spans, d_invocations, d_errors, d_dur, d_in, d_out, d_usage, d_cost, d_first, d_last FROM project_days FINAL
    ARRAY JOIN agent_name AS d_agent, agent_spans AS d_spans, agent_invocations AS d_invocations, agent_errors AS d_errors,
      agent_dur_ns AS d_dur, agent_in_tok AS d_in, agent_out_tok AS d_out, agent_usage_spans AS d_usage, agent_cost AS d_cost,
      agent_first_ns AS d_first, agent_last_ns AS d_last
    WHERE project_id = ${str(projectId)})`;
}

export async function agents(ch: ClickHouse, plan: AgentsPlan, opts: ReadOptions): Promise<{ agents: AgentRowOut[]; total_count: number }> {
  const byName = plan.agent_name !== null ? sql` WHERE d_agent = ${str(plan.agent_name)}` : raw('');
  const order = join(plan.sort.map((s) => sql`${ident(SORT[s.field])}${dir(s.direction)}`), ', ');
  const { rows, total } = await ch.page<Record<string, string | number | null>>(
    sql`SELECT d_agent AS agent_name, sum(d_spans) AS span_count, sum(d_invocations) AS invocation_count, sum(d_errors) AS error_count,
          sum(d_dur) AS duration_ns, sum(d_in) AS input_tokens, sum(d_out) AS output_tokens,
          sum(d_cost) AS cost_usd, min(d_first) AS first_ns, max(d_last) AS last_ns, sum(d_usage) AS usage_spans
        FROM ${agentDays(plan.project_id)}${byName}
        GROUP BY d_agent HAVING span_count > 0
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
