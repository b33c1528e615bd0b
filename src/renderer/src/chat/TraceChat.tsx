/**
 * TraceChat — the chat of one trace, for traces of any size: messages arrive a page at a time
 * ('chat.tracePage': the first page is a bounded walk on the server, so a 20,000-span trace shows its
 * first message at once) and only the rows on screen are in the DOM (@tanstack/react-virtual, rows
 * measured as they render since messages differ in height). Scrolling near the end loads the next
 * page; pages grow (50, 200, 1000, 5000) because each page is walked from the trace's start.
 * A bar says how much is loaded and whether more is coming.
 * Props: project, traceId, onSpan?(span_id), selectedSpan? (scrolled to when loaded), highlight?.
 */
import { useInfiniteQuery } from '@tanstack/react-query';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef } from 'react';
import { call } from '../api/client';
import type { OpOutput } from '../../../shared/contract/index';
import { ErrorNote } from '../components/ErrorNote';
import { Message } from './Message';
import { TurnHeader } from './TurnView';
import { planMessages } from './plan';
import { useTextHighlight } from './highlight';
import { useScoresOf } from '../scores/useScores';

type Page = OpOutput<'chat.tracePage'>;
const PAGE_SIZES = [50, 200, 1000, 5000];

/**
 * The paged chat of a trace as one react-query entry. The trace page's header reads it too (its
 * tokens and cost are the first page's turn header), so opening a trace asks for the first page at
 * once and the Chat tab has it ready.
 */
export function useTraceChatPages(project: string, traceId: string) {
  const input = { project_id: project, trace_id: traceId, include_feedback: true };
  return useInfiniteQuery<Page, Error>({
    // [name, input] like useOp, so live refresh refetches it when the project changes.
    queryKey: ['chat.tracePage', input],
    initialPageParam: 0,
    queryFn: async ({ pageParam }) => {
      const page = pageParam as number;
      const offset = PAGE_SIZES.slice(0, page).reduce((a, b) => a + b, 0) + Math.max(0, page - PAGE_SIZES.length) * PAGE_SIZES[PAGE_SIZES.length - 1]!;
      const t = performance.now();
      const res = await call('chat.tracePage', { ...input, offset, limit: PAGE_SIZES[Math.min(page, PAGE_SIZES.length - 1)]! });
      // Read by the e2e test (performance.getEntriesByName) to report where the time goes.
      performance.measure('loupe:chat-page', { start: t, end: performance.now(), detail: res.messages.length });
      return res;
    },
    getNextPageParam: (last, all) => (last.has_more ? all.length : undefined),
  });
}

export function TraceChat(props: { project: string; traceId: string; onSpan?(spanId: string): void; highlight?: string }) {
  const q = useTraceChatPages(props.project, props.traceId);
  const pages = q.data?.pages;
  const messages = useMemo(() => (pages ?? []).flatMap((p) => p.messages), [pages]);
  const plan = useMemo(() => planMessages(messages), [messages]);
  const head = pages?.[0]?.turn;
  const scores = useScoresOf(props.project, { trace_id: props.traceId });
  const total = pages?.[pages.length - 1]?.total_messages ?? null;

  const scrollRef = useRef<HTMLDivElement>(null);
  const rows = plan.length + (q.hasNextPage ? 1 : 0);
  const v = useVirtualizer({ count: rows, getScrollElement: () => scrollRef.current, estimateSize: () => 72, overscan: 8 });
  const items = v.getVirtualItems();
  const last = items[items.length - 1]?.index ?? -1;
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = q;
  useEffect(() => {
    if (hasNextPage && !isFetchingNextPage && last >= plan.length - 20) void fetchNextPage();
  }, [last, plan.length, hasNextPage, isFetchingNextPage, fetchNextPage]);
  const hasMessages = plan.length > 0;
  useEffect(() => {
    if (hasMessages) performance.mark('loupe:chat-first-message');
  }, [hasMessages]);

  const listRef = useRef<HTMLDivElement>(null);
  const marks = useTextHighlight(listRef, props.highlight);

  return (
    <div className="trace-chat" data-testid="trace-chat">
      {head && (
        <div className="turn trace-turn-head">
          <TurnHeader turn={head} project={props.project} showTraceLink={false} scores={scores} />
        </div>
      )}
      <div className="chat-progress muted" data-testid="chat-progress" role="status">
        {q.isPending ? (
          <><span className="spinner" aria-hidden /> Loading the chat…</>
        ) : q.hasNextPage ? (
          <><span className="spinner" aria-hidden /> {messages.length.toLocaleString('en-US')} messages loaded, more as you scroll…</>
        ) : (
          `${(total ?? messages.length).toLocaleString('en-US')} messages`
        )}
        {props.highlight && marks > 0 && <span> · {marks} match{marks === 1 ? '' : 'es'} on screen</span>}
      </div>
      <ErrorNote error={q.error} what="the chat" />
      {!q.isPending && messages.length === 0 && !q.error && <div className="faint">No messages in this trace.</div>}
      <div className="chat-scroll" ref={scrollRef} data-testid="chat-scroll">
        <div ref={listRef} className="chat virtual" style={{ height: v.getTotalSize(), position: 'relative' }}>
          {items.map((it) => (
            <div key={it.key} data-index={it.index} ref={v.measureElement} className="vrow" style={{ transform: `translateY(${it.start}px)` }}>
              {it.index < plan.length ? (
                <Message plan={plan[it.index]!} onSpan={props.onSpan} />
              ) : (
                <div className="faint load-more" data-testid="chat-loading-more"><span className="spinner" aria-hidden /> Loading more messages…</div>
              )}
            </div>
          ))}
        </div>
      </div>
    </div>
  );
}
