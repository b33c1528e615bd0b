/**
 * Threads (= conversations, semantics §5): turn count, first start, last update and p50/p99 turn
 * duration, from threads.query (application/jsonl; the client hands back the parsed lines). Sorted by
 * the server; a time window narrows the turns counted. Opening a row shows the conversation.
 */
import { useMemo, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { createColumnHelper, type SortingState } from '@tanstack/react-table';
import { useOp } from '../../api/query';
import { useProject, projectPath } from '../../hooks/project';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { fmtDuration, fmtTime } from '../../components/format';
import type { OpOutput } from '../../../../shared/contract/index';
import { toIso } from '../spans/timeRange';
import { ErrorNote } from '../../components/ErrorNote';

type Thread = OpOutput<'threads.query'>;
const col = createColumnHelper<Thread>();
const PAGE = 200;

const columns = [
  col.accessor('thread_id', { header: 'Thread (conversation)', cell: (c) => <span className="mono">{c.getValue()}</span> }),
  col.accessor('turn_count', { header: 'Turns', meta: { numeric: true }, size: 80 }),
  col.accessor('start_time', { header: 'Started', size: 200, cell: (c) => fmtTime(c.getValue()) }),
  col.accessor('last_updated', { header: 'Last update', size: 200, cell: (c) => fmtTime(c.getValue()) }),
  col.accessor('p50_turn_duration_ms', { header: 'p50 turn', meta: { numeric: true }, size: 110, cell: (c) => fmtDuration(c.getValue()) }),
  col.accessor('p99_turn_duration_ms', { header: 'p99 turn', meta: { numeric: true }, size: 110, cell: (c) => fmtDuration(c.getValue()) }),
];

export function ThreadsPage() {
  const project = useProject();
  const navigate = useNavigate();
  const [sorting, setSorting] = useState<SortingState>([{ id: 'last_updated', desc: true }]);
  const [after, setAfter] = useState('');
  const [before, setBefore] = useState('');
  const [pages, setPages] = useState(1);
  const filter = useMemo(() => {
    const f: { after_datetime?: string; before_datetime?: string } = {};
    if (toIso(after)) f.after_datetime = toIso(after)!;
    if (toIso(before)) f.before_datetime = toIso(before)!;
    return Object.keys(f).length ? f : undefined;
  }, [after, before]);
  const input = useMemo(
    () => ({
      project_id: project,
      limit: PAGE * pages,
      sort_by: sorting.map((s) => ({ field: s.id, direction: s.desc ? ('desc' as const) : ('asc' as const) })),
      ...(filter ? { filter } : {}),
    }),
    [project, sorting, filter, pages],
  );
  const q = useOp('threads.query', input);
  const threads = (q.data ?? []) as Thread[];
  const more = threads.length === PAGE * pages;

  return (
    <div className="page threads-page" data-testid="threads-page">
      <div className="page-head">
        <h1>Threads</h1>
        <div className="toolbar">
          <label className="muted">Turns after <input type="datetime-local" value={after} onChange={(e) => setAfter(e.target.value)} /></label>
          <label className="muted">before <input type="datetime-local" value={before} onChange={(e) => setBefore(e.target.value)} /></label>
          <span className="muted" data-testid="threads-count">{q.data ? `${threads.length}${more ? '+' : ''} threads` : ''}</span>
        </div>
      </div>
      <ErrorNote error={q.error} what="threads" />
      {q.data && threads.length === 0 && !filter ? (
        <EmptyState title="No threads yet">Threads are conversations: spans carrying a conversation id.</EmptyState>
      ) : (
        <DataTable
          prefsKey={`${project}/threads`}
          data={threads}
          columns={columns}
          getRowId={(t) => t.thread_id}
          sorting={sorting}
          onSortingChange={(s) => { setSorting(s); setPages(1); }}
          onOpen={(t) => void navigate(projectPath(project, 'conversations', t.thread_id))}
          onEndReached={more && !q.isFetching ? () => setPages((p) => p + 1) : undefined}
          testId="threads-table"
          rowTestId={() => 'thread-row'}
        />
      )}
    </div>
  );
}
