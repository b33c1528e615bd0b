/**
 * The training page's models and jobs, read from the server (training.listModels /
 * training.listJobs, newest first, a page at a time with "more"). Nothing is remembered per
 * browser: a model or job made by a training script shows up like the page's own. What is selected
 * lives in the URL (TrainingPage). Lists refresh after this page's writes and on job.status pushes.
 */
import { useInfiniteQuery } from '@tanstack/react-query';
import { call } from '../../api/client';
import { queryClient } from '../../api/query';
import type { OpOutput } from '../../../../shared/contract/index';

export type KnownModel = OpOutput<'training.listModels'>['data'][number];
export type KnownJob = OpOutput<'training.listJobs'>['data'][number];

const PAGE = 50;
const MODELS_KEY = 'training.listModels';
const JOBS_KEY = 'training.listJobs';

/** All models, newest first; `more()` reads the next page. */
export function useModelList() {
  const q = useInfiniteQuery({
    queryKey: [MODELS_KEY, 'pages'],
    queryFn: ({ pageParam }) => call('training.listModels', { limit: PAGE, ...(pageParam ? { after: pageParam } : {}) }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => (last.has_more ? last.last_id : null),
  });
  return { models: q.data?.pages.flatMap((p) => p.data) ?? [], loading: q.isPending, error: q.error, hasMore: q.hasNextPage, more: () => void q.fetchNextPage() };
}

/** Jobs of one model (or of every model when null), newest first; `more()` reads the next page. */
export function useJobList(modelId: string | null) {
  const q = useInfiniteQuery({
    queryKey: [JOBS_KEY, 'pages', modelId],
    queryFn: ({ pageParam }) => call('training.listJobs', { limit: PAGE, ...(modelId ? { model_id: modelId } : {}), ...(pageParam ? { after: pageParam } : {}) }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => (last.has_more ? last.last_id : null),
  });
  return { jobs: q.data?.pages.flatMap((p) => p.data) ?? [], loading: q.isPending, error: q.error, hasMore: q.hasNextPage, more: () => void q.fetchNextPage() };
}

/** After a write here or a job status push: models (latest step) and jobs (status) may have changed. */
export function refreshTrainingLists(): void {
  void queryClient.invalidateQueries({ queryKey: [MODELS_KEY] });
  void queryClient.invalidateQueries({ queryKey: [JOBS_KEY] });
  void queryClient.invalidateQueries({ queryKey: ['training.listCheckpoints'] });
}

/** The reference chat completions accept for a model at a step (semantics §9.7). */
export function modelRef(m: Pick<KnownModel, 'entity' | 'project' | 'name'>, step: number | null): string {
  const base = `${m.entity}/${m.project}/${m.name}`;
  return step === null ? base : `${base}:step${step}`;
}
