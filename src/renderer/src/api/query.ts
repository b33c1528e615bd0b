/**
 * Server data through react-query. `useOp(name, input)` is the one way pages read: the query key is
 * [name, input], so `data.changed` events (from api/client onEvent) can invalidate exactly the
 * queries of the touched project. Mutations go through `useOpMutation`.
 */
import { QueryClient, useMutation, useQuery, keepPreviousData, type UseQueryOptions } from '@tanstack/react-query';
import type { OpInput, OpName, OpOutput } from '../../../shared/contract/index';
import { call } from './client';
import type { LoupeEvent } from '../../../shared/events';
import { isUnreachable, onReconnect } from './connection';

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 30_000,
      // A server that is away is waited for (the retry pauses while offline and resumes when the
      // connection module sees it again); any other failure is retried once, then shown.
      retry: (count, error) => isUnreachable(error) || count < 1,
      refetchOnWindowFocus: false,
    },
  },
});

/** The server is back: everything may have changed while it was away (and push events were missed). */
export function refetchEverything(): void {
  void queryClient.invalidateQueries();
}
onReconnect(refetchEverything);

type QueryOpts<K extends OpName> = Omit<UseQueryOptions<OpOutput<K>, Error>, 'queryKey' | 'queryFn'>;

/** Reads operation `name` with `input`; `enabled: false` (or input null) waits. Keeps the previous page while the next loads. */
export function useOp<K extends OpName>(name: K, input: OpInput<K> | null, opts: QueryOpts<K> = {}) {
  return useQuery<OpOutput<K>, Error>({
    queryKey: [name, input],
    queryFn: () => call(name, input as OpInput<K>),
    enabled: input !== null && (opts.enabled ?? true),
    placeholderData: keepPreviousData,
    ...opts,
  });
}

/** A write; on success the listed operations' queries are invalidated (live events also do this). */
export function useOpMutation<K extends OpName>(name: K, invalidates: OpName[] = []) {
  return useMutation<OpOutput<K>, Error, OpInput<K>>({
    mutationFn: (input) => call(name, input),
    onSuccess: () => {
      for (const n of invalidates) void queryClient.invalidateQueries({ queryKey: [n] });
    },
  });
}

/** Projects whose queries must be refetched, batched so an import of 50 batches refetches a few times, not 50. */
const pending = new Set<string | null>();
let timer: ReturnType<typeof setTimeout> | null = null;
const REFRESH_BATCH_MS = 300;

function flush(): void {
  timer = null;
  const projects = new Set(pending);
  pending.clear();
  void queryClient.invalidateQueries({
    predicate: (q) => {
      const input = q.queryKey[1] as { project_id?: unknown } | null | undefined;
      const pid = input && typeof input === 'object' ? input.project_id : undefined;
      // Queries without a project (projects list, settings) refresh on any change; a change of unknown
      // project (another process wrote, api events.ts) refreshes everything.
      return typeof pid !== 'string' || projects.has(pid) || projects.has(null);
    },
  });
}

export function handleEvent(event: LoupeEvent): void {
  if (event.type !== 'data.changed') return;
  pending.add(event.project_id);
  timer ??= setTimeout(flush, REFRESH_BATCH_MS);
}
