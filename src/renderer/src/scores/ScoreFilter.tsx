/**
 * A score condition picker (issue 20): a score name of the project, then "≤ / ≥ a number", "label is",
 * or "has the score". It edits the API's score condition ({name, min?, max?, label?}) directly, so a
 * condition that came from a link (a cluster's filter) shows as the same controls.
 */
import { useState } from 'react';
import { useResetOnChange } from '../hooks/reset';
import type { ScoreCond } from '../pages/conversations/listQuery';
import { useScoreNames } from './useScores';

type Op = 'max' | 'min' | 'label' | 'has';

const opOf = (c: ScoreCond): Op => (c.label !== undefined || c.labels ? 'label' : c.max !== undefined ? 'max' : c.min !== undefined ? 'min' : 'has');
const valueOf = (c: ScoreCond): string => (c.label ?? c.labels?.join(', ') ?? (c.max ?? c.min)?.toString() ?? '');

function condOf(name: string, op: Op, value: string): ScoreCond {
  const n = Number(value);
  if (op === 'label') return value.trim() ? { name, label: value.trim() } : { name };
  if ((op === 'max' || op === 'min') && value.trim() !== '' && Number.isFinite(n)) return { name, [op]: n };
  return { name };
}

export function ScoreFilter({ project, value, onChange }: { project: string; value: ScoreCond | null | undefined; onChange(c: ScoreCond | null): void }) {
  const names = useScoreNames(project);
  const [op, setOp] = useState<Op>(value ? opOf(value) : 'max');
  const [text, setText] = useState(value ? valueOf(value) : '');
  // A condition set from outside (a link, a cleared filter) shows as the controls; the user's own
  // typing (which makes the same condition, e.g. with a trailing space) is left as typed.
  const key = value ? JSON.stringify(value) : '';
  useResetOnChange([key], () => {
    if (value && JSON.stringify(condOf(value.name, op, text)) !== key) { setOp(opOf(value)); setText(valueOf(value)); }
  });
  const options = value && !names.includes(value.name) ? [value.name, ...names] : names;
  if (!options.length) return null;
  return (
    <span className="score-filter" data-testid="score-filter">
      <select aria-label="Score" value={value?.name ?? ''} onChange={(e) => onChange(e.target.value ? condOf(e.target.value, op, text) : null)}>
        <option value="">Any score</option>
        {options.map((n) => <option key={n} value={n}>{n}</option>)}
      </select>
      {value && (
        <>
          <select aria-label="Score condition" value={op} onChange={(e) => { const o = e.target.value as Op; setOp(o); onChange(condOf(value.name, o, text)); }}>
            <option value="max">≤</option>
            <option value="min">≥</option>
            <option value="label">label is</option>
            <option value="has">is scored</option>
          </select>
          {op !== 'has' && (
            <input
              aria-label="Score value"
              value={text}
              size={op === 'label' ? 16 : 5}
              placeholder={op === 'label' ? 'label' : '0.5'}
              onChange={(e) => { setText(e.target.value); onChange(condOf(value.name, op, e.target.value)); }}
            />
          )}
        </>
      )}
    </span>
  );
}
