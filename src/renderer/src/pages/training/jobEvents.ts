/**
 * A job's events: every stored page (training.jobEvents, followed with the `after` cursor to the end,
 * so a job with thousands of gradient steps charts whole) merged with `job.event` push events as
 * they arrive, deduplicated by event id. Re-read after each status change. The loss series for the
 * chart is derived from the gradient_step events.
 */
import { useMemo, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { call } from '../../api/client';
import { useEvents } from '../../api/events';
import type { OpOutput } from '../../../../shared/contract/index';
import { useResetOnChange } from '../../hooks/reset';

export interface JobEvent { id: string; type: string; data: Record<string, unknown>; created_at: string }

const PAGE = 100;
const KEY = 'training.jobEvents.all';

/** Every stored event of a job, page after page until has_more is false. */
export async function allJobEvents(jobId: string): Promise<JobEvent[]> {
  const out: JobEvent[] = [];
  let after: string | null = null;
  for (;;) {
    const page: OpOutput<'training.jobEvents'> = await call('training.jobEvents', { job_id: jobId, limit: PAGE, ...(after ? { after } : {}) });
    out.push(...(page.data as JobEvent[]));
    if (!page.has_more || !page.last_id) return out;
    after = page.last_id;
  }
}

export function useJobEvents(jobId: string) {
  const stored = useQuery({ queryKey: [KEY, jobId], queryFn: () => allJobEvents(jobId) });
  const [live, setLive] = useState<JobEvent[]>([]);
  const qc = useQueryClient();
  useResetOnChange([jobId], () => setLive([]));

  useEvents((e) => {
    if (e.type === 'job.event' && e.job_id === jobId) setLive((l) => [...l, e.event]);
    if (e.type === 'job.status' && e.job_id === jobId) {
      void qc.invalidateQueries({ queryKey: ['training.getJob'] });
      void qc.invalidateQueries({ queryKey: ['training.listCheckpoints'] });
      void qc.invalidateQueries({ queryKey: [KEY, jobId] });
    }
  });

  const events = useMemo(() => {
    // Server order for the stored pages (ascending), then pushes in arrival order; ids dedupe the overlap.
    const byId = new Map<string, JobEvent>();
    for (const ev of stored.data ?? []) byId.set(ev.id, ev);
    for (const ev of live) if (!byId.has(ev.id)) byId.set(ev.id, ev);
    return [...byId.values()];
  }, [stored.data, live]);

  return { events, liveCount: live.length, loading: stored.isPending, error: stored.error };
}

/** Numeric series of the gradient steps, one x per step (1-based). */
export function stepSeries(events: JobEvent[]): { steps: number[]; series: Record<string, (number | null)[]> } {
  const grads = events.filter((e) => e.type === 'gradient_step');
  const steps = grads.map((_, i) => i + 1);
  const pick = (k: string) => grads.map((g) => (typeof g.data[k] === 'number' ? (g.data[k]) : null));
  const series: Record<string, (number | null)[]> = { loss: pick('loss') };
  if (grads.some((g) => typeof g.data.entropy === 'number')) series.entropy = pick('entropy');
  return { steps, series };
}
