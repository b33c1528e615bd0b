/**
 * One trace: a waterfall timeline of its spans (default tab) or the chat view of the trace
 * ('chat.trace'), with a span detail panel beside either. Deep link:
 * #/p/<project>/traces/<trace_id>?tab=chat&span=<span_id>. Esc closes the panel, then goes back.
 */
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useNavigate, useParams, useSearchParams } from 'react-router-dom';
import { call } from '../../api/client';
import { useOp } from '../../api/query';
import { TurnView } from '../../chat/TurnView';
import { EmptyState } from '../../components/EmptyState';
import { useEscape } from '../../hooks/keys';
import { projectPath, useProject } from '../../hooks/project';
import { buildTree, spansFromColumns, type TimelineSpan } from '../../trace/model';
import { SpanDetail } from '../../trace/SpanDetail';
import { Waterfall } from '../../trace/Waterfall';
import { ErrorNote } from '../../components/ErrorNote';

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
        {spans.loading && <span className="faint" data-testid="trace-loading">loading spans…</span>}
        <div className="tabs" role="tablist">
          <button role="tab" className={tab === 'timeline' ? 'active' : ''} aria-selected={tab === 'timeline'} onClick={() => setParam('tab', null)}>Timeline</button>
          <button role="tab" className={tab === 'chat' ? 'active' : ''} aria-selected={tab === 'chat'} onClick={() => setParam('tab', 'chat')}>Chat</button>
        </div>
      </div>
      <ErrorNote error={spans.error} what="the spans" />
      {!spans.loading && !spans.error && spans.rows.length === 0 ? (
        <EmptyState title="No spans in this trace" actions={false}>Trace {traceId} has no spans in project {project}.</EmptyState>
      ) : (
        <div className={`trace-layout ${spanId ? 'with-detail' : ''}`}>
          <div className="trace-main">
            {tab === 'timeline' ? (
              spans.rows.length > 0 && <Waterfall tree={tree} selected={spanId} onSelect={(id) => setParam('span', id)} />
            ) : (
              <div className="trace-chat">
                <ErrorNote error={chat.error} what="the chat" />
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
 * All spans of the trace in one request: `traces.timeline` answers only the fields the waterfall
 * draws, as one array per field with µs offsets (~140 B per span; a `spans.query` list row is ~1.7 KB),
 * so a 20,000-span trace is one 2.7 MB response instead of ~34 MB in three pages.
 */
function useTraceSpans(project: string, traceId: string) {
  const input = { project_id: project, trace_id: traceId };
  const q = useQuery({
    // [name, input] like useOp, so live refresh (api/query handleEvent) refetches it when this project changes.
    queryKey: ['traces.timeline', input],
    queryFn: async () => {
      const t = performance.now();
      const res = await call('traces.timeline', input);
      // Read by the timeline e2e test (performance.getEntriesByName) to report where the time goes.
      performance.measure('loupe:timeline-request', { start: t, end: performance.now(), detail: res.count });
      const t2 = performance.now();
      const rows = spansFromColumns(res);
      performance.measure('loupe:columns-to-spans', { start: t2, end: performance.now(), detail: rows.length });
      return rows;
    },
  });
  return { rows: q.data ?? NO_SPANS, loading: q.isPending, error: q.error };
}

const NO_SPANS: TimelineSpan[] = [];
