/**
 * The loop (issue 21 item 3): replay → compare → train on the fix → replay again. Each round is a
 * replay of the project, oldest first: what it replayed (conversations, a cluster, a dataset), on
 * which model — for a Loupe checkpoint, the training job that made it and that job's dataset — its
 * outcomes, and its first score's mean with the change from the round before on the same selection,
 * so round 2 can be seen to beat round 1 (or not). The steps link where each is done: Replays (start
 * one, read its report), Training (a dataset from conversations, an SFT job on it).
 */
import { Link } from 'react-router-dom';
import { keepPreviousData, useQueries } from '@tanstack/react-query';
import { call } from '../../api/client';
import { useOp } from '../../api/query';
import type { OpOutput } from '../../../../shared/contract/index';
import { ErrorNote } from '../../components/ErrorNote';
import { fmtTime } from '../../components/format';
import { projectPath, useProject } from '../../hooks/project';
import './replays.css';

type Listed = OpOutput<'replays.list'>['replays'][number];
type Job = OpOutput<'training.listJobs'>['data'][number];

export function LoopPage() {
  const project = useProject();
  const list = useOp('replays.list', { project_id: project }, { refetchInterval: 3000 });
  const rounds = [...(list.data?.replays ?? [])].reverse(); // oldest first
  // A round's report is keyed by its progress too (the list is polled): a running round's outcomes follow it.
  const reports = useQueries({
    queries: rounds.map((r) => ({
      queryKey: ['replays.report', { replay_id: r.replay_id, sort: 'original' }, r.status, r.totals.done + r.totals.failed],
      queryFn: () => call('replays.report', { replay_id: r.replay_id, sort: 'original' }),
      placeholderData: keepPreviousData,
    })),
  });
  const models = [...new Set(rounds.map((r) => r.target.model_id).filter((m): m is string => !!m))];
  const jobs = useQueries({
    queries: models.map((m) => ({ queryKey: ['training.listJobs', { model_id: m, limit: 100 }], queryFn: () => call('training.listJobs', { model_id: m, limit: 100 }) })),
  });
  const jobsOf = new Map(models.map((m, i) => [m, jobs[i]?.data?.data ?? []]));

  return (
    <div className="page loop-page" data-testid="loop-page">
      <div className="page-head"><h1>The loop</h1></div>
      <ol className="loop-steps muted">
        <li><Link to={projectPath(project, 'replays')}>Replay</Link> conversations, a failure cluster or a dataset on another model or a checkpoint, and read the report.</li>
        <li>Fix the answers that went wrong, and make them a dataset: <Link to={projectPath(project, 'training')}>Training</Link> → from conversations.</li>
        <li>Train on it (an SFT job; a finished job offers "Replay on this checkpoint"), then replay the same selection — "next round" below — and a held-out one on the new checkpoint. Each replay is a round.</li>
      </ol>
      <ErrorNote error={list.error} what="the replays" />
      <table className="loop-rounds replay-list" data-testid="loop-rounds">
        <thead>
          <tr><th>Round</th><th>Replayed</th><th>Model</th><th>Trained by</th><th>Outcomes</th><th>Score</th><th>Report</th></tr>
        </thead>
        <tbody>
          {rounds.map((r, i) => {
            const rep = reports[i]?.data;
            const score = rep?.score_totals[0];
            const prevIdx = rounds.slice(0, i).map((x, j) => [x, j] as const).reverse().find(([x]) => sameSelection(x, r))?.[1];
            const prev = prevIdx === undefined ? undefined : reports[prevIdx]?.data?.score_totals.find((s) => s.name === score?.name);
            const job = r.target.model_id ? jobFor(jobsOf.get(r.target.model_id) ?? [], r) : null;
            return (
              <tr key={r.replay_id} data-testid="loop-round">
                <td>{i + 1}<div className="faint">{fmtTime(r.created_at, true)}</div></td>
                <td>{selectionText(r)}{r.label ? <div className="faint">{r.label}</div> : null}</td>
                <td className="mono">{r.target.model}</td>
                <td>{job ? <><span className="mono">{job.id.slice(0, 10)}</span> <span className="faint">{job.status.toLowerCase()}</span><div className="faint mono">{typeof job.summary.training_data_url === 'string' ? job.summary.training_data_url : ''}</div></> : <span className="faint">—</span>}</td>
                <td>{rep ? <span data-testid="loop-outcomes">{rep.totals.better} better · {rep.totals.worse} worse · {rep.totals.same} same{rep.totals.diverged ? ` · ${rep.totals.diverged} diverged` : ''}</span> : r.status}</td>
                <td data-testid="loop-score">
                  {score && score.replay_mean !== null ? (
                    <>
                      {score.name} {score.replay_mean.toFixed(2)}
                      {prev && prev.replay_mean !== null ? <span className={score.replay_mean > prev.replay_mean ? 'ok-text' : score.replay_mean < prev.replay_mean ? 'error-text' : 'faint'}> ({score.replay_mean >= prev.replay_mean ? '+' : '−'}{Math.abs(score.replay_mean - prev.replay_mean).toFixed(2)} vs round {prevIdx! + 1})</span> : null}
                      {score.p !== null ? <div className="faint">vs original: z {score.z!.toFixed(2)}, p {score.p < 0.001 ? score.p.toExponential(1) : score.p.toFixed(3)}</div> : null}
                    </>
                  ) : <span className="faint">—</span>}
                </td>
                <td>
                  <Link to={projectPath(project, 'replays', r.replay_id)} data-testid="loop-report">report</Link>
                  <div><Link to={`${projectPath(project, 'replays')}?from=${encodeURIComponent(r.replay_id)}`} title="The same selection again, on another model or a newer checkpoint" data-testid="loop-next">next round</Link></div>
                </td>
              </tr>
            );
          })}
          {list.data && rounds.length === 0 && <tr><td colSpan={7} className="muted">No round yet: start with a replay.</td></tr>}
        </tbody>
      </table>
    </div>
  );
}

function selectionText(r: Listed): string {
  const s = r.selected_by;
  if (s.kind === 'dataset') return `dataset ${s.dataset ?? ''}`;
  if (s.cluster_id) return `cluster ${s.cluster_id.slice(0, 10)}`;
  if (s.kind === 'selection') return 'filtered conversations';
  return `${r.estimate.turns} turn${r.estimate.turns === 1 ? '' : 's'} (${s.kind === 'trace_ids' ? 'chosen turns' : 'conversations'})`;
}

const sameSelection = (a: Listed, b: Listed) => a.selected_by.kind === b.selected_by.kind && a.selected_by.dataset === b.selected_by.dataset && a.selected_by.cluster_id === b.selected_by.cluster_id && a.estimate.turns === b.estimate.turns;

/** The job that made the replayed checkpoint: the model's last job created before the replay. */
function jobFor(jobs: Job[], r: Listed): Job | null {
  return jobs.filter((j) => j.created_at <= r.created_at).sort((a, b) => (a.created_at < b.created_at ? 1 : -1))[0] ?? null;
}
