import type { Handlers } from '../handlers.js';
import { invalid } from '../../../shared/errors.js';
import { nsFromIso } from '../../domain/time.js';
import { validateThreadSort, type ThreadRow } from '../../store/sqlite/analytics/threads.js';
import { validateSpansQuery } from './validate-spans.js';

/** Yield to the event loop every this many lines so HTTP can send what is ready (semantics §5). */
const LINES_PER_TICK = 64;

async function* streamed(rows: Iterable<ThreadRow>): AsyncGenerator<ThreadRow> {
  let n = 0;
  for (const r of rows) {
    yield r;
    if (++n % LINES_PER_TICK === 0) await new Promise((res) => setImmediate(res));
  }
}

const time = (field: string, v: string | undefined): bigint | undefined => {
  if (v === undefined) return undefined;
  const ns = nsFromIso(v);
  if (ns === null) throw invalid(['filter', field], 'Input should be a valid datetime', v, 'datetime_parsing');
  return ns;
};

/** Handlers of the analytics operations (contract/analytics.ts); SQL in store/sqlite/analytics/. */
export const analyticsHandlers = {
  'threads.query': (input, ctx) => {
    // Everything that can fail is checked before the first line leaves: a 422 after a 200 header is impossible.
    validateThreadSort(input.sort_by);
    const rows = ctx.store.analytics.threads({
      project_id: input.project_id,
      after_ns: time('after_datetime', input.filter?.after_datetime),
      before_ns: time('before_datetime', input.filter?.before_datetime),
      thread_ids: input.filter?.thread_ids,
      limit: input.limit,
      offset: input.offset,
      sort_by: input.sort_by,
    });
    return streamed(rows);
  },
  'agents.query': (input, ctx) => ctx.store.analytics.agents(input),
  'spans.query': (input, ctx) => {
    validateSpansQuery(input);
    if (input.group_by?.length) {
      const r = ctx.store.analytics.groupSpans({ ...input, group_by: input.group_by });
      return { groups: r.groups as never, spans: [], total_count: r.total_count };
    }
    const r = ctx.store.analytics.listSpans(input);
    return { groups: [], spans: r.spans as never, total_count: r.total_count };
  },
} satisfies Partial<Handlers>;
