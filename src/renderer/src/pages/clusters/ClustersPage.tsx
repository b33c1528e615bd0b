/**
 * Clusters (issue 20 item 4): a project's failure clusters for a time window (`clusters.list`,
 * largest first), each with its count, a trend per day, first and last seen, the agents, example
 * turns (links to their chat) and the ways to open it everywhere else: "Show these conversations"
 * (the conversations list filtered by the cluster's score condition), "Review" (the review queue of
 * its turns) and "Spans". A project whose
 * turns were never signed offers "Compute clusters" (`clusters.compute`, resumable; from then on new
 * turns are signed as they arrive) and shows the run's progress (`scorers.runs`) until it ends.
 * The window is in the link: `#/p/<project>/clusters?window=7d`.
 */
import { useMemo, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { useOp, useOpMutation } from '../../api/query';
import { EmptyState } from '../../components/EmptyState';
import { ErrorNote } from '../../components/ErrorNote';
import { fmtTime } from '../../components/format';
import { projectPath, useProject } from '../../hooks/project';
import { useUi } from '../../stores/ui';
import { conversationsQuery, dailyCounts, sinceOf, spanRows, windowOf, WINDOWS, type Cluster, type WindowId } from './clusterLinks';
import './clusters.css';

/** Example turns shown per cluster (the API gives up to 20). */
const EXAMPLES = 5;
const KIND_LABELS: Record<Cluster['kind'], string> = {
  tool_error: 'tool error', error: 'error', repeated_tool_call: 'repeated calls', length_cutoff: 'length cut-off',
  rephrased: 'rephrased question', negative_feedback: 'negative feedback', low_score: 'low score',
};

export function ClustersPage() {
  const project = useProject();
  const [params, setParams] = useSearchParams();
  const win = windowOf(params.get('window'));
  const since = useMemo(() => sinceOf(win), [win]);
  const q = useOp('clusters.list', { project_id: project, ...(since ? { since } : {}) });
  const clusters = q.data?.clusters ?? [];
  const setWindow = (w: WindowId) => setParams((p) => { const n = new URLSearchParams(p); if (w === 'all') n.delete('window'); else n.set('window', w); return n; }, { replace: true });

  return (
    <div className="page clusters-page" data-testid="clusters-page">
      <div className="page-head">
        <h1>Failure clusters</h1>
        <span className="muted" data-testid="clusters-total">{q.isPending ? 'loading…' : `${clusters.length} cluster${clusters.length === 1 ? '' : 's'} · ${clusters.reduce((n, c) => n + c.count, 0).toLocaleString('en-US')} turns`}</span>
        <span className="spacer" />
        <select aria-label="Time window" value={win} onChange={(e) => setWindow(e.target.value as WindowId)}>
          {WINDOWS.map((w) => <option key={w.id} value={w.id}>{w.label}</option>)}
        </select>
        <ComputeButton project={project} compact={clusters.length > 0} />
      </div>
      <ErrorNote error={q.error} what="clusters" />
      {!q.isPending && !q.error && clusters.length === 0 ? (
        <EmptyState title={win === 'all' ? 'No failure clusters yet' : 'No failure clusters in this window'} actions={false}>
          Clusters group turns by what went wrong: a failing tool and its error, an error's type and message, the same call
          repeated, a cut-off answer, a question asked again, negative feedback, a low score. {win === 'all' ? 'Compute them once for this project (above); new turns are then signed as they arrive.' : 'Choose a longer window, or compute clusters for turns not signed yet.'}
        </EmptyState>
      ) : (
        <ol className="cluster-list" data-testid="cluster-list">
          {clusters.map((c) => <ClusterCard key={c.cluster_id} project={project} cluster={c} />)}
        </ol>
      )}
    </div>
  );
}

function ClusterCard({ project, cluster: c }: { project: string; cluster: Cluster }) {
  const navigate = useNavigate();
  const relative = useUi((s) => s.display.relativeTimes);
  const spansLink = `${projectPath(project, 'spans')}?f=${encodeURIComponent(JSON.stringify(spanRows(c)))}`;
  return (
    <li className="cluster" data-testid="cluster" data-cluster={c.cluster_id}>
      <div className="cluster-main">
        <div className="cluster-title">
          <span className="cluster-count" data-testid="cluster-count" title="turns in this cluster">{c.count.toLocaleString('en-US')}</span>
          <strong className="cluster-name" data-testid="cluster-title" title={c.signature}>{c.title}</strong>
          <span className={`pill ${c.kind === 'low_score' || c.kind === 'negative_feedback' ? '' : 'error'}`} data-testid="cluster-kind">{KIND_LABELS[c.kind]}</span>
        </div>
        <div className="cluster-meta muted">
          <span title={`first seen ${c.first_seen}`}>first {fmtTime(c.first_seen, relative)}</span>
          <span title={`last seen ${c.last_seen}`}>last {fmtTime(c.last_seen, relative)}</span>
          {c.agent_names.map((a) => <span className="pill" key={a} data-testid="cluster-agent">{a}</span>)}
        </div>
        <div className="cluster-examples" data-testid="cluster-examples">
          <span className="muted">Examples:</span>
          {c.trace_ids.slice(0, EXAMPLES).map((t, i) => (
            <Link key={t} to={`${projectPath(project, 'traces', t)}?tab=chat`} data-testid="cluster-example" title={`the chat of turn ${t}`}>turn {i + 1}</Link>
          ))}
          {c.trace_ids.length > EXAMPLES && <span className="faint">+{c.trace_ids.length - EXAMPLES}</span>}
        </div>
      </div>
      <Trend trend={c.trend} />
      <div className="cluster-actions">
        <button className="primary" onClick={() => void navigate(`${projectPath(project, 'conversations')}?${conversationsQuery(c)}`)} data-testid="cluster-conversations">Show these conversations</button>
        <span className="cluster-links">
          <Link to={`${projectPath(project, 'review')}?${conversationsQuery(c)}`} data-testid="cluster-review">Review ↗</Link>
          <Link to={spansLink} data-testid="cluster-spans">Spans ↗</Link>
          <Link to={`${projectPath(project, 'replays')}?cluster=${encodeURIComponent(c.cluster_id)}`} title="Replay these conversations on another model" data-testid="cluster-replay">Replay ↗</Link>
        </span>
      </div>
    </li>
  );
}

/** Turns per day as bars (UTC days, gaps as empty days); the tooltip names each day. */
function Trend({ trend }: { trend: Cluster['trend'] }) {
  const days = dailyCounts(trend);
  const max = Math.max(1, ...days.map((d) => d.count));
  const W = 140;
  const H = 32;
  const bw = days.length ? W / days.length : W;
  return (
    <svg className="cluster-trend" width={W} height={H} viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`turns per day: ${days.map((d) => `${d.day} ${d.count}`).join(', ')}`} data-testid="cluster-trend" data-days={days.length}>
      {days.map((d, i) => {
        const h = Math.max(d.count ? 2 : 0, Math.round((d.count / max) * (H - 2)));
        return <rect key={d.day} x={i * bw + 0.5} y={H - h} width={Math.max(1, bw - 1)} height={h}><title>{`${d.day}: ${d.count}`}</title></rect>;
      })}
    </svg>
  );
}

/**
 * "Compute clusters": signs the project's turns not signed yet (a resumable run), then shows the run's
 * progress until it ends; the list refreshes by itself (the run's scores change the `scores` table).
 */
function ComputeButton({ project, compact }: { project: string; compact: boolean }) {
  const compute = useOpMutation('clusters.compute', ['clusters.list', 'scorers.runs']);
  const [runId, setRunId] = useState<string | null>(null);
  const runs = useOp('scorers.runs', { project_id: project }, { enabled: runId !== null, refetchInterval: (q) => (q.state.data?.runs.find((r) => r.run_id === runId)?.status === 'running' ? 500 : false) });
  const run = runs.data?.runs.find((r) => r.run_id === runId) ?? (compute.data?.run_id === runId ? compute.data : undefined);
  const running = compute.isPending || run?.status === 'running';
  return (
    <span className="cluster-compute">
      <button
        className={compact ? '' : 'primary'}
        disabled={running}
        data-testid="compute-clusters"
        title="Sign the turns not signed yet (failing tools, errors, repeated calls, cut-offs, rephrased questions, negative feedback); new turns are then signed as they arrive"
        onClick={() => compute.mutate({ project_id: project, selection: {}, wait: false }, { onSuccess: (r) => setRunId(r.run_id) })}
      >
        {running ? 'Computing…' : compact ? 'Update clusters' : 'Compute clusters'}
      </button>
      {run && (
        <span className="muted" role="status" data-testid="compute-progress" data-status={run.status}>
          {run.status === 'running' && <span className="spinner" aria-hidden />}
          {' '}{run.status === 'running' ? 'signing' : run.status}: {run.turns.toLocaleString('en-US')} turns read, {run.scored.toLocaleString('en-US')} signed{run.skipped ? `, ${run.skipped.toLocaleString('en-US')} already signed` : ''}
          {run.error && <span className="error-text"> — {run.error}</span>}
        </span>
      )}
      {compute.error && <span className="error-text" role="alert">Not started: {compute.error.message}</span>}
    </span>
  );
}
