/**
 * Agents: one row per agent with its aggregate statistics and costs (agents.query, include_costs),
 * sorted by the server (semantics §6 lists the sortable fields). Opening a row goes to the Spans
 * explorer filtered to that agent through the URL (?agent_name=…), so the view is a deep link.
 * The filter box matches any part of a name, in any case (issue 22.11): agents.query's agent_name
 * filter is exact (interface.md), so the page reads the project's agents (up to 1,000, sorted by the
 * server) and keeps the rows whose name contains the text.
 */
import { useMemo, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { createColumnHelper, type SortingState } from '@tanstack/react-table';
import { useOp } from '../../api/query';
import { useProject, projectPath } from '../../hooks/project';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { fmtCost, fmtDuration, fmtTime, fmtTokens } from '../../components/format';
import type { OpOutput } from '../../../../shared/contract/index';
import { ErrorNote } from '../../components/ErrorNote';

type Agent = OpOutput<'agents.query'>['agents'][number];
const col = createColumnHelper<Agent>();

const columns = [
  col.accessor('agent_name', { header: 'Agent', cell: (c) => <strong>{c.getValue()}</strong> }),
  col.accessor('invocation_count', { header: 'Invocations', meta: { numeric: true }, size: 105 }),
  col.accessor('span_count', { header: 'Spans', meta: { numeric: true }, size: 105 }),
  col.accessor('error_count', { header: 'Errors', meta: { numeric: true }, size: 105, cell: (c) => (c.getValue() ? <span className="error-text">{c.getValue()}</span> : 0) }),
  col.accessor('total_input_tokens', { header: 'Input tokens', meta: { numeric: true }, size: 105, cell: (c) => (c.row.original.usage_known ? fmtTokens(c.getValue()) : '–') }),
  col.accessor('total_output_tokens', { header: 'Output tokens', meta: { numeric: true }, size: 105, cell: (c) => (c.row.original.usage_known ? fmtTokens(c.getValue()) : '–') }),
  col.accessor('total_cost_usd', { header: 'Cost', meta: { numeric: true }, size: 105, cell: (c) => fmtCost(c.getValue()) }),
  col.accessor('total_duration_ms', { header: 'Time in spans', meta: { numeric: true }, size: 105, cell: (c) => fmtDuration(c.getValue()) }),
  col.accessor('first_seen', { header: 'First seen', size: 185, cell: (c) => fmtTime(c.getValue()) }),
  col.accessor('last_seen', { header: 'Last seen', size: 185, cell: (c) => fmtTime(c.getValue()) }),
];

export function AgentsPage() {
  const project = useProject();
  const navigate = useNavigate();
  const [sorting, setSorting] = useState<SortingState>([{ id: 'last_seen', desc: true }]);
  const [search, setSearch] = useState('');
  const input = useMemo(
    () => ({
      project_id: project,
      include_costs: true,
      limit: 1000,
      sort_by: sorting.map((s) => ({ field: s.id, direction: s.desc ? ('desc' as const) : ('asc' as const) })),
    }),
    [project, sorting],
  );
  const q = useOp('agents.query', input);
  const needle = search.trim().toLowerCase();
  const all = q.data?.agents;
  const agents = useMemo(() => (all ?? []).filter((a) => !needle || a.agent_name.toLowerCase().includes(needle)), [all, needle]);
  const totalText = !q.data ? '' : needle ? `${agents.length} of ${q.data.total_count} agents` : `${q.data.total_count} agents`;

  return (
    <div className="page agents-page" data-testid="agents-page">
      <div className="page-head">
        <h1>Agents</h1>
        <div className="toolbar">
          <input data-search placeholder="Agent name (any part)…" value={search} onChange={(e) => setSearch(e.target.value)} aria-label="Filter by agent name" />
          <span className="muted" data-testid="agents-total">{totalText}</span>
        </div>
      </div>
      <ErrorNote error={q.error} what="agents" />
      {q.data && agents.length === 0 && !needle ? (
        <EmptyState title="No agents yet">Agents appear once spans with an agent name are imported.</EmptyState>
      ) : (
        <DataTable
          prefsKey={`${project}/agents`}
          data={agents}
          columns={columns}
          getRowId={(a) => a.agent_name}
          sorting={sorting}
          onSortingChange={setSorting}
          onOpen={(a) => void navigate(`${projectPath(project, 'spans')}?agent_name=${encodeURIComponent(a.agent_name)}`)}
          testId="agents-table"
          rowTestId={() => 'agent-row'}
        />
      )}
    </div>
  );
}
