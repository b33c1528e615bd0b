/**
 * A replay's report (issue 21 item 2): progress while it runs (cancel), then totals better / worse /
 * same / changed / diverged / failed, tokens and cost of both sides, each score's means with the sign
 * test of the change, and per turn the original beside the replay — the answers with their line diff,
 * the tool sequences with theirs, tokens, cost, latency — with links to both traces and to the
 * step-by-step compare of the pair. Deep link: #/p/<project>/replays/<replay_id>?sort=<key>.
 */
import { useEffect } from 'react';
import { Link, useParams, useSearchParams } from 'react-router-dom';
import { useOp, useOpMutation } from '../../api/query';
import type { OpOutput } from '../../../../shared/contract/index';
import { ErrorNote } from '../../components/ErrorNote';
import { fmtCost, fmtDuration, fmtTokens } from '../../components/format';
import { projectPath, useProject } from '../../hooks/project';
import './replays.css';

type Report = OpOutput<'replays.report'>;
type Row = Report['rows'][number];
const OUTCOMES = ['better', 'worse', 'same', 'changed', 'diverged', 'failed', 'pending'] as const;
const SORTS = { outcome: 'outcome', tokens_delta: 'tokens Δ', cost_delta: 'cost Δ', latency_delta: 'latency Δ', original: 'selection order' } as const;
type Sort = keyof typeof SORTS;

export function ReplayReportPage() {
  const project = useProject();
  const replayId = useParams().replayId ?? '';
  const [params, setParams] = useSearchParams();
  const sort = (params.get('sort') ?? 'outcome') as Sort;
  const replay = useOp('replays.get', { replay_id: replayId }, { refetchInterval: (q) => (q.state.data?.status === 'running' ? 1000 : false) });
  const running = replay.data?.status === 'running';
  const report = useOp('replays.report', { replay_id: replayId, sort });
  const cancel = useOpMutation('replays.cancel', ['replays.get', 'replays.report', 'replays.list']);
  const r = replay.data;
  const t = r?.totals;
  // The report is read again whenever the replay moved (a turn ended, or the run did): the last read is never one from before the end.
  const progress = r && t ? `${r.status}:${t.done}:${t.failed}:${t.pending}` : '';
  const { refetch } = report;
  useEffect(() => {
    if (progress) void refetch();
  }, [progress, refetch]);
  const rep = report.data;
  const originalTokens = rep?.rows.reduce((a, x) => a + (x.original_tokens ?? 0), 0) ?? 0;
  const originalCost = rep?.rows.reduce<number | null>((a, x) => (x.original_cost_usd === null ? a : (a ?? 0) + x.original_cost_usd), null) ?? null;

  return (
    <div className="page replay-report" data-testid="replay-report">
      <div className="page-head">
        <Link to={projectPath(project, 'replays')} aria-label="Back to replays">←</Link>
        <h1>{r?.label ?? 'Replay'} <span className="mono faint replay-id">{replayId}</span></h1>
        {r && <span className={`pill ${r.status === 'failed' ? 'error' : r.status === 'done' ? 'ok' : ''}`} data-testid="replay-status">{r.status}</span>}
        {running && <button onClick={() => cancel.mutate({ replay_id: replayId })} disabled={cancel.isPending} data-testid="replay-cancel">Cancel</button>}
      </div>
      <ErrorNote error={replay.error ?? report.error ?? cancel.error} what="the replay" />
      {r && t && (
        <div className="replay-meta muted">
          <span>on <span className="mono">{r.target.model}</span>{r.target.base_url ? <> at <span className="mono">{r.target.base_url}</span></> : null}</span>
          <span data-testid="replay-progress">{t.done + t.failed} of {t.items} turns replayed{t.pending ? `, ${t.pending} to go` : ''}</span>
          {r.reason && <span className="error-text">{r.reason}</span>}
          <progress max={t.items} value={t.done + t.failed} aria-label="Progress" />
        </div>
      )}
      {rep && (
        <div className="replay-summary">
          <div className="replay-outcomes" data-testid="replay-outcomes">
            {OUTCOMES.map((o) => (
              <span key={o} className={`outcome ${o}`} data-testid={`outcome-${o}`}><strong>{rep.totals[o]}</strong> {o}</span>
            ))}
          </div>
          <table className="replay-cost" data-testid="replay-cost">
            <thead><tr><th /><th className="num">Original</th><th className="num">Replay</th></tr></thead>
            <tbody>
              <tr><th>Tokens</th><td className="num">{fmtTokens(originalTokens)}</td><td className="num">{fmtTokens(t ? t.input_tokens + t.output_tokens : 0)}</td></tr>
              <tr><th>Cost</th><td className="num">{fmtCost(originalCost)}</td><td className="num">{fmtCost(t?.cost_usd ?? null)}</td></tr>
            </tbody>
          </table>
          {rep.score_totals.length > 0 && (
            <table className="replay-scores" data-testid="replay-score-totals">
              <thead><tr><th>Score</th><th className="num">Pairs</th><th className="num">Original</th><th className="num">Replay</th><th className="num">Up</th><th className="num">Down</th><th className="num" title="sign test: (up − down) / √(up + down)">z</th><th className="num" title="exact two-sided sign test">p</th></tr></thead>
              <tbody>
                {rep.score_totals.map((s) => (
                  <tr key={s.name} data-testid="score-total">
                    <th>{s.name}</th><td className="num">{s.pairs}</td><td className="num">{fmtMean(s.original_mean)}</td><td className="num">{fmtMean(s.replay_mean)}</td>
                    <td className="num">{s.up}</td><td className="num">{s.down}</td><td className="num">{s.z === null ? '–' : s.z.toFixed(2)}</td><td className="num">{s.p === null ? '–' : fmtP(s.p)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      )}
      {rep && (
        <div className="replay-sort muted">
          Sort by{' '}
          <select aria-label="Sort" value={sort} onChange={(e) => setParams({ sort: e.target.value }, { replace: true })} data-testid="replay-sort">
            {Object.entries(SORTS).map(([k, v]) => <option key={k} value={k}>{v}</option>)}
          </select>
        </div>
      )}
      <div className="replay-rows">
        {rep?.rows.map((row) => <PairView key={row.original_trace_id} row={row} project={project} names={rep.score_names.map((n) => n.name)} />)}
      </div>
    </div>
  );
}

const fmtMean = (m: number | null) => (m === null ? '–' : m.toFixed(2));
const fmtP = (p: number) => (p < 0.001 ? p.toExponential(1) : p.toFixed(3));

function PairView({ row, project, names }: { row: Row; project: string; names: string[] }) {
  const delta = (a: number | null, b: number | null, f: (n: number) => string) => (a === null || b === null ? '' : ` (${b >= a ? '+' : '−'}${f(Math.abs(b - a))})`);
  return (
    <section className={`replay-pair ${row.outcome}`} data-testid="replay-pair" data-outcome={row.outcome} data-trace={row.original_trace_id}>
      <header className="replay-pair-head">
        <span className={`outcome ${row.outcome}`}>{row.outcome}</span>
        {row.conversation_id && <Link className="mono" to={projectPath(project, 'conversations', row.conversation_id)}>{row.conversation_id}</Link>}
        {row.divergence && <span className="error-text" data-testid="pair-divergence">diverged: {row.divergence.kind === 'unseen_tool' ? 'unseen tool' : 'unseen arguments'} {row.divergence.tool}</span>}
        {names.map((n) => row.scores[n] && (
          <span key={n} className="pair-score" title={`${n}: original → replay`}>{n} {fmtMean(row.scores[n].original)} → {fmtMean(row.scores[n].replay)}</span>
        ))}
        <span className="pair-figures muted">
          {fmtTokens(row.original_tokens)} → {fmtTokens(row.replay_tokens)} tok{delta(row.original_tokens, row.replay_tokens, fmtTokens)} · {fmtDuration(row.original_ms)} → {fmtDuration(row.replay_ms)}
          {row.replay_cost_usd !== null ? ` · ${fmtCost(row.original_cost_usd)} → ${fmtCost(row.replay_cost_usd)}` : ''}
        </span>
        {row.replay_trace_id && (
          <Link to={`${projectPath(project, 'compare')}?a=${encodeURIComponent(row.original_trace_id)}&b=${encodeURIComponent(row.replay_trace_id)}`} data-testid="pair-compare">compare steps</Link>
        )}
      </header>
      <div className="replay-sides">
        <div className="replay-side" data-testid="pair-original">
          <div className="side-head">Original <Link className="mono faint" to={projectPath(project, 'traces', row.original_trace_id)}>{row.original_trace_id.slice(0, 8)}</Link></div>
          <Diff lines={row.answer_diff} side="-" />
          <Tools steps={row.tool_diff} side="-" />
        </div>
        <div className="replay-side" data-testid="pair-replay">
          <div className="side-head">Replay {row.replay_trace_id && <Link className="mono faint" to={projectPath(project, 'traces', row.replay_trace_id)}>{row.replay_trace_id.slice(0, 8)}</Link>}</div>
          {row.outcome === 'pending' ? <div className="faint">not replayed yet</div> : <Diff lines={row.answer_diff} side="+" />}
          <Tools steps={row.tool_diff} side="+" />
        </div>
      </div>
    </section>
  );
}

/** One side of the line diff: lines both share, and this side's own lines marked. */
function Diff({ lines, side }: { lines: Row['answer_diff']; side: '-' | '+' }) {
  const mine = lines.filter(([op]) => op === ' ' || op === side);
  if (!mine.length) return <div className="faint">no answer</div>;
  return (
    <div className="replay-answer">
      {mine.map(([op, text], i) => (op === ' ' ? <div key={i}>{text || '\u00a0'}</div> : side === '-' ? <del key={i}>{text || '\u00a0'}</del> : <ins key={i}>{text || '\u00a0'}</ins>))}
    </div>
  );
}

function Tools({ steps, side }: { steps: Row['tool_diff']; side: '-' | '+' }) {
  const mine = steps.filter(([op]) => op === ' ' || op === side);
  if (!mine.length) return null;
  return (
    <div className="replay-tools" data-testid="pair-tools">
      tools: {mine.map(([op, name], i) => (op === ' ' ? <span key={i} className="mono">{name}</span> : side === '-' ? <del key={i} className="mono">{name}</del> : <ins key={i} className="mono">{name}</ins>))}
    </div>
  );
}
