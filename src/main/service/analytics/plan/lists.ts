/**
 * `threads.query` and `agents.query` requests → ThreadsPlan and AgentsPlan (domain/plans.ts): sort
 * fields checked, orders completed with their tie-breakers, times converted to nanoseconds.
 */
import { invalid } from '../../../../shared/errors.js';
import type { OpParsedInput } from '../../../../shared/contract/index.js';
import { nsFromIso } from '../../../domain/time.js';
import { AGENT_SORT_FIELDS, THREAD_SORT_FIELDS, type AgentSortField, type AgentsPlan, type ThreadSortField, type ThreadsPlan } from '../../../domain/plans.js';

export function parseThreadsQuery(input: OpParsedInput<'threads.query'>): ThreadsPlan {
  // Everything that can fail is checked before the first line leaves: a 422 after a 200 header is impossible.
  const sort = (input.sort_by ?? []).map((s, i) => {
    if (!(THREAD_SORT_FIELDS as readonly string[]).includes(s.field)) {
      throw invalid(['sort_by', i, 'field'], `cannot sort threads by '${s.field}'; allowed: ${THREAD_SORT_FIELDS.join(', ')}`, s.field);
    }
    return { field: s.field as ThreadSortField, direction: s.direction };
  });
  const time = (field: string, v: string | undefined): bigint | null => {
    if (v === undefined) return null;
    const ns = nsFromIso(v);
    if (ns === null) throw invalid(['filter', field], 'Input should be a valid datetime', v, 'datetime_parsing');
    return ns;
  };
  const after_ns = time('after_datetime', input.filter?.after_datetime);
  const before_ns = time('before_datetime', input.filter?.before_datetime);
  const order = sort.length ? sort : [{ field: 'last_updated' as const, direction: 'desc' as const }];
  return {
    project_id: input.project_id,
    after_ns,
    before_ns,
    thread_ids: input.filter?.thread_ids ?? null,
    sort: [...order, { field: 'thread_id', direction: 'asc' }],
    limit: input.limit,
    offset: input.offset,
  };
}

export function parseAgentsQuery(input: OpParsedInput<'agents.query'>): AgentsPlan {
  const allowed = AGENT_SORT_FIELDS.filter((f) => input.include_costs || f !== 'total_cost_usd');
  const sort = (input.sort_by ?? []).map((s, i) => {
    if (!(allowed as readonly string[]).includes(s.field)) {
      throw invalid(['sort_by', i, 'field'], `cannot sort agents by '${s.field}'; allowed: ${allowed.join(', ')}${input.include_costs ? '' : ' (total_cost_usd with include_costs)'}`, s.field);
    }
    return { field: s.field as AgentSortField, direction: s.direction };
  });
  const order = sort.length ? sort : [{ field: 'last_seen' as const, direction: 'desc' as const }];
  return {
    project_id: input.project_id,
    agent_name: input.filters?.agent_name ?? null,
    include_costs: input.include_costs,
    sort: order.some((s) => s.field === 'agent_name') ? order : [...order, { field: 'agent_name', direction: 'asc' }],
    limit: input.limit,
    offset: input.offset,
  };
}
