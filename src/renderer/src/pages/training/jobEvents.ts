/**
 * A job's events: the stored page (training.jobEvents, read once and after each status change)
 * merged with `job.event` push events as they arrive, deduplicated by event id.
 * The loss series for the chart is derived from the gradient_step events.
 */
import { useEffect, useMemo, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useOp } from '../../api/query';
import { useEvents } from '../../api/events';

export interface JobEvent { id: string; type: string; data: Record<string, unknown>; created_at: string }

export function useJobEvents(jobId: string) {
  const stored = useOp('training.jobEvents', { job_id: jobId, limit: 100 });
  const [live, setLive] = useState<JobEvent[]>([]);
  const qc = useQueryClient();
  useEffect(() => setLive([]), [jobId]);

  useEvents((e) => {
    if (e.type === 'job.event' && e.job_id === jobId) setLive((l) => [...l, e.event]);
    if (e.type === 'job.status' && e.job_id === jobId) {
      void qc.invalidateQueries({ queryKey: ['training.getJob'] });
      void qc.invalidateQueries({ queryKey: ['training.listCheckpoints'] });
    }
  });

  const events = useMemo(() => {
    // Server order for the stored page (ascending), then pushes in arrival order; ids dedupe the overlap.
    const byId = new Map<string, JobEvent>();
    for (const ev of stored.data?.data ?? []) byId.set(ev.id, ev as JobEvent);
    for (const ev of live) if (!byId.has(ev.id)) byId.set(ev.id, ev);
    return [...byId.values()];
  }, [stored.data, live]);

  return { events, liveCount: live.length, error: stored.error };
}

/** Numeric series of the gradient steps, one x per step (1-based). */
export function stepSeries(events: JobEvent[]): { steps: number[]; series: Record<string, (number | null)[]> } {
  const grads = events.filter((e) => e.type === 'gradient_step');
  const steps = grads.map((_, i) => i + 1);
  const pick = (k: string) => grads.map((g) => (typeof g.data[k] === 'number' ? (g.data[k] as number) : null));
  const series: Record<string, (number | null)[]> = { loss: pick('loss') };
  if (grads.some((g) => typeof g.data.entropy === 'number')) series.entropy = pick('entropy');
  return { steps, series };
}
