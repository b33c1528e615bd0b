import { op } from './define.js';
import { z } from 'zod';
import { DateTimeIn, FeedbackRecord, Limit, Offset } from './common.js';

/**
 * Feedback extension operations (semantics §8, §11). A record's target is its `svc_ref`:
 * `svc:///<project_id>/conversation|trace|span/<id>`.
 */
export const SVC_REF_PATTERN = /^svc:\/\/\/.+?\/(conversation|trace|span)\/.+$/;
const SvcRef = z.string().regex(SVC_REF_PATTERN, { message: "svc_ref must look like 'svc:///<project_id>/<conversation|trace|span>/<id>'" });

export const feedbackOps = {
  'feedback.create': op({
    method: 'POST',
    path: '/feedback/create',
    auth: 'none',
    summary: 'Stores one feedback record about a conversation, trace or span (addressed by svc_ref).',
    input: z.strictObject({
      svc_ref: SvcRef,
      feedback_type: z.string().min(1),
      payload: z.record(z.string(), z.unknown()).default({}),
      creator: z.string().nullable().default(null),
      created_at: DateTimeIn.nullable().default(null),
      svc_user_id: z.string().nullable().default(null),
      runnable_ref: z.string().nullable().default(null),
      call_ref: z.string().nullable().default(null),
      trigger_ref: z.string().nullable().default(null),
      annotation_ref: z.string().nullable().default(null),
      scorer_tags: z.array(z.string()).default([]),
      scorer_tag_reasons: z.record(z.string(), z.string()).default({}),
      scorer_tag_confidences: z.record(z.string(), z.number()).default({}),
      scorer_ratings: z.record(z.string(), z.number()).default({}),
      scorer_rating_reasons: z.record(z.string(), z.string()).default({}),
      scorer_rating_confidences: z.record(z.string(), z.number()).default({}),
    }),
    output: FeedbackRecord,
  }),
  'feedback.update': op({
    method: 'POST',
    path: '/feedback/update',
    auth: 'none',
    summary: 'Changes one feedback record of a project (e.g. thumbs up → down, the note); its target and creation time stay. 404 when the project has no record with this id.',
    input: z.strictObject({
      project_id: z.string().min(1),
      id: z.string().min(1),
      feedback_type: z.string().min(1).optional(),
      payload: z.record(z.string(), z.unknown()).optional(),
      creator: z.string().nullable().optional(),
      scorer_tags: z.array(z.string()).optional(),
      scorer_ratings: z.record(z.string(), z.number()).optional(),
    }),
    output: FeedbackRecord,
  }),
  'feedback.delete': op({
    method: 'POST',
    path: '/feedback/delete',
    auth: 'none',
    summary: 'Deletes one feedback record of a project. 404 when the project has no record with this id.',
    input: z.strictObject({ project_id: z.string().min(1), id: z.string().min(1) }),
    output: z.object({ deleted: z.literal(true) }),
  }),
  'feedback.query': op({
    method: 'POST',
    path: '/feedback/query',
    auth: 'none',
    summary: "Lists a project's feedback, newest first; optionally only one target (svc_ref) or one feedback_type.",
    input: z.strictObject({
      project_id: z.string().min(1),
      svc_ref: SvcRef.optional(),
      feedback_type: z.string().optional(),
      limit: Limit(10000, 100),
      offset: Offset,
    }),
    output: z.object({ feedback: z.array(FeedbackRecord), total_count: z.number().int() }),
  }),
} as const satisfies Record<string, ReturnType<typeof op>>;
