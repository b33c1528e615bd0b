/**
 * Conversations list: one row per conversation_id with first/last message previews, turn count,
 * spans, agents, models, cost, tokens, errors, first and last activity. A trace without a
 * conversation id is listed as Jaeger lists traces: "service: root operation", span count and
 * duration. Search (message text and attribute values, server-side, the matched excerpt shown and
 * marked; opening a result marks the term in the chat), every sortable column sorts server-side,
 * filter by agent/model/status and by a score (issue 20: `?score=` carries a condition, e.g. a
 * cluster's filter), a Scores column (each score name's mean or labels over the row's turns and spans);
 * j/k + Enter open a conversation; the next page loads near the bottom,
 * through the previous page's cursor, so a list of any length scrolls (issue 19 item 5).
 */
import { useMemo, useState, useCallback } from 'react';
import { useNavigate, useSearchParams } from 'react-router-dom';
import type { ColumnDef, SortingState } from '@tanstack/react-table';
import { useInfiniteQuery } from '@tanstack/react-query';
import { call } from '../../api/client';
import type { OpOutput } from '../../../../shared/contract/index';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { fmtCost, fmtDuration, fmtTime, fmtUsage } from '../../components/format';
import { projectPath, useProject } from '../../hooks/project';
import { useUi } from '../../stores/ui';
import { listInput, rowsOf, scoreCondFromParam, type ListFilters, type ListRow } from './listQuery';
import { summaryIsBad, summaryText } from '../../scores/format';
import { useScoreNames } from '../../scores/useScores';
import { ListFilterBar } from './ListFilterBar';
import { ErrorNote } from '../../components/ErrorNote';
import { traceTitle, traceTitleText } from '../../../../shared/titles';

/** Rows per request (the contract allows up to 1,000; 200 fill a tall screen several times over). */
const PAGE = 200;

export function ConversationsPage() {
  const project = useProject();
  const navigate = useNavigate();
  const display = useUi((s) => s.display);
  const [params, setParams] = useSearchParams();
  const [selected, setSelected] = useState(0);
  const [filters, setFilters] = useState<ListFilters>(() => ({ search: '', agent: '', model: '', status: 'all', score: scoreCondFromParam(params.get('score')) }));
  const changeFilters = (f: ListFilters) => {
    setFilters(f);
    setSelected(0);
    // The score condition is in the link (a cluster's "show these conversations" opens it).
    if (JSON.stringify(f.score ?? null) !== JSON.stringify(filters.score ?? null)) {
      setParams((p) => { const n = new URLSearchParams(p); if (f.score) n.set('score', JSON.stringify(f.score)); else n.delete('score'); return n; }, { replace: true });
    }
  };
  const [sorting, setSorting] = useState<SortingState>([{ id: 'last_activity', desc: true }]);
  const sort = useMemo(() => ({ field: sorting[0]?.id ?? 'last_activity', direction: sorting[0]?.desc === false ? ('asc' as const) : ('desc' as const) }), [sorting]);
  const input = useMemo(() => listInput(project, filters, sort, PAGE), [project, filters, sort]);
  const q = useInfiniteQuery<OpOutput<'conversations.list'>, Error>({
    // Same key shape as useOp ([name, input]) so live refresh invalidates it by project.
    queryKey: ['conversations.list', input],
    initialPageParam: null,
    queryFn: ({ pageParam, signal }) => call('conversations.list', { ...input, ...(pageParam ? { cursor: pageParam as string } : {}) }, signal),
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
  const rows = useMemo(() => (q.data?.pages ?? []).flatMap((p) => rowsOf(p)), [q.data]);
  const first = q.data?.pages[0];
  const total = first?.total_count ?? 0;
  const { error, isLoading, hasNextPage, isFetchingNextPage, fetchNextPage } = q;

  // Sortable columns need an accessor (react-table only sorts a column that has one), even though the
  // server does the sorting (manualSorting): without it only the header looked sortable.
  // The Scores column only in a project that has scores; it then takes its room from the minimums of
  // the preview, agents and models, so the list still fits a 1024 px window without scrolling sideways.
  const hasScores = useScoreNames(project).length > 0;
  const columns = useMemo<ColumnDef<ListRow>[]>(() => [
    {
      id: 'conversation', header: 'Conversation', enableSorting: false, meta: { min: hasScores ? 160 : 200 },
      cell: ({ row }) => <Preview row={row.original} search={filters.search.trim()} />,
    },
    { id: 'turn_count', accessorFn: (r) => r.turn_count, header: 'Turns', size: 70, meta: { numeric: true, min: 60 }, cell: ({ row }) => row.original.turn_count },
    { id: 'span_count', accessorFn: (r) => r.span_count, header: 'Spans', size: 74, meta: { numeric: true, min: 64 }, cell: ({ row }) => row.original.span_count.toLocaleString('en-US') },
    { id: 'agents', header: 'Agents', size: 140, enableSorting: false, meta: { min: hasScores ? 60 : 64 }, cell: ({ row }) => row.original.agent_names.map((a) => <span className="pill" key={a}>{a}</span>) },
    { id: 'models', header: 'Models', size: 150, enableSorting: false, meta: { min: hasScores ? 60 : 64 }, cell: ({ row }) => row.original.request_models.map((m) => <span className="pill" key={m}>{m}</span>) },
    ...(display.showCosts ? [{ id: 'total_cost_usd', accessorFn: (r: ListRow) => r.total_cost_usd, header: 'Cost', size: 90, meta: { numeric: true, min: 78 }, cell: ({ row }: { row: { original: ListRow } }) => fmtCost(row.original.total_cost_usd) }] : []),
    { id: 'total_input_tokens', accessorFn: (r) => r.total_input_tokens, header: 'Tokens', size: 100, meta: { numeric: true, min: 92 }, cell: ({ row }) => <span title={row.original.usage_known ? 'input / output tokens' : 'no span reported token usage'} data-testid="row-tokens">{fmtUsage(row.original.total_input_tokens, row.original.total_output_tokens, row.original.usage_known, ' / ')}</span> },
    ...(hasScores ? [{ id: 'scores', header: 'Scores', size: 190, enableSorting: false, meta: { min: 54 }, cell: ({ row }: { row: { original: ListRow } }) => <ScoreCell scores={row.original.scores} /> }] : []),
    {
      id: 'error_count', accessorFn: (r) => r.error_count, header: 'Errors', size: 68, meta: { numeric: true, min: 62 },
      cell: ({ row }) => (row.original.error_count > 0 ? <span className="pill error" title="spans with errors">{row.original.error_count}</span> : <span className="muted">0</span>),
    },
    { id: 'last_activity', accessorFn: (r) => r.last_activity, header: 'Last activity', size: 130, meta: { min: 92 }, cell: ({ row }) => <span title={`started ${row.original.first_activity ?? '–'}, last ${row.original.last_activity ?? '–'}`}>{fmtTime(row.original.last_activity, display.relativeTimes)}</span> },
  ], [display.showCosts, display.relativeTimes, filters.search, hasScores]);

  const open = useCallback((row: ListRow) => {
    // A search term goes along, so the chat marks where it matched.
    const q = filters.search.trim() ? `q=${encodeURIComponent(filters.search.trim())}` : '';
    if (row.kind === 'conversation') void navigate(`${projectPath(project, 'conversations', row.id)}${q ? `?${q}` : ''}`);
    else void navigate(`${projectPath(project, 'traces', row.id)}?tab=chat${q ? `&${q}` : ''}`);
  }, [navigate, project, filters.search]);
  const more = useCallback(() => { if (hasNextPage && !isFetchingNextPage) void fetchNextPage(); }, [hasNextPage, isFetchingNextPage, fetchNextPage]);

  const filtered = filters.search || filters.agent || filters.model || filters.status !== 'all' || filters.score;
  return (
    <div className="page" data-testid="conversations-page">
      <div className="page-head">
        <h1>Conversations</h1>
        <span className="muted" data-testid="conversation-count">{isLoading ? 'loading…' : countText(total, first?.total_count_exact ?? true)}</span>
      </div>
      <ListFilterBar project={project} filters={filters} onChange={changeFilters} />
      {first?.search_scope === 'listed_texts' && <p className="muted" data-testid="search-scope">Under 3 characters, only names, ids, previews, agents and models are searched.</p>}
      <ErrorNote error={error} what="conversations" />
      {!isLoading && !error && rows.length === 0 ? (
        filtered ? <EmptyState title="No conversation matches these filters" actions={false} /> : (
          <EmptyState title="No conversations yet">Each conversation (spans sharing gen_ai.conversation.id) and each trace without one appears here as soon as its spans arrive.</EmptyState>
        )
      ) : (
        <DataTable
          prefsKey={`${project}/conversations`}
          testId="conversations-table"
          data={rows}
          columns={columns}
          rowHeight={56}
          getRowId={(r) => `${r.kind}:${r.id}`}
          rowTestId={() => 'conversation-row'}
          sorting={sorting}
          onSortingChange={(s) => setSorting(s.length ? s : [{ id: 'last_activity', desc: true }])}
          selected={selected}
          onSelect={setSelected}
          onOpen={open}
          onEndReached={more}
        />
      )}
    </div>
  );
}

/** The row's scores per name: "helpful 0.42 (3)", a label, "2 failures"; bad ones tinted. */
function ScoreCell({ scores }: { scores: ListRow['scores'] }) {
  const shown = (scores ?? []).map((s) => ({ s, text: summaryText(s) })).filter((x) => x.text !== null);
  if (!shown.length) return <span className="faint">–</span>;
  return (
    <span className="score-badges" data-testid="row-scores">
      {shown.map(({ s, text }) => (
        <span key={s.name} className={`pill score ${summaryIsBad(s) ? 'error' : 'ok'}`} title={`${s.name}: ${s.count} score${s.count === 1 ? '' : 's'}${s.mean !== null ? `, mean ${s.mean}` : ''}${Object.keys(s.labels).length ? `\n${Object.entries(s.labels).map(([l, c]) => `${l}: ${c}`).join('\n')}` : ''}`}>{text}</span>
      ))}
    </span>
  );
}

function Preview({ row, search }: { row: ListRow; search: string }) {
  if (row.kind === 'trace') return <TracePreview row={row} />;
  if (search && row.snippet) return <SnippetLines id={row.id} first={row.first_message?.text} snippet={row.snippet} />;
  // The row's title comes with it (shared/titles.ts listRowTitle, computed where the row is built).
  return <PreviewLines id={row.id} first={row.title} last={row.last_message?.text} />;
}

function PreviewLines({ id, first, last }: { id: string; first?: string | null; last?: string }) {
  return (
    <div className="conv-preview">
      <div className="conv-first" title={first ?? undefined}>{first || <span className="faint">{id}</span>}</div>
      <div className="conv-last faint" title={last}>{last ? `↳ ${last}` : id}</div>
    </div>
  );
}

/** A search result: the first message, and the excerpt where the term matched with the matches marked. */
function SnippetLines({ id, first, snippet }: { id: string; first?: string; snippet: NonNullable<ListRow['snippet']> }) {
  const parts: Array<{ text: string; hit: boolean }> = [];
  let at = 0;
  for (const [a, b] of snippet.matches) {
    if (a > at) parts.push({ text: snippet.text.slice(at, a), hit: false });
    parts.push({ text: snippet.text.slice(a, b), hit: true });
    at = b;
  }
  if (at < snippet.text.length) parts.push({ text: snippet.text.slice(at), hit: false });
  return (
    <div className="conv-preview">
      <div className="conv-first" title={first}>{first || <span className="faint">{id}</span>}</div>
      <div className="conv-last snippet" title={snippet.text} data-testid="search-snippet">
        {parts.map((p, i) => (p.hit ? <mark key={i}>{p.text}</mark> : <span key={i}>{p.text}</span>))}
      </div>
    </div>
  );
}

/** "1,234 conversations", or "at least …" when the store counted a common search word only as far as it read. */
function countText(total: number, exact: boolean): string {
  const n = `${total.toLocaleString('en-US')} conversation${total === 1 ? '' : 's'}`;
  return exact ? n : `at least ${n}`;
}

/**
 * A trace without a conversation id, as trace viewers list traces: "service: root operation" on the
 * first line, span count, duration and trace id on the second. The root comes with the row (the
 * chat header's root span: the one without a parent, else the latest-ended).
 */
function TracePreview({ row }: { row: ListRow }) {
  const root = row.trace_root;
  // The service when known, else the agent or the root operation (shared/titles.ts): never `unknown_service:` alone.
  const title = root ? traceTitle({ service: root.service_name, root: root.span_name, agent: row.agent_names[0] }) : null;
  const dur = root?.duration_ms ?? null;
  return (
    <div className="conv-preview" data-testid="trace-row">
      <div className="conv-first" title={title ? traceTitleText(title) ?? undefined : undefined} data-testid="trace-row-title">
        {title && (title.service || title.name) ? (
          title.service ? <><strong className="svc">{title.service}</strong>{title.name ? <>: {title.name}</> : null}</> : <strong className="svc">{title.name}</strong>
        ) : <span className="faint">trace {row.id}</span>}
      </div>
      <div className="conv-last faint">
        {row.span_count.toLocaleString('en-US')} span{row.span_count === 1 ? '' : 's'}{dur !== null ? ` · ${fmtDuration(dur)}` : ''} · <span className="mono">{row.id.slice(0, 16)}</span>
        {row.first_message?.text && <> · {row.first_message.text}</>}
      </div>
    </div>
  );
}
