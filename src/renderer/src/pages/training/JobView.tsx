/**
 * One training job: status (training.getJob, refreshed on job.status pushes), what it was asked
 * (its summary: data, counts, learning rate as sent and as applied), a cancel button while it waits
 * or runs, the loss chart over every gradient step and the event log, which grows live as job.event
 * pushes arrive. Long logs show their last events (the chart keeps them all).
 */
import { Link } from 'react-router-dom';
import { useOp, useOpMutation } from '../../api/query';
import { projectPath, useProject } from '../../hooks/project';
import { LossChart } from './LossChart';
import { stepSeries, useJobEvents } from './jobEvents';
import { refreshTrainingLists } from './trainingStore';
import { textOf } from '../../../../shared/text';

const ENDED = ['COMPLETED', 'FAILED', 'CANCELLED'];
/** Event rows rendered at most (a job can have thousands of steps; the chart shows them all). */
const LOG_ROWS = 200;

export function JobView({ jobId }: { jobId: string }) {
  const project = useProject();
  const job = useOp('training.getJob', { job_id: jobId }, { refetchInterval: (q) => (q.state.data && ENDED.includes(q.state.data.status) ? false : 5000) });
  const { events, liveCount, error } = useJobEvents(jobId);
  const cancel = useOpMutation('training.cancelJob', ['training.getJob']);
  const { steps, series } = stepSeries(events);
  const j = job.data;
  const shown = events.slice(-LOG_ROWS);
  return (
    <section className="panel job-view" data-testid="job-view" data-job-id={jobId}>
      <div className="panel-head">
        <strong>Job {jobId.slice(0, 8)}</strong>
        {j && <span className={`pill ${j.status === 'FAILED' || j.status === 'CANCELLED' ? 'error' : j.status === 'COMPLETED' ? 'ok' : ''}`} data-testid="job-status">{j.status}</span>}
        {j && <span className="muted">{j.kind.toUpperCase()} · step {j.step ?? '—'}</span>}
        <span className="muted" data-testid="live-count" title="Events pushed to this view while it was open">{liveCount} pushed live</span>
        {j && !ENDED.includes(j.status) && (
          <button onClick={() => cancel.mutate({ job_id: jobId }, { onSuccess: refreshTrainingLists })} disabled={cancel.isPending} data-testid="cancel-job">
            {cancel.isPending ? 'Cancelling…' : 'Cancel'}
          </button>
        )}
        {j?.status === 'COMPLETED' && (
          <Link
            to={`${projectPath(project, 'replays')}?model_id=${encodeURIComponent(j.model_id)}${typeof j.summary.training_data_url === 'string' && j.summary.training_data_url.includes('-artifact:///') ? `&dataset=${encodeURIComponent(j.summary.training_data_url)}` : ''}`}
            title="Replay conversations on the checkpoint this job made (the loop: replay → compare → train → replay)"
            data-testid="job-replay"
          >
            Replay on this checkpoint
          </Link>
        )}
      </div>
      {j && <JobSummary summary={j.summary} />}
      {j?.error_message && <div className="error-text" role="alert">{j.error_message}</div>}
      {(job.error || error || cancel.error) && <div className="error-text" role="alert">{(job.error ?? error ?? cancel.error)?.message}</div>}
      {steps.length > 0 ? <LossChart steps={steps} series={series} /> : <div className="muted chart-placeholder">The loss chart fills in as gradient steps arrive.</div>}
      {events.length > shown.length && <div className="muted" data-testid="events-elided">{events.length - shown.length} earlier events not listed ({events.length} in all)</div>}
      <ol className="job-events" data-testid="job-events" start={events.length - shown.length + 1}>
        {shown.map((e) => (
          <li key={e.id} data-testid="job-event" data-type={e.type}>
            <span className="mono faint">{e.created_at.slice(11, 23)}</span> <strong>{e.type}</strong>{' '}
            <span className="mono muted">{summarize(e.data)}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}

/** The job's request in one line: data or counts, and the learning rate as sent → as applied. */
function JobSummary({ summary }: { summary: Record<string, unknown> }) {
  const parts: string[] = [];
  if (typeof summary.training_data_url === 'string') parts.push(`data ${summary.training_data_url}`);
  if (typeof summary.trajectories === 'number') parts.push(`${textOf(summary.trajectory_groups)} groups · ${summary.trajectories} trajectories · mean reward ${fmt(summary.mean_reward)}`);
  if (typeof summary.loss === 'string') parts.push(`loss ${summary.loss}`);
  const lr = summary.learning_rate as { sent?: unknown; applied?: unknown; how?: string } | undefined;
  if (lr?.how === 'scaled') parts.push(`learning rate ${fmt(lr.sent)} (client) → ${fmt(lr.applied)}`);
  else if (lr?.how) parts.push(`learning rate ${fmt(lr.applied ?? lr.sent)} (${lr.how})`);
  if (!parts.length) return null;
  return <div className="muted job-summary" data-testid="job-summary">{parts.join(' · ')}</div>;
}

const fmt = (v: unknown): string =>
  Array.isArray(v)
    ? `[${v.map(fmt).join(', ')}]`
    : typeof v === 'number'
      ? Number.isInteger(v) ? String(v) : Math.abs(v) < 1e-3 ? v.toExponential(2) : v.toPrecision(3)
      : v === null || v === undefined ? '—' : textOf(v);

function summarize(data: Record<string, unknown>): string {
  return Object.entries(data)
    .map(([k, v]) => `${k}=${typeof v === 'number' && !Number.isInteger(v) ? v.toPrecision(4) : JSON.stringify(v)}`)
    .join(' ');
}
