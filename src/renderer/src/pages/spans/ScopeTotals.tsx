/**
 * The totals of the spans the list shows when its filter pins one agent or one conversation (the
 * Agents click-through, `?agent_name=…`): the group-by row of that key under the same filter, so the
 * numbers are the ones Agents, the conversations list and group-by show for it (issue 18, decision
 * 0022) — spans, tokens by the one counting rule ("–" when no span reported usage), cost, time.
 */
import { useOp } from '../../api/query';
import { fmtCost, fmtDuration, fmtUsage } from '../../components/format';
import type { FilterRow } from './expr';

/** The key the filter pins with an equality, if it is one of the accounting keys. */
export function pinnedKey(rows: readonly FilterRow[]): 'agent_name' | 'conversation_id' | null {
  for (const key of ['agent_name', 'conversation_id'] as const) if (rows.some((r) => r.field === key && r.op === 'eq' && r.value !== '')) return key;
  return null;
}

export function ScopeTotals({ project, filterPart, pinned }: { project: string; filterPart: Record<string, unknown>; pinned: 'agent_name' | 'conversation_id' }) {
  const q = useOp('spans.query', { project_id: project, include_costs: true, group_by: [{ key: pinned, source: 'field' }], limit: 2, ...filterPart });
  const g = q.data?.groups.length === 1 ? q.data.groups[0]! : null;
  if (!g) return null;
  return (
    <div className="muted scope-totals" data-testid="scope-totals" role="status">
      {g.span_count.toLocaleString('en-US')} span{g.span_count === 1 ? '' : 's'}
      {' · '}<span title={g.usage_known ? 'input → output tokens' : 'no span reported token usage'} data-testid="scope-tokens">{fmtUsage(g.total_input_tokens, g.total_output_tokens, g.usage_known)}{g.usage_known ? ' tok' : ' tokens'}</span>
      {' · '}<span data-testid="scope-cost">{fmtCost(g.total_cost_usd)}</span>
      {' · '}<span title={pinned === 'agent_name' ? 'time in spans' : 'first start to last end'} data-testid="scope-time">{fmtDuration(pinned === 'agent_name' ? g.total_duration_ms : g.wall_duration_ms)}</span>
    </div>
  );
}
