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
import { isStale } from '../../../shared/live-refresh';

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
    // The signal lets react-query cancel a read nobody needs any more (a page left, the input changed):
    // the server then stops it instead of finishing a slow query for nobody.
    queryFn: ({ signal }) => call(name, input as OpInput<K>, signal),
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

/** Tables changed per project (null: a write of unknown project, e.g. by another process), batched so an import of 50 batches refetches a few times, not 50. */
const pending = new Map<string | null, Set<string>>();
let timer: ReturnType<typeof setTimeout> | null = null;
const REFRESH_BATCH_MS = 300;

function flush(): void {
  timer = null;
  const changed = new Map(pending);
  pending.clear();
  void queryClient.invalidateQueries({ predicate: (q) => isStale(q.queryKey, changed) });
}

export function handleEvent(event: LoupeEvent): void {
  if (event.type !== 'data.changed') return;
  let tables = pending.get(event.project_id);
  if (!tables) pending.set(event.project_id, (tables = new Set()));
  for (const t of event.tables) tables.add(t);
  timer ??= setTimeout(flush, REFRESH_BATCH_MS);
}
