/**
 * TurnView — one turn (one trace) of a chat: a header (time, agent, duration, cost, tokens, status
 * with the error that failed it, score badges, feedback, links to the trace and to compare) above its messages.
 * Used by the conversation view (many turns; the caller plans all turns at once so agent cards are
 * not repeated across turns, chat/plan.ts). Props: turn, plan?, project, index?, selected?,
 * showTraceLink?, onSpan?, onCompare?, scores? (the turn's and its spans' scores, issue 20).
 */
import { forwardRef, useMemo } from 'react';
import { Link } from 'react-router-dom';
import type { Turn } from '../api/views';

/** A turn's header fields (a Turn, or the paged trace chat's header without messages). */
export type TurnHead = Omit<Turn, 'messages'>;
import { fmtCost, fmtDuration, fmtTime, fmtUsage } from '../components/format';
import { projectPath } from '../hooks/project';
import { ErrorLine, Message } from './Message';
import { FeedbackBadges, FeedbackControl, ownThumbs } from './Feedback';
import { planMessages, type PlannedMessage } from './plan';
import { ScoreBadges } from '../scores/ScoreBadges';
import type { Score } from '../scores/format';

interface Props {
  turn: Turn;
  plan?: PlannedMessage[];
  project: string;
  index?: number;
  selected?: boolean;
  showTraceLink?: boolean;
  onSpan?(spanId: string): void;
  /** Offered as "compare" in the header (pick this turn for a side-by-side comparison). */
  onCompare?(traceId: string): void;
  /** Badges in the header: scores about this turn and its spans. */
  scores?: readonly Score[];
}

/** The error a failed turn shows: the first failing message's type and message. */
export function turnError(t: Turn): { type: string | null; message: string | null } | null {
  if (t.status_code !== 'ERROR' && !t.messages.some((m) => m.status_code === 'ERROR')) return null;
  for (const m of t.messages) {
    const p = m.assistant_message ?? m.tool_call;
    if (m.status_code === 'ERROR' && p) return { type: p.error_type, message: p.error_message };
  }
  return { type: null, message: null };
}

export const TurnView = forwardRef<HTMLElement, Props>(function TurnView(p, ref) {
  const t = p.turn;
  const plan = useMemo(() => p.plan ?? planMessages(t.messages), [p.plan, t.messages]);
  return (
    <section ref={ref} className={`turn ${p.selected ? 'selected' : ''} ${t.status_code === 'ERROR' ? 'error' : ''}`} data-testid="turn" data-trace={t.trace_id} aria-current={p.selected ? 'true' : undefined}>
      <TurnHeader {...p} />
      <div className="messages">
        {t.messages.length === 0 && <div className="faint">No messages in this turn.</div>}
        {plan.map((pm, i) => <Message key={`${pm.message.span_id ?? 'x'}-${pm.message.type}-${i}`} plan={pm} onSpan={p.onSpan} />)}
      </div>
    </section>
  );
});

/** The header of a turn and the error that failed it; also drawn above the trace view's virtualized chat. */
export function TurnHeader(p: Omit<Props, 'turn' | 'plan'> & { turn: TurnHead }) {
  const t = p.turn;
  const failed = t.status_code === 'ERROR';
  const err = failed && 'messages' in t ? turnError(t as Turn) : null;
  return (
    <>
      <header className="turn-head">
        {p.index !== undefined && <span className="turn-no">#{p.index}</span>}
        <span title={t.started_at ?? ''}>{fmtTime(t.started_at)}</span>
        {t.agent_name && <span className="pill">{t.agent_name}</span>}
        <span title="duration">{fmtDuration(t.total_duration_ms)}</span>
        <span title={t.usage_known ? 'input → output tokens' : 'no span of this turn reported token usage'} data-testid="turn-tokens">{fmtUsage(t.total_input_tokens ?? 0, t.total_output_tokens ?? 0, t.usage_known)}{t.usage_known ? ' tok' : ' tokens'}</span>
        {t.total_cost_usd !== null && <span title="cost">{fmtCost(t.total_cost_usd)}</span>}
        {failed && <span className="pill error">failed</span>}
        <ScoreBadges scores={p.scores} />
        <FeedbackBadges items={t.feedback} except={ownThumbs(t.feedback)} />
        <span className="spacer" />
        <FeedbackControl project={p.project} kind="trace" id={t.trace_id} records={t.feedback} />
        {p.onCompare && <button className="link" onClick={() => p.onCompare!(t.trace_id)} data-testid="compare-turn">compare</button>}
        {p.showTraceLink !== false && <Link to={projectPath(p.project, 'traces', t.trace_id)} data-testid="trace-link">trace ↗</Link>}
      </header>
      {err && (err.type || err.message) && <ErrorLine type={err.type} message={err.message} />}
    </>
  );
}
