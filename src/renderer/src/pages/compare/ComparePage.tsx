/**
 * Trace compare: two traces (or two turns of conversations — a turn is a trace) side by side.
 * Totals first (duration, tokens, cost, steps, failures, with the difference B − A), then every step
 * aligned (shared/compare.ts): the same step on one line with its text diffed word by word (removed
 * words marked on A's side, added ones on B's), tool calls with their arguments and results, and per
 * step tokens, cost and latency with their difference. Steps only one run took stand alone.
 * Deep link: #/p/<project>/compare?a=<trace_id>&b=<trace_id>. Traces are picked with "Compare" on a
 * trace or a turn (shell/ComparePick.tsx), or typed here.
 */
import { useMemo, useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import type { Change } from 'diff';
import { useOp } from '../../api/query';
import { ErrorNote } from '../../components/ErrorNote';
import { fmtCost, fmtDuration, fmtTokens } from '../../components/format';
import { projectPath, useProject } from '../../hooks/project';
import { alignSteps, toSteps, totals, type Pair, type Step } from '../../../../shared/compare';
import { Collapsible } from '../../chat/Collapsible';
import { Icon } from '../../components/Icon';
import type { TurnHead } from '../../chat/TurnView';

/** Steps read per trace: compare is for agent runs people read, not 20,000-span batch traces. */
const MAX_MESSAGES = 2000;

export function ComparePage() {
  const project = useProject();
  const [params, setParams] = useSearchParams();
  const a = params.get('a') ?? '';
  const b = params.get('b') ?? '';
  const qa = useOp('chat.tracePage', a ? { project_id: project, trace_id: a, limit: MAX_MESSAGES } : null);
  const qb = useOp('chat.tracePage', b ? { project_id: project, trace_id: b, limit: MAX_MESSAGES } : null);
  const stepsA = useMemo(() => toSteps(qa.data?.messages ?? []), [qa.data]);
  const stepsB = useMemo(() => toSteps(qb.data?.messages ?? []), [qb.data]);
  const pairs = useMemo(() => alignSteps(stepsA, stepsB), [stepsA, stepsB]);
  const ready = qa.data && qb.data;

  return (
    <div className="page compare-page" data-testid="compare-page">
      <div className="page-head">
        <h1>Compare traces</h1>
        <ComparePickers a={a} b={b} onChange={(na, nb) => setParams({ a: na, b: nb }, { replace: true })} />
      </div>
      <ErrorNote error={qa.error} what="trace A" />
      <ErrorNote error={qb.error} what="trace B" />
      {(!a || !b) && <div className="muted">Choose two traces: “Compare” on a trace or a turn picks the first, the same on another opens them here; or paste two trace ids above.</div>}
      {ready && (qa.data.messages.length === 0 || qb.data.messages.length === 0) && (
        <div className="muted" data-testid="compare-empty">{qa.data.messages.length === 0 ? 'Trace A' : 'Trace B'} has no messages in project {project}.</div>
      )}
      {ready && (
        <>
          <Summary project={project} a={qa.data.turn} b={qb.data.turn} stepsA={stepsA} stepsB={stepsB} pairs={pairs} />
          <div className="compare-steps" data-testid="compare-steps">
            <div className="compare-row compare-head">
              <div>A</div><div /><div>B</div>
            </div>
            {pairs.map((p, i) => <StepPair key={i} pair={p} />)}
          </div>
        </>
      )}
    </div>
  );
}

function ComparePickers(props: { a: string; b: string; onChange(a: string, b: string): void }) {
  const [a, setA] = useState(props.a);
  const [b, setB] = useState(props.b);
  return (
    <form className="toolbar" onSubmit={(e) => { e.preventDefault(); props.onChange(a.trim(), b.trim()); }}>
      <input value={a} onChange={(e) => setA(e.target.value)} placeholder="trace id A" aria-label="Trace A" className="mono" size={34} />
      <button type="button" onClick={() => { setA(b); setB(a); props.onChange(b.trim(), a.trim()); }} aria-label="Swap A and B" title="Swap A and B">⇄</button>
      <input value={b} onChange={(e) => setB(e.target.value)} placeholder="trace id B" aria-label="Trace B" className="mono" size={34} />
      <button type="submit">Compare</button>
    </form>
  );
}

function Delta({ a, b, fmt, lowerIsBetter = true }: { a: number | null; b: number | null; fmt(n: number): string; lowerIsBetter?: boolean }) {
  if (a === null || b === null) return <span className="faint">–</span>;
  const d = b - a;
  if (Math.abs(d) < 1e-12) return <span className="faint">=</span>;
  const better = lowerIsBetter ? d < 0 : d > 0;
  return <span className={better ? 'delta better' : 'delta worse'}>{d > 0 ? '+' : '−'}{fmt(Math.abs(d))}</span>;
}

function Summary(props: { project: string; a: TurnHead; b: TurnHead; stepsA: Step[]; stepsB: Step[]; pairs: Pair[] }) {
  const { a, b } = props;
  const ta = totals(props.stepsA);
  const tb = totals(props.stepsB);
  const changed = props.pairs.filter((p) => p.kind !== 'same').length;
  const rows: Array<[string, number | null, number | null, (n: number) => string]> = [
    ['Duration', a.total_duration_ms, b.total_duration_ms, fmtDuration],
    ['Input tokens', a.total_input_tokens ?? null, b.total_input_tokens ?? null, (n) => fmtTokens(n)],
    ['Output tokens', a.total_output_tokens ?? null, b.total_output_tokens ?? null, (n) => fmtTokens(n)],
    ['Cost', a.total_cost_usd, b.total_cost_usd, fmtCost],
    ['Steps', ta.steps, tb.steps, String],
    ['Failed steps', ta.failed, tb.failed, String],
  ];
  return (
    <div className="compare-summary" data-testid="compare-summary">
      <table className="plain">
        <thead>
          <tr>
            <th />
            <th><Link to={projectPath(props.project, 'traces', a.trace_id)} className="mono">A {a.trace_id.slice(0, 12)}…</Link><div className="faint">{a.root_span_name ?? a.agent_name ?? ''}</div></th>
            <th><Link to={projectPath(props.project, 'traces', b.trace_id)} className="mono">B {b.trace_id.slice(0, 12)}…</Link><div className="faint">{b.root_span_name ?? b.agent_name ?? ''}</div></th>
            <th>B − A</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(([label, x, y, fmt]) => (
            <tr key={label} data-testid={`compare-total-${label.toLowerCase().replace(/ /g, '-')}`}>
              <th>{label}</th>
              <td className="num">{x === null ? '–' : fmt(x)}</td>
              <td className="num">{y === null ? '–' : fmt(y)}</td>
              <td className="num"><Delta a={x} b={y} fmt={fmt} /></td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="muted" data-testid="compare-changed">{changed === 0 ? 'The two runs took the same steps with the same text.' : `${changed} of ${props.pairs.length} steps differ.`}</div>
    </div>
  );
}

const MARK: Record<Pair['kind'], string> = { same: '=', changed: '≠', 'only-a': '−', 'only-b': '+' };

function StepPair({ pair }: { pair: Pair }) {
  return (
    <div className={`compare-row ${pair.kind}`} data-testid="compare-row" data-kind={pair.kind}>
      <StepCell step={pair.a} diff={pair.diff} side="a" />
      <div className="compare-mark" title={pair.kind}>
        {MARK[pair.kind]}
        {pair.a && pair.b && pair.a.latencyMs !== null && pair.b.latencyMs !== null && (
          <div className="compare-lat"><Delta a={pair.a.latencyMs} b={pair.b.latencyMs} fmt={fmtDuration} /></div>
        )}
      </div>
      <StepCell step={pair.b} diff={pair.diff} side="b" />
    </div>
  );
}

function StepCell({ step, diff, side }: { step: Step | null; diff: Change[] | null; side: 'a' | 'b' }) {
  if (!step) return <div className="compare-cell empty" />;
  const m = step.message;
  const icon = m.type === 'tool_call' ? 'tool' : m.type === 'agent_start' || m.type === 'agent_handoff' ? 'agent' : null;
  return (
    <div className={`compare-cell ${m.type} ${step.failed ? 'failed' : ''}`} data-testid={`compare-cell-${side}`}>
      <div className="compare-cell-head">
        {icon && <Icon name={icon} size={12} />}
        <strong>{step.label}</strong>
        {step.failed && <span className="pill error">failed</span>}
        <span className="spacer" />
        {(step.tokensIn !== null || step.tokensOut !== null) && <span className="faint">{fmtTokens(step.tokensIn)} → {fmtTokens(step.tokensOut)} tok</span>}
        {step.cost !== null && <span className="faint">{fmtCost(step.cost)}</span>}
        {step.latencyMs !== null && <span className="faint">{fmtDuration(step.latencyMs)}</span>}
      </div>
      {step.text && (
        <Collapsible text={step.text}>
          <div className="compare-text">{diff ? <DiffText diff={diff} side={side} /> : step.text}</div>
        </Collapsible>
      )}
    </div>
  );
}

/** One side of a word diff: A shows common and removed words, B common and added ones. */
function DiffText({ diff, side }: { diff: Change[]; side: 'a' | 'b' }) {
  return (
    <>
      {diff.map((c, i) => {
        if (c.added) return side === 'b' ? <ins key={i}>{c.value}</ins> : null;
        if (c.removed) return side === 'a' ? <del key={i}>{c.value}</del> : null;
        return <span key={i}>{c.value}</span>;
      })}
    </>
  );
}
