/**
 * One trace: a header (root name, service, status, spans, duration, tokens, cost), a toolbar with
 * find-in-trace (names here, attributes and message text on the server, trace/find.ts) and "next
 * error", then the waterfall (default tab) or the chat of the trace (virtualized, paged), with the
 * span panel beside either behind a draggable splitter.
 * Deep link: #/p/<project>/traces/<trace_id>?tab=chat&span=<span_id>. Esc closes the panel, then goes back.
 * Keys: f focuses find, n / N next / previous match, e next error.
 */
import { useQuery } from '@tanstack/react-query';
import { useMemo, useRef, useState } from 'react';
import { useNavigate, useParams, useSearchParams } from 'react-router-dom';
import { call } from '../../api/client';
import { EmptyState } from '../../components/EmptyState';
import { ErrorNote } from '../../components/ErrorNote';
import { useEscape, useKey } from '../../hooks/keys';
import { useProject } from '../../hooks/project';
import { buildTree, errorIds, spansFromColumns, stepThrough, treeOrder, type TimelineSpan } from '../../trace/model';
import { SpanDetail } from '../../trace/SpanDetail';
import { Waterfall } from '../../trace/Waterfall';
import { TraceChat, useTraceChatPages } from '../../chat/TraceChat';
import { TraceHeader } from '../../trace/TraceHeader';
import { FindBar, useTraceFind } from '../../trace/find';
import { Splitter } from '../../components/Splitter';
import { useUi } from '../../stores/ui';
import { useWidth } from '../../hooks/width';
import { useScoresOf } from '../../scores/useScores';
import { scoresBy } from '../../scores/format';

/** The least width (px) the waterfall or chat keeps beside the span panel: a 140 px name column and a time axis. */
const MIN_MAIN = 300;

export function TracePage() {
  const project = useProject();
  const traceId = useParams().traceId ?? '';
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const tab = params.get('tab') === 'chat' ? 'chat' : 'timeline';
  const spanId = params.get('span');
  const setParam = (k: string, v: string | null) =>
    setParams((p) => { const n = new URLSearchParams(p); if (v === null) n.delete(k); else n.set(k, v); return n; }, { replace: true });
  const select = (id: string | null) => setParam('span', id);

  // Opened on the Chat tab: the chat's first page is asked first and the waterfall's spans right after
  // it, so the server (one request at a time) answers the small request the user waits for first.
  const firstChat = useTraceChatPages(project, traceId);
  const spans = useTraceSpans(project, traceId, tab !== 'chat' || firstChat.isFetched);
  const tree = useMemo(() => {
    performance.mark('loupe:build-tree-start');
    const built = buildTree(spans.rows);
    // Read by the timeline e2e test (performance.getEntriesByName) to report where the time goes.
    performance.measure('loupe:build-tree', { start: 'loupe:build-tree-start', detail: built.count });
    return built;
  }, [spans.rows]);
  const order = useMemo(() => treeOrder(tree), [tree]);
  // Score badges on tree rows (issue 20): a span's scores on its row, the turn's (the trace's) on the root rows.
  const scores = useScoresOf(project, { trace_id: traceId });
  const rowScores = useMemo(() => {
    const bySpan = scoresBy(scores, 'span_id', (s) => s.target === 'span');
    const turn = scores.filter((s) => s.target === 'turn');
    if (turn.length) for (const r of tree.roots) bySpan.set(r.span.span_id, [...turn, ...(bySpan.get(r.span.span_id) ?? [])]);
    return bySpan;
  }, [scores, tree]);
  const errors = useMemo(() => errorIds(order), [order]);

  // Opened from a search (?q=): find starts with that term, so it is marked in the waterfall and the chat.
  const [term, setTerm] = useState(() => params.get('q') ?? '');
  const find = useTraceFind(project, traceId, order, term);
  const findRef = useRef<HTMLInputElement>(null);
  const step = (ids: string[], dir: 1 | -1) => {
    const next = stepThrough(ids, order, spanId, dir);
    if (next) select(next);
  };
  const nextError = () => step(errors, 1);

  useEscape(() => { if (spanId) select(null); else void navigate(-1); });
  useKey('f', () => { findRef.current?.focus(); findRef.current?.select(); });
  useKey('n', () => step(find.ids, 1));
  useKey('N', () => step(find.ids, -1));
  useKey('e', () => nextError());

  const storedDetailWidth = useUi((s) => s.layout.detailWidth);
  const setLayout = useUi((s) => s.setLayout);
  // The span panel keeps the timeline usable: it takes at most what leaves MIN_MAIN px to the
  // waterfall (or the chat), never under 300 px; a width remembered from a wider window is capped, not
  // changed (issue 22.10: at 1024 a 420 px panel and a 300 px name column left a 60 px time axis).
  const layoutRef = useRef<HTMLDivElement>(null);
  const layoutPx = useWidth(layoutRef);
  const detailWidth = layoutPx > 0 ? Math.max(300, Math.min(storedDetailWidth, layoutPx - 8 - MIN_MAIN)) : storedDetailWidth;

  const toolbar = (
    <>
      <FindBar inputRef={findRef} term={term} onTerm={setTerm} find={find} currentId={spanId} order={order} onStep={(d) => step(find.ids, d)} />
      <button onClick={nextError} disabled={!errors.length} data-testid="next-error" title="Select the next span that failed (e)">
        Next error{errors.length ? ` (${errors.length})` : ''}
      </button>
    </>
  );

  return (
    <div className="page trace-page" data-testid="trace-page">
      <TraceHeader project={project} traceId={traceId} tree={tree} loading={spans.loading} onBack={() => void navigate(-1)} />
      <div className="tabs" role="tablist">
        <button role="tab" className={tab === 'timeline' ? 'active' : ''} aria-selected={tab === 'timeline'} onClick={() => setParam('tab', null)}>Timeline</button>
        <button role="tab" className={tab === 'chat' ? 'active' : ''} aria-selected={tab === 'chat'} onClick={() => setParam('tab', 'chat')} data-testid="tab-chat">Chat</button>
        {spans.loading && <span className="faint tab-note" data-testid="trace-loading"><span className="spinner" aria-hidden /> loading spans…</span>}
      </div>
      <ErrorNote error={spans.error} what="the spans" />
      {!spans.loading && !spans.error && spans.rows.length === 0 ? (
        <EmptyState title="No spans in this trace" actions={false}>Trace {traceId} has no spans in project {project}.</EmptyState>
      ) : (
        <div className="trace-layout" ref={layoutRef} style={spanId ? { gridTemplateColumns: `minmax(0, 1fr) 8px ${detailWidth}px` } : undefined}>
          <div className="trace-main">
            {tab === 'timeline' ? (
              spans.rows.length > 0 && <Waterfall tree={tree} selected={spanId} onSelect={select} matches={find.set} toolbar={toolbar} scores={rowScores} />
            ) : (
              <>
                <div className="wf-toolbar toolbar trace-chat-toolbar">{toolbar}</div>
                <TraceChat project={project} traceId={traceId} onSpan={select} highlight={term} />
              </>
            )}
          </div>
          {spanId && (
            <>
              <Splitter
                label="Resize the span panel"
                onDrag={(dx, start) => setLayout({ detailWidth: Math.max(300, Math.min(layoutPx - 8 - MIN_MAIN, start - dx)) })}
                startValue={detailWidth}
              />
              <SpanDetail project={project} traceId={traceId} spanId={spanId} onClose={() => select(null)} node={tree.byId.get(spanId) ?? null} />
            </>
          )}
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
function useTraceSpans(project: string, traceId: string, enabled: boolean) {
  const input = { project_id: project, trace_id: traceId };
  const q = useQuery({
    enabled,
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
