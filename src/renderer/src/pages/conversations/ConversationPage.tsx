/**
 * One conversation as chat ('chat.conversation' with feedback). Turns come newest-first in pages
 * (offset = turns already loaded); "Load earlier turns" fetches the next older page and puts it on
 * top. Keys: j/k move between turns (scrolled into view), Enter opens the selected turn's trace,
 * Esc goes back to the list.
 * Opened from a search hit (`?q=term`): earlier pages are loaded down to the oldest turn that matched,
 * the page opens there with the match marked as current, and n / N (or the ↑ ↓ buttons) step
 * through every mark (issue 22.9).
 */
import { useInfiniteQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router-dom';
import { findRanges, useCurrentMatch, useHighlightedRanges } from '../../chat/highlight';
import { useMatchingTurns } from './searchHit';
import { call } from '../../api/client';
import type { ConversationView } from '../../api/views';
import { TurnView } from '../../chat/TurnView';
import { ScoreBadges } from '../../scores/ScoreBadges';
import { scoresBy } from '../../scores/format';
import { useScoresOf } from '../../scores/useScores';
import { FeedbackBadges, FeedbackControl, ownThumbs } from '../../chat/Feedback';
import { EmptyState } from '../../components/EmptyState';
import { fmtCost, fmtDuration, fmtUsage } from '../../components/format';
import { planTurns } from '../../chat/plan';
import { useConversationSummary } from './summary';
import { useComparePick } from '../../shell/ComparePick';
import { useEscape, useKey, useListKeys } from '../../hooks/keys';
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
  const turns = useMemo(() => [...(q.data?.pages ?? [])].reverse().flatMap((p) => p.turns), [q.data]);
  const first = pages[0];
  const total = first?.total_turns ?? 0;
  const olderCount = total - turns.length;
  // Planned over every loaded turn so an agent card repeats only when the agent changed.
  const plans = useMemo(() => planTurns(turns), [turns]);
  const summary = useConversationSummary(project, conversationId);
  // Score badges (issue 20): the conversation's own scores in the header, each turn's (and its spans') on the turn.
  const scores = useScoresOf(project, { conversation_id: conversationId });
  const turnScores = useMemo(() => scoresBy(scores, 'trace_id', (s) => s.target !== 'conversation'), [scores]);
  const convScores = useMemo(() => scores.filter((s) => s.target === 'conversation'), [scores]);
  const { compare } = useComparePick();
  // Opened from a search: the term is marked wherever it shows in the chat.
  const [params, setParams] = useSearchParams();
  const term = params.get('q') ?? '';
  const chatRef = useRef<HTMLDivElement>(null);
  const ranges = useHighlightedRanges(chatRef, term);
  const marks = ranges.length;
  const matching = useMatchingTurns(project, conversationId, term);
  // The oldest turn that matched: once it is loaded, every newer matching turn is too.
  const target = matching?.[0] ?? null;
  const targetIndex = target ? turns.findIndex((t) => t.trace_id === target) : -1;
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = q;
  useEffect(() => {
    if (target && targetIndex < 0 && hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [target, targetIndex, hasNextPage, isFetchingNextPage, fetchNextPage]);
  // The mark stepped to: its index in `ranges`, for this conversation and term (`key`).
  const matchKey = `${convKey0(project, conversationId)}\n${term}`;
  const [cursor, setCursor] = useState<{ key: string; index: number } | null>(null);
  const current = cursor?.key === matchKey ? cursor.index : -1;
  const currentRange = current >= 0 ? (ranges[current] ?? null) : null;
  useCurrentMatch(currentRange);

  const [selected, setSelected] = useState(-1);
  const refs = useRef<Array<HTMLElement | null>>([]);
  // Start on the newest turn; when earlier turns are prepended, keep the same turn selected. The
  // route reuses this component when only the conversation id changes: that starts over. Adjusted
  // during render (not in effects) so a stale selection is never painted.
  const convKey = convKey0(project, conversationId);
  const [seen, setSeen] = useState({ key: convKey, count: 0, len: 0 });
  if (seen.key !== convKey || seen.len !== turns.length) {
    const moved = seen.key !== convKey;
    const grew = seen.len !== turns.length;
    const last = moved ? 0 : seen.count;
    if (moved) setSelected(-1);
    if (grew) {
      if (last === 0 && turns.length) setSelected(turns.length - 1);
      else if (turns.length > last) setSelected((s) => s + turns.length - last);
    }
    setSeen({ key: convKey, count: grew ? turns.length : 0, len: turns.length });
  }
  useEffect(() => {
    refs.current[selected]?.scrollIntoView({ block: 'nearest' });
  }, [selected]);

  // Opened from a search: land on the first mark of the oldest matching turn (or on that turn, when
  // the term is in folded content or attributes only), once, when it is loaded and marked.
  const landed = cursor?.key === matchKey;
  useEffect(() => {
    const land = () => {
      if (landed || !term || matching === null) return;
      const turnEl = targetIndex >= 0 ? refs.current[targetIndex] : null;
      if (target && !turnEl) return; // still loading earlier pages
      const index = turnEl ? ranges.findIndex((r) => turnEl.contains(r.startContainer)) : ranges.length ? 0 : -1;
      if (index < 0 && !turnEl) return; // nothing drawn yet
      // The turn shows the term but its marks are not drawn yet (they follow the render by a frame): wait for them.
      if (index < 0 && turnEl && findRanges(turnEl, term).length > 0) return;
      setCursor({ key: matchKey, index });
      if (index >= 0) showRange(ranges[index]!);
      else turnEl?.scrollIntoView({ block: 'start' });
      if (turnEl) setSelected(targetIndex);
    };
    land();
  }, [landed, term, matching, target, targetIndex, ranges, matchKey]);

  const stepMatch = (dir: 1 | -1) => {
    if (!ranges.length) return false;
    const index = current < 0 ? (dir > 0 ? 0 : ranges.length - 1) : (current + dir + ranges.length) % ranges.length;
    setCursor({ key: matchKey, index });
    showRange(ranges[index]!);
    const turn = refs.current.findIndex((el) => el?.contains(ranges[index]!.startContainer));
    if (turn >= 0) setSelected(turn);
  };
  useKey('n', () => stepMatch(1), !!term);
  useKey('N', () => stepMatch(-1), !!term);

  useListKeys({
    count: turns.length,
    selected,
    setSelected: (i) => {
      // Moving up past the oldest loaded turn loads the previous page.
      if (i === 0 && selected === 0 && q.hasNextPage && !q.isFetchingNextPage) void q.fetchNextPage();
      setSelected(i);
    },
    onOpen: (i) => { const t = turns[i]; if (t) void navigate(projectPath(project, 'traces', t.trace_id)); },
  });
  useEscape(() => void navigate(projectPath(project, 'conversations')));

  // The conversation's totals come with its chat, from the same row as the conversations list
  // (issue 18): tokens, cost, failed spans and the wall time from its first span's start to its last span's end.
  const totals = first?.totals ?? null;
  return (
    <div className="page chat-page" data-testid="conversation-page">
      <div className="page-head sticky" data-testid="chat-header">
        <Link to={projectPath(project, 'conversations')} aria-label="Back to conversations">←</Link>
        <div className="chat-title">
          <h1 data-testid="chat-title" title={summary?.title ?? conversationId}>{summary?.title ?? conversationId}</h1>
          <span className="mono faint">{conversationId}</span>
        </div>
        <div className="chat-totals">
          {first && <span data-testid="turn-count">{total} turn{total === 1 ? '' : 's'}</span>}
          {totals && totals.duration_ms !== null && <span title="first span's start to last span's end" data-testid="chat-duration">{fmtDuration(totals.duration_ms)}</span>}
          {totals && (
            <span title={totals.usage_known ? 'input → output tokens' : 'no span of this conversation reported token usage'} data-testid="chat-tokens">
              {fmtUsage(totals.total_input_tokens, totals.total_output_tokens, totals.usage_known)}{totals.usage_known ? ' tok' : ' tokens'}
            </span>
          )}
          {first?.total_cost_usd !== null && first?.total_cost_usd !== undefined && <span title="cost of the whole conversation" data-testid="chat-cost">{fmtCost(first.total_cost_usd)}</span>}
          {totals && totals.error_count > 0 && <span className="pill error">{totals.error_count} failed span{totals.error_count === 1 ? '' : 's'}</span>}
        </div>
        <ScoreBadges scores={convScores} />
        <FeedbackBadges items={first?.feedback} except={ownThumbs(first?.feedback)} />
        <FeedbackControl project={project} kind="conversation" id={conversationId} records={first?.feedback} />
        <Link className="button" to={`${projectPath(project, 'replays')}?conversation=${encodeURIComponent(conversationId)}`} title="Replay this conversation on another model" data-testid="replay-conversation">Replay</Link>
      </div>
      <ErrorNote error={q.error} what="the conversation" />
      {q.isSuccess && total === 0 && <EmptyState title="This conversation has no turns" actions={false}>No spans carry conversation id {conversationId} in project {project}.</EmptyState>}
      {term && (
        <div className="search-bar muted" role="status" data-testid="search-marks">
          {marks > 0 ? `“${term}” marked ${marks} time${marks === 1 ? '' : 's'} in the loaded turns` : `“${term}” matched in this conversation's spans (attributes or folded content)`}
          {marks > 0 && (
            <>
              <span data-testid="match-position">{current >= 0 ? ` · match ${current + 1} of ${marks}` : ''}</span>
              <button className="icon" onClick={() => stepMatch(-1)} aria-label="Previous match" title="Previous match (N)">↑</button>
              <button className="icon" onClick={() => stepMatch(1)} aria-label="Next match" title="Next match (n)" data-testid="match-next">↓</button>
            </>
          )}
          <button className="link" onClick={() => setParams((p) => { const n = new URLSearchParams(p); n.delete('q'); return n; }, { replace: true })}>clear</button>
        </div>
      )}
      <div className="chat" data-testid="chat" ref={chatRef}>
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
            scores={turnScores.get(t.trace_id)}
            plan={plans[i]}
            onCompare={compare}
            project={project}
            index={olderCount + i + 1}
            selected={i === selected}
          />
        ))}
      </div>
    </div>
  );
}

const convKey0 = (project: string, conversationId: string) => `${project}\n${conversationId}`;

/** Scrolls a mark to the middle of its scroll area. */
function showRange(r: Range): void {
  r.startContainer.parentElement?.scrollIntoView({ block: 'center' });
}
