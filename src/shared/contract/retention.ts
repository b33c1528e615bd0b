import { z } from 'zod';
import { op } from './define.js';
import { DateTimeIn } from './common.js';

/**
 * Retention and storage (issue 8 item 5): delete whole traces — of a project, by id, older than an
 * instant, or the oldest until the store fits a size cap — with every summary kept exact; and the
 * store's size per project (Settings).
 */
const DeleteInput = z
  .strictObject({
    /** Alone: every trace of the project. With trace_ids: those traces. With older_than: only this project's. */
    project_id: z.string().min(1).optional(),
    trace_ids: z.array(z.string().min(1)).min(1).max(10_000).optional(),
    /** Traces whose last activity (latest span end) is before this instant. */
    older_than: DateTimeIn.optional(),
    /** The oldest traces (of every project) until the store's pages in use fit this many bytes. */
    max_bytes: z.number().int().min(0).optional(),
  })
  .refine(
    (v) =>
      (v.max_bytes !== undefined && !v.project_id && !v.trace_ids && !v.older_than) ||
      (v.older_than !== undefined && v.max_bytes === undefined && !v.trace_ids) ||
      (v.project_id !== undefined && v.max_bytes === undefined && v.older_than === undefined),
    { message: 'Give project_id (optionally with trace_ids), or older_than (optionally with project_id), or max_bytes alone' },
  );

export const retentionOps = {
  'spans.delete': op({
    method: 'POST',
    path: '/app/spans/delete',
    auth: 'none',
    summary: 'Delete whole traces (a project, trace ids, older than an instant, or the oldest down to a size cap); summaries stay exact',
    input: DeleteInput,
    output: z.object({
      deleted_spans: z.number().int(),
      deleted_traces: z.number().int(),
      projects: z.array(z.string()),
      store_bytes: z.number().int(),
    }),
  }),
  'system.storage': op({
    method: 'GET',
    path: '/app/storage',
    auth: 'none',
    summary: "The store's size, and per project its spans and an estimate of their bytes (the total shared by span count)",
    input: z.strictObject({}),
    output: z.object({
      total_bytes: z.number().int(),
      projects: z.array(z.object({ project_id: z.string(), span_count: z.number().int(), bytes: z.number().int() })),
    }),
  }),
} as const;
