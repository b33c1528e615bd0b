/**
 * Conversations list: one row per conversation_id with first/last message previews, turn count,
 * agents, models, cost, tokens and last activity. Search, sort (server-side), filter by
 * agent/model/status; j/k + Enter open a conversation; more rows load near the bottom.
 */
import { useMemo, useState, useCallback } from 'react';
import { useNavigate } from 'react-router-dom';
import type { ColumnDef, SortingState } from '@tanstack/react-table';
import { useOp } from '../../api/query';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { fmtCost, fmtTime, fmtTokens } from '../../components/format';
import { projectPath, useProject } from '../../hooks/project';
import { useUi } from '../../stores/ui';
import { listInput, rowsOf, type ListFilters, type ListRow } from './listQuery';
import { ListFilterBar } from './ListFilterBar';
import { ErrorNote } from '../../components/ErrorNote';

const PAGE = 200;

export function ConversationsPage() {
  const project = useProject();
  const navigate = useNavigate();
  const display = useUi((s) => s.display);
  const [filters, setFilters] = useState<ListFilters>({ search: '', agent: '', model: '', status: 'all' });
  const [sorting, setSorting] = useState<SortingState>([{ id: 'last_activity', desc: true }]);
  const [limit, setLimit] = useState(PAGE);
  const [selected, setSelected] = useState(0);
  const sort = { field: sorting[0]?.id ?? 'last_activity', direction: sorting[0]?.desc === false ? ('asc' as const) : ('desc' as const) };
  const input = useMemo(() => listInput(project, filters, sort, limit), [project, filters, sort.field, sort.direction, limit]); // eslint-disable-line react-hooks/exhaustive-deps
  const q = useOp('conversations.list', input);
  const rows = useMemo(() => rowsOf(q.data), [q.data]);
  const total = q.data?.total_count ?? 0;
  const { error, isLoading, isFetching } = q;

  const columns = useMemo<ColumnDef<ListRow>[]>(() => [
    {
      id: 'conversation', header: 'Conversation', enableSorting: false,
      cell: ({ row }) => <Preview row={row.original} />,
    },
    { id: 'turn_count', header: 'Turns', size: 70, meta: { numeric: true }, cell: ({ row }) => row.original.turn_count },
    { id: 'agents', header: 'Agents', size: 150, enableSorting: false, cell: ({ row }) => row.original.agent_names.map((a) => <span className="pill" key={a}>{a}</span>) },
    { id: 'models', header: 'Models', size: 160, enableSorting: false, cell: ({ row }) => row.original.request_models.map((m) => <span className="pill" key={m}>{m}</span>) },
    ...(display.showCosts ? [{ id: 'total_cost_usd', header: 'Cost', size: 80, meta: { numeric: true }, cell: ({ row }: { row: { original: ListRow } }) => fmtCost(row.original.total_cost_usd) }] : []),
    { id: 'total_input_tokens', header: 'Tokens', size: 90, meta: { numeric: true }, cell: ({ row }) => `${fmtTokens(row.original.total_input_tokens)} / ${fmtTokens(row.original.total_output_tokens)}` },
    {
      id: 'last_activity', header: 'Last activity', size: 150,
      cell: ({ row }) => (
        <span title={row.original.last_activity ?? ''}>
          {row.original.error_count > 0 && <span className="pill error" title="spans with errors">{row.original.error_count} err</span>}
          {fmtTime(row.original.last_activity, display.relativeTimes)}
        </span>
      ),
    },
  ], [display.showCosts, display.relativeTimes]);

  const open = useCallback((row: ListRow) => {
    if (row.kind === 'conversation') navigate(projectPath(project, 'conversations', row.id));
    else navigate(`${projectPath(project, 'traces', row.id)}?tab=chat`);
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
      <ErrorNote error={error} what="conversations" />
      {!isLoading && !error && rows.length === 0 ? (
        filtered ? <EmptyState title="No conversation matches these filters" actions={false} /> : (
          <EmptyState title="No conversations yet">Each conversation (spans sharing gen_ai.conversation.id) and each trace without one appears here as soon as its spans arrive.</EmptyState>
        )
      ) : (
        <DataTable
          testId="conversations-table"
          data={rows}
          columns={columns}
          rowHeight={56}
          getRowId={(r) => `${r.kind}:${r.id}`}
          rowTestId={() => 'conversation-row'}
          sorting={sorting}
          onSortingChange={(s) => { setSorting(s.length ? s : [{ id: 'last_activity', desc: true }]); setLimit(PAGE); }}
          selected={selected}
          onSelect={setSelected}
          onOpen={open}
          onEndReached={more}
        />
      )}
    </div>
  );
}

function Preview({ row }: { row: ListRow }) {
  const id = row.kind === 'trace' ? `trace ${row.id}` : row.id;
  return <PreviewLines id={id} first={row.first_message?.text} last={row.last_message?.text} />;
}

function PreviewLines({ id, first, last }: { id: string; first?: string; last?: string }) {
  return (
    <div className="conv-preview">
      <div className="conv-first" title={first}>{first || <span className="faint">{id}</span>}</div>
      <div className="conv-last faint" title={last}>{last ? `↳ ${last}` : id}</div>
    </div>
  );
}
