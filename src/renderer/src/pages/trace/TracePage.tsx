/**
 * One trace: a waterfall timeline of its spans (default tab) or the chat view of the trace
 * ('chat.trace'), with a span detail panel beside either. Deep link:
 * #/p/<project>/traces/<trace_id>?tab=chat&span=<span_id>. Esc closes the panel, then goes back.
 */
import { useQueries, useQuery } from '@tanstack/react-query';
import { useEffect, useMemo } from 'react';
import { useNavigate, useParams, useSearchParams } from 'react-router-dom';
import { call } from '../../api/client';
import type { OpInput } from '../../../../shared/contract/index';
import { useOp } from '../../api/query';
import { TurnView } from '../../chat/TurnView';
import { EmptyState } from '../../components/EmptyState';
import { useEscape } from '../../hooks/keys';
import { projectPath, useProject } from '../../hooks/project';
import { buildTree, type TimelineSpan } from '../../trace/model';
import { SpanDetail } from '../../trace/SpanDetail';
import { Waterfall } from '../../trace/Waterfall';

/**
 * Spans per request. The first page is small so the timeline draws within a few hundred ms; the rest
 * come in pages of the operation's maximum (a 20,000-span trace: 1,000 + 10,000 + 9,000). Each list
 * row is ~1.7 KB of JSON even without details, so page size is what the open time is made of.
 */
const FIRST_PAGE = 1_000;
const SPAN_PAGE = 10_000;

export function TracePage() {
  const project = useProject();
  const traceId = useParams().traceId ?? '';
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const tab = params.get('tab') === 'chat' ? 'chat' : 'timeline';
  const spanId = params.get('span');
  const setParam = (k: string, v: string | null) =>
    setParams((p) => { const n = new URLSearchParams(p); if (v === null) n.delete(k); else n.set(k, v); return n; }, { replace: true });

  const spans = useTraceSpans(project, traceId);
  const tree = useMemo(() => {
    const t = performance.now();
    const built = buildTree(spans.rows);
    // Read by the timeline e2e test (performance.getEntriesByName) to report where the time goes.
    performance.measure('loupe:build-tree', { start: t, end: performance.now(), detail: built.count });
    return built;
  }, [spans.rows]);
  const chat = useOp('chat.trace', tab === 'chat' ? { project_id: project, trace_id: traceId, include_feedback: true } : null);

  useEscape(() => (spanId ? setParam('span', null) : navigate(-1)));

  return (
    <div className="page" data-testid="trace-page">
      <div className="page-head">
        <button onClick={() => navigate(-1)} aria-label="Back">←</button>
        <h1 className="mono" style={{ fontSize: 15 }}>Trace {traceId}</h1>
        {spans.loading && <span className="faint" data-testid="trace-loading">loading spans… {spans.rows.length}{spans.total ? ` / ${spans.total}` : ''}</span>}
        <div className="tabs" role="tablist">
          <button role="tab" className={tab === 'timeline' ? 'active' : ''} aria-selected={tab === 'timeline'} onClick={() => setParam('tab', null)}>Timeline</button>
          <button role="tab" className={tab === 'chat' ? 'active' : ''} aria-selected={tab === 'chat'} onClick={() => setParam('tab', 'chat')}>Chat</button>
        </div>
      </div>
      {spans.error && <div className="error-text">Could not load spans: {spans.error.message}</div>}
      {!spans.loading && !spans.error && spans.rows.length === 0 ? (
        <EmptyState title="No spans in this trace" actions={false}>Trace {traceId} has no spans in project {project}.</EmptyState>
      ) : (
        <div className={`trace-layout ${spanId ? 'with-detail' : ''}`}>
          <div className="trace-main">
            {tab === 'timeline' ? (
              spans.rows.length > 0 && <Waterfall tree={tree} selected={spanId} onSelect={(id) => setParam('span', id)} />
            ) : (
              <div className="trace-chat">
                {chat.error && <div className="error-text">{chat.error.message}</div>}
                {chat.data && <div className="chat"><TurnView turn={chat.data} project={project} showTraceLink={false} onSpan={(id) => setParam('span', id)} /></div>}
              </div>
            )}
          </div>
          {spanId && <SpanDetail project={project} traceId={traceId} spanId={spanId} onClose={() => setParam('span', null)} />}
        </div>
      )}
    </div>
  );
}

/**
 * All spans of the trace, light rows (no details), oldest first: a small first page (it also gives
 * total_count), then the remaining 10,000-row pages requested together so parsing one overlaps the
 * server's work on the next. The tree is rebuilt as pages arrive.
 */
function useTraceSpans(project: string, traceId: string) {
  const base = {
    project_id: project,
    query: { $expr: { $and: [{ $eq: [{ $getField: 'trace_id' }, { $literal: traceId }] }] } },
    sort_by: [{ field: 'started_at', direction: 'asc' as const }],
  };
  const fetchPage = async (input: OpInput<'spans.query'>) => {
    const t = performance.now();
    const page = await call('spans.query', input);
    // Read by the timeline e2e test (performance.getEntriesByName) to report where the time goes.
    performance.measure('loupe:spans-page', { start: t, end: performance.now(), detail: page.spans.length });
    return page;
  };
  const firstInput = { ...base, offset: 0, limit: FIRST_PAGE };
  const first = useQuery({ queryKey: ['spans.query', firstInput], queryFn: () => fetchPage(firstInput) });
  const total = first.data?.total_count ?? 0;
  const offsets: number[] = [];
  for (let o = FIRST_PAGE; o < total; o += SPAN_PAGE) offsets.push(o);
  const rest = useQueries({
    queries: offsets.map((offset) => {
      const input = { ...base, offset, limit: SPAN_PAGE };
      return { queryKey: ['spans.query', input], queryFn: () => fetchPage(input) };
    }),
    combine: (results) => ({ pages: results.map((r) => r.data), stamp: results.map((r) => r.dataUpdatedAt).join(','), pending: results.some((r) => r.isPending), error: results.find((r) => r.error)?.error ?? null }),
  });
  const rows = useMemo(
    () => [first.data, ...rest.pages].flatMap((p) => (p?.spans ?? []) as unknown as TimelineSpan[]),
    // `stamp` changes exactly when a page's data does (the pages array itself is new on every render).
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [first.data, rest.stamp],
  );
  return { rows, total, loading: first.isPending || rest.pending, error: first.error ?? rest.error };
}
