/**
 * Conversations list: one row per conversation_id with first/last message previews, turn count,
 * agents, models, cost, tokens and last activity. Search, sort (server-side), filter by
 * agent/model/status; j/k + Enter open a conversation; more rows load near the bottom.
 */
import { useMemo, useState, useCallback } from 'react';
import { useNavigate } from 'react-router-dom';
import type { ColumnDef, SortingState } from '@tanstack/react-table';
import { useOp } from '../../api/query';
import type { GroupRow } from '../../api/views';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { fmtCost, fmtTime, fmtTokens } from '../../components/format';
import { projectPath, useProject } from '../../hooks/project';
import { useUi } from '../../stores/ui';
import { conversationsQuery, type ListFilters } from './listQuery';
import { ListFilterBar } from './ListFilterBar';

const PAGE = 200;

export function ConversationsPage() {
  const project = useProject();
  const navigate = useNavigate();
  const display = useUi((s) => s.display);
  const [filters, setFilters] = useState<ListFilters>({ search: '', agent: '', model: '', status: 'all' });
  const [sorting, setSorting] = useState<SortingState>([{ id: 'last_seen', desc: true }]);
  const [limit, setLimit] = useState(PAGE);
  const [selected, setSelected] = useState(0);
  const sort = { field: sorting[0]?.id ?? 'last_seen', direction: sorting[0]?.desc === false ? ('asc' as const) : ('desc' as const) };
  const input = useMemo(() => conversationsQuery(project, filters, sort, limit), [project, filters, sort.field, sort.direction, limit]); // eslint-disable-line react-hooks/exhaustive-deps
  const { data, error, isLoading, isFetching } = useOp('spans.query', input);
  const rows = data?.groups ?? [];
  const total = data?.total_count ?? 0;

  const columns = useMemo<ColumnDef<GroupRow>[]>(() => [
    {
      id: 'conversation', header: 'Conversation', enableSorting: false,
      cell: ({ row }) => <Preview row={row.original} />,
    },
    { id: 'turns', header: 'Turns', size: 70, meta: { numeric: true }, cell: ({ row }) => row.original.metrics.turns ?? '–' },
    { id: 'agents', header: 'Agents', size: 150, enableSorting: false, cell: ({ row }) => row.original.agent_names.map((a) => <span className="pill" key={a}>{a}</span>) },
    { id: 'models', header: 'Models', size: 160, enableSorting: false, cell: ({ row }) => row.original.request_models.map((m) => <span className="pill" key={m}>{m}</span>) },
    ...(display.showCosts ? [{ id: 'total_cost_usd', header: 'Cost', size: 80, meta: { numeric: true }, cell: ({ row }: { row: { original: GroupRow } }) => fmtCost(row.original.total_cost_usd) }] : []),
    { id: 'total_input_tokens', header: 'Tokens', size: 90, meta: { numeric: true }, cell: ({ row }) => `${fmtTokens(row.original.total_input_tokens)} / ${fmtTokens(row.original.total_output_tokens)}` },
    {
      id: 'last_seen', header: 'Last activity', size: 150,
      cell: ({ row }) => (
        <span title={row.original.last_seen ?? ''}>
          {row.original.error_count > 0 && <span className="pill error" title="spans with errors">{row.original.error_count} err</span>}
          {fmtTime(row.original.last_seen, display.relativeTimes)}
        </span>
      ),
    },
  ], [display.showCosts, display.relativeTimes]);

  const open = useCallback((row: GroupRow) => {
    const id = row.group_keys.conversation_id;
    if (typeof id === 'string') navigate(projectPath(project, 'conversations', id));
  }, [navigate, project]);
  const more = useCallback(() => { if (rows.length < total && !isFetching) setLimit((l) => Math.min(10_000, l + PAGE)); }, [rows.length, total, isFetching]);

  const filtered = filters.search || filters.agent || filters.model || filters.status !== 'all';
  return (
    <div className="page" data-testid="conversations-page">
      <div className="page-head">
        <h1>Conversations</h1>
        <span className="muted" data-testid="conversation-count">{isLoading ? 'loading…' : `${total} conversation${total === 1 ? '' : 's'}`}</span>
      </div>
      <ListFilterBar project={project} filters={filters} onChange={(f) => { setFilters(f); setSelected(0); setLimit(PAGE); }} />
      {error && <div className="error-text">Could not load conversations: {error.message}</div>}
      {!isLoading && !error && rows.length === 0 ? (
        filtered ? <EmptyState title="No conversation matches these filters" actions={false} /> : (
          <EmptyState title="No conversations yet">Conversations appear here when spans carry a conversation id (gen_ai.conversation.id).</EmptyState>
        )
      ) : (
        <DataTable
          testId="conversations-table"
          data={rows}
          columns={columns}
          rowHeight={56}
          getRowId={(r) => String(r.group_keys.conversation_id)}
          rowTestId={() => 'conversation-row'}
          sorting={sorting}
          onSortingChange={(s) => { setSorting(s.length ? s : [{ id: 'last_seen', desc: true }]); setLimit(PAGE); }}
          selected={selected}
          onSelect={setSelected}
          onOpen={open}
          onEndReached={more}
        />
      )}
    </div>
  );
}

function Preview({ row }: { row: GroupRow }) {
  const first = row.first_message?.text;
  const last = row.last_message?.text;
  return (
    <div className="conv-preview">
      <div className="conv-first" title={first}>{first || <span className="faint">{String(row.group_keys.conversation_id)}</span>}</div>
      <div className="conv-last faint" title={last}>{last ? `↳ ${last}` : String(row.group_keys.conversation_id)}</div>
    </div>
  );
}
