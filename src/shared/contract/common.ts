import { z } from 'zod';

/** Reusable schema parts of the interface. */

export const StatusCode = z.enum(['UNSET', 'OK', 'ERROR']);
export type StatusCode = z.infer<typeof StatusCode>;

/** ISO 8601 date-time out: UTC, 'Z', microseconds (semantics §1). */
export const DateTimeOut = z.string();
/** ISO 8601 date-time in: any offset; a naive one is UTC. */
export const DateTimeIn = z.string().refine((s) => !Number.isNaN(Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(s) ? s : `${s}Z`)), {
  message: 'Input should be a valid datetime',
});

export const SortDirection = z.enum(['asc', 'desc']);
/** At most 32 sort keys: more is never meant, and the bound lets validation stop at once (zod checks an array's length before its items). */
export const SortBy = z.array(z.strictObject({ field: z.string(), direction: SortDirection.default('desc') })).max(32);

export const Limit = (max: number, dflt: number) => z.number().int().min(0).max(max).default(dflt);
export const Offset = z.number().int().min(0).default(0);

/** Feedback record: all keys always present (interface.md). */
export const FeedbackRecord = z.object({
  id: z.string(),
  feedback_type: z.string(),
  svc_ref: z.string(),
  payload: z.record(z.string(), z.unknown()),
  creator: z.string().nullable(),
  created_at: DateTimeOut.nullable(),
  svc_user_id: z.string().nullable(),
  runnable_ref: z.string().nullable(),
  call_ref: z.string().nullable(),
  trigger_ref: z.string().nullable(),
  annotation_ref: z.string().nullable(),
  scorer_tags: z.array(z.string()),
  scorer_tag_reasons: z.record(z.string(), z.string()),
  scorer_tag_confidences: z.record(z.string(), z.number()),
  scorer_ratings: z.record(z.string(), z.number()),
  scorer_rating_reasons: z.record(z.string(), z.string()),
  scorer_rating_confidences: z.record(z.string(), z.number()),
});
export type FeedbackRecord = z.infer<typeof FeedbackRecord>;
