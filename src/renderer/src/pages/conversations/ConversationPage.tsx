/**
 * One conversation as chat ('chat.conversation' with feedback). Turns come newest-first in pages
 * (offset = turns already loaded); "Load earlier turns" fetches the next older page and puts it on
 * top. Keys: j/k move between turns (scrolled into view), Enter opens the selected turn's trace,
 * Esc goes back to the list.
 */
import { useInfiniteQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { call } from '../../api/client';
import type { ConversationView } from '../../api/views';
import { TurnView } from '../../chat/TurnView';
import { FeedbackBadges, FeedbackControl } from '../../chat/Feedback';
import { EmptyState } from '../../components/EmptyState';
import { fmtCost } from '../../components/format';
import { useEscape, useListKeys } from '../../hooks/keys';
import { projectPath, useProject } from '../../hooks/project';
import { ErrorNote } from '../../components/ErrorNote';

/** Turns per page: small enough that a page of long agent turns renders quickly. */
export const TURN_PAGE = 10;

export function ConversationPage() {
  const project = useProject();
  const conversationId = useParams().conversationId ?? '';
  const navigate = useNavigate();
  const input = { project_id: project, conversation_id: conversationId, include_feedback: true, limit: TURN_PAGE };
  const q = useInfiniteQuery<ConversationView, Error>({
    // Same key shape as useOp ([name, input]) so live refresh invalidates it by project.
    queryKey: ['chat.conversation', input],
    initialPageParam: 0,
    queryFn: ({ pageParam }) => call('chat.conversation', { ...input, offset: pageParam as number }),
    getNextPageParam: (last) => (last.has_more ? (last.offset ?? 0) + last.turns.length : undefined),
  });
  // Pages are newest first; each page is chronological, so older pages go on top.
  const pages = q.data?.pages ?? [];
  const turns = [...pages].reverse().flatMap((p) => p.turns);
  const first = pages[0];
  const total = first?.total_turns ?? 0;
  const olderCount = total - turns.length;

  const [selected, setSelected] = useState(-1);
  const refs = useRef<Array<HTMLElement | null>>([]);
  const lastCount = useRef(0);
  // The route reuses this component when only the conversation id changes: start over.
  useEffect(() => {
    lastCount.current = 0;
    setSelected(-1);
  }, [conversationId, project]);
  // Start on the newest turn; when earlier turns are prepended, keep the same turn selected.
  useEffect(() => {
    const added = turns.length - lastCount.current;
    if (lastCount.current === 0 && turns.length) setSelected(turns.length - 1);
    else if (added > 0) setSelected((s) => s + added);
    lastCount.current = turns.length;
  }, [turns.length]);
  useEffect(() => {
    refs.current[selected]?.scrollIntoView({ block: 'nearest' });
  }, [selected]);

  useListKeys({
    count: turns.length,
    selected,
    setSelected: (i) => {
      // Moving up past the oldest loaded turn loads the previous page.
      if (i === 0 && selected === 0 && q.hasNextPage && !q.isFetchingNextPage) void q.fetchNextPage();
      setSelected(i);
    },
    onOpen: (i) => { const t = turns[i]; if (t) navigate(projectPath(project, 'traces', t.trace_id)); },
  });
  useEscape(() => navigate(projectPath(project, 'conversations')));

  return (
    <div className="page" data-testid="conversation-page">
      <div className="page-head">
        <Link to={projectPath(project, 'conversations')}>← Conversations</Link>
        <h1 className="mono" style={{ fontSize: 15 }}>{conversationId}</h1>
        {first && <span className="muted" data-testid="turn-count">{total} turn{total === 1 ? '' : 's'}</span>}
        {first?.total_cost_usd !== null && first?.total_cost_usd !== undefined && <span className="muted">{fmtCost(first.total_cost_usd)}</span>}
        <FeedbackBadges items={first?.feedback} />
        <FeedbackControl project={project} kind="conversation" id={conversationId} />
      </div>
      <ErrorNote error={q.error} what="the conversation" />
      {q.isSuccess && total === 0 && <EmptyState title="This conversation has no turns" actions={false}>No spans carry conversation id {conversationId} in project {project}.</EmptyState>}
      <div className="chat" data-testid="chat">
        {q.hasNextPage && (
          <button className="load-earlier" data-testid="load-earlier" onClick={() => void q.fetchNextPage()} disabled={q.isFetchingNextPage}>
            {q.isFetchingNextPage ? 'Loading…' : `Load earlier turns (${olderCount} more)`}
          </button>
        )}
        {turns.map((t, i) => (
          <TurnView
            key={t.trace_id}
            ref={(el) => { refs.current[i] = el; }}
            turn={t}
            project={project}
            index={olderCount + i + 1}
            selected={i === selected}
          />
        ))}
      </div>
    </div>
  );
}
