/**
 * One training job: status (training.getJob, refreshed on job.status pushes), the loss chart and the
 * event log, which grows live as job.event pushes arrive.
 */
import { useOp } from '../../api/query';
import { LossChart } from './LossChart';
import { stepSeries, useJobEvents } from './jobEvents';

export function JobView({ jobId }: { jobId: string }) {
  const job = useOp('training.getJob', { job_id: jobId }, { refetchInterval: (q) => (q.state.data && ['COMPLETED', 'FAILED'].includes(q.state.data.status) ? false : 5000) });
  const { events, liveCount, error } = useJobEvents(jobId);
  const { steps, series } = stepSeries(events);
  const j = job.data;
  return (
    <section className="panel job-view" data-testid="job-view" data-job-id={jobId}>
      <div className="panel-head">
        <strong>Job {jobId.slice(0, 8)}</strong>
        {j && <span className={`pill ${j.status === 'FAILED' ? 'error' : j.status === 'COMPLETED' ? 'ok' : ''}`} data-testid="job-status">{j.status}</span>}
        {j && <span className="muted">{j.kind.toUpperCase()} · step {j.step ?? '—'}</span>}
        <span className="muted" data-testid="live-count" title="Events pushed to this view while it was open">{liveCount} pushed live</span>
      </div>
      {j?.error_message && <div className="error-text" role="alert">{j.error_message}</div>}
      {(job.error || error) && <div className="error-text" role="alert">{(job.error ?? error)?.message}</div>}
      {steps.length > 0 ? <LossChart steps={steps} series={series} /> : <div className="muted chart-placeholder">The loss chart fills in as gradient steps arrive.</div>}
      <ol className="job-events" data-testid="job-events">
        {events.map((e) => (
          <li key={e.id} data-testid="job-event" data-type={e.type}>
            <span className="mono faint">{e.created_at.slice(11, 23)}</span> <strong>{e.type}</strong>{' '}
            <span className="mono muted">{summarize(e.data)}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}

function summarize(data: Record<string, unknown>): string {
  return Object.entries(data)
    .map(([k, v]) => `${k}=${typeof v === 'number' && !Number.isInteger(v) ? v.toPrecision(4) : JSON.stringify(v)}`)
    .join(' ');
}
