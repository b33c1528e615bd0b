/**
 * TurnView — one turn (one trace) of a chat: a header (time, agent, duration, cost, tokens, status,
 * feedback and a link to the trace) above its ordered messages. Used by the conversation view (many
 * turns) and the trace view (one). Props: turn, project, index?, selected?, showTraceLink?, onSpan?.
 */
import { forwardRef } from 'react';
import { Link } from 'react-router-dom';
import type { Turn } from '../api/views';
import { fmtCost, fmtDuration, fmtTime, fmtTokens } from '../components/format';
import { projectPath } from '../hooks/project';
import { Message } from './Message';
import { FeedbackBadges, FeedbackControl } from './Feedback';

interface Props {
  turn: Turn;
  project: string;
  index?: number;
  selected?: boolean;
  showTraceLink?: boolean;
  onSpan?(spanId: string): void;
}

export const TurnView = forwardRef<HTMLElement, Props>(function TurnView(p, ref) {
  const t = p.turn;
  const error = t.status_code === 'ERROR';
  return (
    <section ref={ref} className={`turn ${p.selected ? 'selected' : ''} ${error ? 'error' : ''}`} data-testid="turn" data-trace={t.trace_id} aria-current={p.selected ? 'true' : undefined}>
      <header className="turn-head">
        {p.index !== undefined && <span className="turn-no">#{p.index}</span>}
        <span title={t.started_at ?? ''}>{fmtTime(t.started_at)}</span>
        {t.agent_name && <span className="pill">{t.agent_name}</span>}
        <span className="faint">{fmtDuration(t.total_duration_ms)}</span>
        <span className="faint" title="input / output tokens">{fmtTokens(t.total_input_tokens)} → {fmtTokens(t.total_output_tokens)} tok</span>
        {t.total_cost_usd !== null && <span className="faint">{fmtCost(t.total_cost_usd)}</span>}
        {error && <span className="pill error">error</span>}
        <FeedbackBadges items={t.feedback} />
        <span className="spacer" />
        <FeedbackControl project={p.project} kind="trace" id={t.trace_id} />
        {p.showTraceLink !== false && <Link to={projectPath(p.project, 'traces', t.trace_id)} data-testid="trace-link">trace ↗</Link>}
      </header>
      <div className="messages">
        {t.messages.length === 0 && <div className="faint">No messages in this turn.</div>}
        {t.messages.map((m, i) => <Message key={`${m.span_id ?? 'x'}-${m.type}-${i}`} message={m} onSpan={p.onSpan} />)}
      </div>
    </section>
  );
});
