/**
 * Score badges (issue 20) on chat turns, the trace header and trace-tree rows: one pill per score,
 * tinted when it reads as bad (a failed rule, a number ≤ 0.5, a failure signature), with who scored it
 * and why in the tooltip. `compact` (trace-tree rows) shows at most two and counts the rest.
 */
import { scoreIsBad, scoreText, scoreTitle, type Score } from './format';

export function ScoreBadges({ scores, compact }: { scores: readonly Score[] | undefined; compact?: boolean }) {
  const shown = (scores ?? []).map((s) => ({ s, text: scoreText(s) })).filter((x): x is { s: Score; text: string } => x.text !== null);
  if (!shown.length) return null;
  const limit = compact ? 2 : shown.length;
  return (
    <span className={`score-badges ${compact ? 'compact' : ''}`} data-testid="score-badges">
      {shown.slice(0, limit).map(({ s, text }) => (
        <span key={s.score_id} className={`pill score ${scoreIsBad(s) ? 'error' : 'ok'}`} title={scoreTitle(s)} data-testid="score-badge" data-name={s.name}>
          {text.length > 48 ? `${text.slice(0, 48)}…` : text}
        </span>
      ))}
      {shown.length > limit && <span className="faint" title={shown.slice(limit).map((x) => x.text).join('\n')}>+{shown.length - limit}</span>}
    </span>
  );
}
